/// Parses one subcommand's arguments against its ``CommandSpec``.
///
/// Accepts `--name value`, `--name=value`, `-n value`, `-nvalue` for single-letter options with a value,
/// bundled short flags (`-iv`), and `--` to end options.
enum ArgumentParser {
    static func parse(_ arguments: [String], spec: CommandSpec) throws(UsageError) -> ParsedArguments {
        var parsed = ParsedArguments(spec: spec)
        var index = arguments.startIndex
        var optionsEnded = false

        func take(_ option: OptionSpec, inline: String?, spelled: String) throws(UsageError) {
            guard option.takesValue else {
                if inline != nil {
                    throw UsageError("The flag '\(spelled)' does not take a value", command: spec)
                }
                parsed.values[option.key, default: []].append("")
                return
            }
            if let inline {
                parsed.values[option.key, default: []].append(inline)
                return
            }
            let next = arguments.index(after: index)
            guard next < arguments.endIndex else {
                throw UsageError("Missing value for '\(option.helpLabel)'", command: spec)
            }
            parsed.values[option.key, default: []].append(arguments[next])
            index = next
        }

        while index < arguments.endIndex {
            let argument = arguments[index]
            if optionsEnded || argument == "-" || !argument.hasPrefix("-") {
                parsed.positionals.append(argument)
            } else if argument == "--" {
                optionsEnded = true
            } else if argument.hasPrefix("--") {
                let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = String(parts[0])
                guard let option = spec.option(named: name) else {
                    throw UsageError("Unknown option '\(name)'", command: spec)
                }
                try take(option, inline: parts.count > 1 ? String(parts[1]) : nil, spelled: name)
            } else {
                // Short options: `-j4`, `-j 4`, or bundled flags such as `-iv`.
                var letters = Substring(argument.dropFirst())
                while let letter = letters.first {
                    let name = "-\(letter)"
                    guard let option = spec.option(named: name) else {
                        throw UsageError("Unknown option '\(name)'", command: spec)
                    }
                    letters = letters.dropFirst()
                    if option.takesValue {
                        try take(option, inline: letters.isEmpty ? nil : String(letters), spelled: name)
                        break
                    }
                    try take(option, inline: nil, spelled: name)
                }
            }
            index = arguments.index(after: index)
        }

        for option in spec.options where option.isRequired && parsed.values[option.key] == nil {
            throw UsageError("Missing expected option '\(option.helpLabel)'", command: spec)
        }
        let required = spec.arguments.filter { !$0.isOptional }
        if parsed.positionals.count < required.count {
            let missing = required[parsed.positionals.count]
            throw UsageError("Missing expected argument '<\(missing.name)>'", command: spec)
        }
        if parsed.positionals.count > spec.arguments.count, spec.arguments.last?.isRepeated != true {
            let extra = parsed.positionals[spec.arguments.count]
            throw UsageError("Unexpected argument '\(extra)'", command: spec)
        }
        return parsed
    }
}
