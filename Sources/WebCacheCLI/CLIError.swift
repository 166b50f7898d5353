/// A failure while running a command (not a usage error): printed as `Error: …` on standard error,
/// and the process exits with 1.
struct CLIError: Error, Sendable, CustomStringConvertible {
    var message: String

    init(_ message: String) {
        self.message = message
    }

    var description: String { message }

    /// The text of an underlying error, without Foundation's domain/code noise where a description exists.
    static func describe(_ error: any Error) -> String {
        if let error = error as? any CustomStringConvertible & Error {
            return error.description
        }
        return error.localizedDescription
    }
}
