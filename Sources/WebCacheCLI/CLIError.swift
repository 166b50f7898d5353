/// A failure while running a command (not a usage error): printed as `Error: …` on standard error,
/// and the process exits with 1.
struct CLIError: Error, Sendable, CustomStringConvertible {
    var message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }

    /// The text of an underlying error: its own description, which webcache's errors write as sentences.
    static func describe(_ error: any Error) -> String {
        String(describing: error)
    }
}
