/// The declared shape of one subcommand: what it is for, the arguments and options it takes.
///
/// Parsing and help text both come from this one description, so they cannot disagree.
struct CommandSpec: Sendable {
    /// The subcommand's name, as typed after `webcache`.
    var name: String
    /// One line for `OVERVIEW:` and the subcommand list.
    var abstract: String
    /// Further paragraphs printed after the overview, if any.
    var discussion: String = ""
    var arguments: [ArgumentSpec] = []
    var options: [OptionSpec] = []

    /// The usage line, as in `webcache preload [--concurrency <n>] <url-file>`.
    var usage: String {
        var parts = ["webcache", name]
        for option in options where option.showInUsage {
            parts.append(option.usageFragment)
        }
        for argument in arguments {
            parts.append(argument.isOptional ? "[<\(argument.name)>]" : "<\(argument.name)>")
            if argument.isRepeated { parts.append("...") }
        }
        return parts.joined(separator: " ")
    }

    /// The option whose long or short name is `name` (with its dashes).
    func option(named name: String) -> OptionSpec? {
        options.first { $0.names.contains(name) }
    }
}

/// A positional argument.
struct ArgumentSpec: Sendable {
    var name: String
    var help: String
    var isOptional = false
    /// Whether the argument takes every remaining positional value (the last argument only).
    var isRepeated = false
}

/// A named option: a flag, or an option that takes a value, possibly repeated.
struct OptionSpec: Sendable {
    enum Kind: Sendable {
        case flag
        case value(name: String)
        case repeatedValue(name: String)
    }

    /// Every spelling with its dashes, long name first: `["--concurrency", "-j"]`.
    var names: [String]
    var kind: Kind
    var help: String
    /// Appended to the help line as `(default: …)`.
    var defaultValue: String?
    /// Whether the usage line lists the option; options shared by every command are left out to keep it short.
    var showInUsage = true
    /// Whether the command needs the option: its usage shows it without brackets, and parsing fails without it.
    var isRequired = false

    /// The canonical key under which a parsed value is kept: the long name without dashes.
    var key: String {
        String(names[0].drop(while: { $0 == "-" }))
    }

    var takesValue: Bool {
        if case .flag = kind { return false }
        return true
    }

    var usageFragment: String {
        let fragment =
            switch kind {
            case .flag: names[0]
            case .value(let name): "\(names[0]) <\(name)>"
            case .repeatedValue(let name): "\(names[0]) <\(name)> ..."
            }
        return isRequired ? fragment : "[\(fragment)]"
    }

    /// The left column of the help line: `-j, --concurrency <n>`.
    var helpLabel: String {
        let sorted = names.sorted { $0.count < $1.count }
        let joined = sorted.joined(separator: ", ")
        switch kind {
        case .flag: return joined
        case .value(let name), .repeatedValue(let name): return "\(joined) <\(name)>"
        }
    }
}
