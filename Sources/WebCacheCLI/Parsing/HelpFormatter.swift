/// Renders help text in swift-argument-parser's layout: `OVERVIEW:`, `USAGE:`, `ARGUMENTS:`,
/// `OPTIONS:`, two-space indent and one aligned description column.
enum HelpFormatter {
    /// Help for one subcommand.
    static func help(for spec: CommandSpec) -> String {
        var text = "OVERVIEW: \(spec.abstract)\n"
        if !spec.discussion.isEmpty {
            let paragraphs = spec.discussion.split(separator: "\n", omittingEmptySubsequences: false)
            text += "\n" + paragraphs.map { wrap(String($0), width: width).joined(separator: "\n") }.joined(separator: "\n")
                + "\n"
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

    /// Help lines are wrapped to this width, as swift-argument-parser does for an 80-column terminal.
    private static let width = 80

    private static func table(_ rows: [(String, String)]) -> String {
        let indent = String(repeating: " ", count: descriptionColumn)
        return rows.map { label, help in
            let indented = "  " + label
            let lines = wrap(help, width: width - descriptionColumn)
            var text = indented
            if indented.count >= descriptionColumn - 1 {
                text += "\n" + indent
            } else {
                text += String(repeating: " ", count: descriptionColumn - indented.count)
            }
            return text + lines.joined(separator: "\n" + indent) + "\n"
        }.joined()
    }

    /// Splits `text` into lines of at most `width` characters at spaces (a longer word stands alone).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty || lines.isEmpty { lines.append(current) }
        return lines
    }
}
