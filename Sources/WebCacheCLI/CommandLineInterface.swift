import FoundationEssentials
import WebCache

/// The `webcache` command line: parsing is pure and separate from running, so both can be tested.
public enum CommandLineInterface {
    /// The version `webcache --version` prints.
    public static let version = WebCache.version

    /// What a command line asks for, before anything runs.
    enum Invocation: Sendable {
        case help(String)
        /// No subcommand: the root help goes to standard error, as a usage error.
        case missingSubcommand(String)
        case version
        case run(CommandSpec, ParsedArguments)
    }

    /// Parses the arguments after the program name.
    static func parse(_ arguments: [String]) throws(UsageError) -> Invocation {
        guard let first = arguments.first else {
            return .missingSubcommand(
                HelpFormatter.rootHelp(abstract: CommandCatalog.abstract, subcommands: CommandCatalog.all))
        }
        switch first {
        case "-h", "--help":
            return .help(HelpFormatter.rootHelp(abstract: CommandCatalog.abstract, subcommands: CommandCatalog.all))
        case "--version":
            return .version
        case "help":
            guard let name = arguments.dropFirst().first else {
                return .help(HelpFormatter.rootHelp(abstract: CommandCatalog.abstract, subcommands: CommandCatalog.all))
            }
            return .help(HelpFormatter.help(for: try spec(named: name)))
        default:
            let spec = try spec(named: first)
            let rest = Array(arguments.dropFirst())
            if rest.contains(where: { $0 == "-h" || $0 == "--help" }) {
                return .help(HelpFormatter.help(for: spec))
            }
            return .run(spec, try ArgumentParser.parse(rest, spec: spec))
        }
    }

    private static func spec(named name: String) throws(UsageError) -> CommandSpec {
        if let spec = CommandCatalog.all.first(where: { $0.name == name }) {
            return spec
        }
        var error = UsageError(name.hasPrefix("-") ? "Unknown option '\(name)'" : "Unknown subcommand '\(name)'")
        error.usage = "webcache <subcommand>"
        throw error
    }

    /// Parses and runs a command line, writing to the given outputs.
    /// - Returns: the exit code: 0 on success, 1 when something failed, 64 for a usage error (no
    ///   subcommand at all among them), 130 or 143 when `preload`, `refresh` or `import` was stopped
    ///   by SIGINT or SIGTERM.
    public static func run(
        _ arguments: [String],
        stdout: any TextOutput = FileDescriptorOutput.standardOutput,
        stderr: any TextOutput = FileDescriptorOutput.standardError,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) async -> Int32 {
        let invocation: Invocation
        do {
            invocation = try parse(arguments)
        } catch {
            stderr.write(error.text)
            return ExitCode.usage
        }
        switch invocation {
        case .help(let text):
            stdout.write(text)
            return ExitCode.success
        case .missingSubcommand(let text):
            stderr.write(text)
            return ExitCode.usage
        case .version:
            stdout.write("\(version)\n")
            return ExitCode.success
        case .run(let spec, let parsed):
            let context = CommandContext(arguments: parsed, stdout: stdout, stderr: stderr, environment: environment)
            do {
                return try await CommandRunner.run(spec, context: context)
            } catch let error as UsageError {
                stderr.write(error.text)
                return ExitCode.usage
            } catch {
                stderr.write("Error: \(CLIError.describe(error))\n")
                return ExitCode.failure
            }
        }
    }
}

/// The process exit codes, as in sysexits(3) where one applies.
enum ExitCode {
    static let success: Int32 = 0
    /// Something failed at run time; a partial preload failure counts.
    static let failure: Int32 = 1
    /// EX_USAGE: the command line was wrong.
    static let usage: Int32 = 64

    /// The shell's code for a process that signal `number` ended (128 + the number: 130 for SIGINT,
    /// 143 for SIGTERM), for a command that a signal stopped after it wound down cleanly.
    static func interrupted(by number: Int32) -> Int32 {
        128 + number
    }
}
