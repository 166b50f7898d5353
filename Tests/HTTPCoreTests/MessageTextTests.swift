import Testing

@testable import HTTPCore

/// A message followed by the sentence of the error under it.
struct MessageTextTests {
    private struct Cause: Error, CustomStringConvertible {
        var description: String
    }

    @Test func endsTheCauseWithOneFullStopAndLeavesAMessageWithoutOneAsItIs() {
        let ended = Cause(description: "The file 'list.txt' does not exist.")
        let open = Cause(description: "SQLite error 11: database disk image is malformed")
        #expect(MessageText.withCause("Nothing stored.", ended)
            == "Nothing stored. Underlying error: The file 'list.txt' does not exist.")
        #expect(MessageText.withCause("Nothing stored.", open)
            == "Nothing stored. Underlying error: SQLite error 11: database disk image is malformed.")
        #expect(MessageText.withCause("Nothing stored.", nil) == "Nothing stored.")
    }
}
