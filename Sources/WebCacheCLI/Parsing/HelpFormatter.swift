/// Renders help text in swift-argument-parser's layout: `OVERVIEW:`, `USAGE:`, `ARGUMENTS:`,
/// `OPTIONS:`, two-space indent and one aligned description column.
enum HelpFormatter {
    /// Help for one subcommand.
    static func help(for spec: CommandSpec) -> String {
        var text = "OVERVIEW: \(spec.abstract)\n"
        if !spec.discussion.isEmpty {
            text += "\n\(spec.discussion)\n"
        }
        text += "\nUSAGE: \(spec.usage)\n"
        var rows: [(String, String)] = spec.arguments.map { ("<\($0.name)>", $0.help) }
        if !rows.isEmpty {
            text += "\nARGUMENTS:\n" + table(rows)
        }
        rows = spec.options.map { option in
            (option.helpLabel, option.help + (option.defaultValue.map { " (default: \($0))" } ?? ""))
        }
        rows.append(("-h, --help", "Show help information."))
        text += "\nOPTIONS:\n" + table(rows)
        return text
    }

    /// The top-level help: overview and subcommand list.
    static func rootHelp(abstract: String, subcommands: [CommandSpec]) -> String {
        var text = "OVERVIEW: \(abstract)\n\nUSAGE: webcache <subcommand>\n\nOPTIONS:\n"
        text += table([("--version", "Show the version."), ("-h, --help", "Show help information.")])
        text += "\nSUBCOMMANDS:\n" + table(subcommands.map { ($0.name, $0.abstract) })
        text += "\n  See 'webcache help <subcommand>' for detailed help.\n"
        return text
    }

    private static let descriptionColumn = 26

    private static func table(_ rows: [(String, String)]) -> String {
        rows.map { label, help in
            let indented = "  " + label
            if indented.count >= descriptionColumn - 1 {
                return indented + "\n" + String(repeating: " ", count: descriptionColumn) + help + "\n"
            }
            return indented + String(repeating: " ", count: descriptionColumn - indented.count) + help + "\n"
        }.joined()
    }
}
