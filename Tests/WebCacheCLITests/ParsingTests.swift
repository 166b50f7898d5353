import Foundation
import Testing

@testable import WebCacheCLI

/// `CommandLineInterface.parse` on arrays: no process, no store.
struct ParsingTests {
    private func parsed(_ arguments: [String]) throws -> (CommandSpec, ParsedArguments) {
        let invocation = try CommandLineInterface.parse(arguments)
        guard case .run(let spec, let parsed) = invocation else {
            Issue.record("\(arguments) did not parse as a command to run: \(invocation)")
            throw UsageError("not a run")
        }
        return (spec, parsed)
    }

    private func usageError(_ arguments: [String]) -> UsageError? {
        #expect(throws: UsageError.self) { try CommandLineInterface.parse(arguments) }
    }

    @Test func parsesFlagsValuesAndPositionals() throws {
        let (spec, arguments) = try parsed(["get", "-i", "--policy=offline", "--max-stale", "7d", "https://a.test/"])
        #expect(spec.name == "get")
        #expect(arguments.flag("include"))
        #expect(arguments.value("policy") == "offline")
        #expect(arguments.value("max-stale") == "7d")
        #expect(arguments.positionals == ["https://a.test/"])
        #expect(!arguments.flag("verbose"))
    }

    @Test func parsesShortValuesBundledFlagsAndRepeats() throws {
        let (_, arguments) = try parsed([
            "preload", "-j4", "-H", "A: 1", "--header", "B: 2", "--allow-host", "a.test", "--allow-host=b.test",
            "urls.txt",
        ])
        #expect(arguments.value("concurrency") == "4")
        #expect(arguments.allValues("header") == ["A: 1", "B: 2"])
        #expect(arguments.allValues("allow-host") == ["a.test", "b.test"])
        let (_, bundled) = try parsed(["get", "-iv", "https://a.test/"])
        #expect(bundled.flag("include"))
        #expect(bundled.flag("verbose"))
    }

    @Test func parsesPruneAndPinOptions() throws {
        let (_, prune) = try parsed(["prune", "-n", "--url-pattern", "*.css", "--include-pinned", "--json"])
        #expect(prune.flag("dry-run"))
        #expect(prune.flag("include-pinned"))
        #expect(prune.flag("json"))
        #expect(prune.value("url-pattern") == "*.css")
        let (_, pin) = try parsed(["pin", "--unpin", "--partition", "guest", "https://a.test/"])
        #expect(pin.flag("unpin"))
        #expect(pin.value("partition") == "guest")
        #expect(pin.positionals == ["https://a.test/"])
        let (_, inspect) = try parsed(["inspect"])
        #expect(inspect.positionals.isEmpty)
    }

    @Test func doubleDashEndsOptions() throws {
        let (_, arguments) = try parsed(["pin", "--", "--odd-url"])
        #expect(arguments.positionals == ["--odd-url"])
    }

    @Test(arguments: [
        (["get"], "Missing expected argument '<url>'", "get"),
        (["get", "a", "b"], "Unexpected argument 'b'", "get"),
        (["prune", "--bogus"], "Unknown option '--bogus'", "prune"),
        (["prune", "-Z"], "Unknown option '-Z'", "prune"),
        (["prune", "--dry-run=yes"], "The flag '--dry-run' does not take a value", "prune"),
        (["prune", "--older-than"], "Missing value for '--older-than <duration>'", "prune"),
        (["frobnicate"], "Unknown subcommand 'frobnicate'", nil),
        (["--bogus"], "Unknown option '--bogus'", nil),
    ] as [([String], String, String?)])
    func reportsUsageErrors(arguments: [String], message: String, command: String?) throws {
        let error = try #require(usageError(arguments))
        #expect(error.message == message)
        #expect(error.commandName == command)
        let spec = CommandCatalog.all.first { $0.name == command }
        let usage = spec?.usage ?? "webcache <subcommand>"
        let helpCommand = spec.map { "webcache \($0.name)" } ?? "webcache"
        let expected = "Error: \(message)\nUsage: \(usage)\n  See '\(helpCommand) --help' for more information.\n"
        #expect(error.text == expected)
    }

    @Test func helpIsTheSameEveryWay() throws {
        for spec in CommandCatalog.all {
            let expected = HelpFormatter.help(for: spec)
            let spellings = [["help", spec.name], [spec.name, "-h"], [spec.name, "--help"], [spec.name, "x", "--help"]]
            for arguments in spellings {
                guard case .help(let text) = try CommandLineInterface.parse(arguments) else {
                    Issue.record("\(arguments) is not help")
                    continue
                }
                #expect(text == expected)
            }
        }
        guard case .version = try CommandLineInterface.parse(["--version"]) else {
            Issue.record("--version is not the version")
            return
        }
    }

    @Test func helpFollowsTheArgumentParserLayout() throws {
        let text = HelpFormatter.help(for: CommandCatalog.prune)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.first == "OVERVIEW: Remove entries from the store.")
        #expect(lines.contains("USAGE: \(CommandCatalog.prune.usage)"))
        #expect(CommandCatalog.prune.usage.hasPrefix("webcache prune [--expired] [--older-than <duration>]"))
        #expect(!CommandCatalog.prune.usage.contains("--store"))
        let options = try #require(lines.firstIndex(of: "OPTIONS:"))
        #expect(lines[options - 1].isEmpty)
        #expect(lines.last == "")
        #expect(lines[lines.count - 2] == "  -h, --help              Show help information.")
        // Every short label has its description in column 26; long labels continue on the next line there.
        #expect(lines.contains("  --expired               Entries past their freshness lifetime and any"))
        #expect(lines.contains("  -n, --dry-run           Show what would be removed; remove nothing (the store"))
        // Descriptions wrap at 80 columns, continuing in column 26.
        #expect(lines.contains("  --store <path>          The store file. (default:"))
        #expect(lines.contains("                          $XDG_CACHE_HOME/webcache/store.sqlite)"))
        #expect(lines.allSatisfy { $0.count <= 80 || !$0.hasPrefix("  ") })
        for option in CommandCatalog.prune.options {
            let label = "  " + option.helpLabel
            var index = try #require(lines.firstIndex { $0.hasPrefix(label + " ") || $0 == label }, "\(label)")
            if label.count >= 25 { index += 1 }
            #expect(lines[index].prefix(26).hasSuffix(" "), "\(lines[index])")
            // The description is the text from column 26 of this line and its continuation lines.
            var description = String(lines[index].dropFirst(26))
            var next = index + 1
            while next < lines.count, lines[next].hasPrefix(String(repeating: " ", count: 26)) {
                description += " " + lines[next].dropFirst(26)
                next += 1
            }
            #expect(description.hasPrefix(option.help), "\(description)")
        }
        let root = HelpFormatter.rootHelp(abstract: CommandCatalog.abstract, subcommands: CommandCatalog.all)
        #expect(root.contains("\nSUBCOMMANDS:\n  get                     Load a URL through the store"))
    }

    @Test func everyCommandHasSpecificHelp() {
        for spec in CommandCatalog.all {
            #expect(!spec.abstract.isEmpty)
            #expect(spec.abstract.hasSuffix("."), "\(spec.name)")
            let names = spec.options.flatMap(\.names)
            #expect(Set(names).count == names.count, "\(spec.name) has an option twice")
        }
    }
}
