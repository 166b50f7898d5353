/// A command line that cannot be run as written: an unknown option, a missing argument, a bad value.
///
/// Printed to standard error in the layout users know from swift-argument-parser, and the process
/// exits with `EX_USAGE` (64).
struct UsageError: Error, Sendable, Equatable {
    /// The first line after `Error: `.
    var message: String
    /// The subcommand's usage line, when the error belongs to one.
    var usage: String?
    /// The name of the subcommand, for the "See 'webcache X --help'" hint.
    var commandName: String?

    init(_ message: String, command: CommandSpec? = nil) {
        self.message = message
        self.usage = command?.usage
        self.commandName = command?.name
    }

    /// The full text for standard error.
    var text: String {
        var lines = ["Error: \(message)"]
        if let usage {
            lines.append("Usage: \(usage)")
        }
        let helpTarget = commandName.map { "webcache \($0)" } ?? "webcache"
        lines.append("  See '\(helpTarget) --help' for more information.")
        return lines.joined(separator: "\n") + "\n"
    }
}
