import Foundation
import Testing

@testable import HTTPCore

/// A message followed by the sentence of the error under it, ended by one full stop.
struct MessageTextTests {
    private struct Cause: Error, CustomStringConvertible {
        var description: String
    }

    @Test(arguments: [
        ("The file 'list.txt' does not exist.", "The file 'list.txt' does not exist."),
        ("SQLite error 11: database disk image is malformed", "SQLite error 11: database disk image is malformed."),
    ])
    func endsTheUnderlyingSentenceOnce(cause: String, ending: String) {
        #expect(MessageText.withCause("Nothing stored.", Cause(description: cause))
            == "Nothing stored. Underlying error: \(ending)")
    }

    @Test func aMessageWithoutACauseStaysAsItIs() {
        #expect(MessageText.withCause("Nothing stored.", nil) == "Nothing stored.")
    }
}
