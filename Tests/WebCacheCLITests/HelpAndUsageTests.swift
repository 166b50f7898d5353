import Foundation
import Testing
import WebCacheTestSupport

@testable import WebCacheCLI

/// Help, version and usage errors of the real executable: text, stream and exit code.
@Suite(.timeLimit(.minutes(5)))
struct HelpAndUsageTests {
    let folder: TemporaryFolder
    let webcache: WebcacheRunner

    init() throws {
        folder = try TemporaryFolder()
        webcache = WebcacheRunner(home: folder, searchPath: WebcacheRunner.inheritedSearchPath)
    }

    @Test func rootHelpGoesToStandardOutput() async throws {
        for arguments in [["--help"], ["-h"], ["help"]] {
            let result = try await webcache.run(arguments)
            #expect(result.exitCode == 0, "\(arguments)")
            #expect(result.stderr.isEmpty)
            #expect(result.stdout.hasPrefix("OVERVIEW: "))
            #expect(result.stdout.contains("\nUSAGE: webcache <subcommand>\n"))
            for name in ["get", "preload", "inspect", "prune", "pin", "verify", "logout"] {
                #expect(result.stdout.contains("\n  \(name) "), "\(name) is not listed")
            }
            #expect(result.stdout.hasSuffix("  See 'webcache help <subcommand>' for detailed help.\n"))
        }
    }

    /// `webcache` alone asks for nothing: the list of commands goes to standard error, and the exit
    /// code is that of every usage error.
    @Test func noSubcommandIsAUsageErrorThatListsTheCommands() async throws {
        let help = try await webcache.run(["--help"])
        let result = try await webcache.run([])
        #expect(result.exitCode == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == help.stdout)
        #expect(result.stderr.contains("\nSUBCOMMANDS:\n  get "))
    }

    @Test(arguments: ["inspect", "prune", "pin", "verify", "logout"])
    func subcommandHelpIsTheSameEveryWay(name: String) async throws {
        let viaHelp = try await webcache.run(["help", name])
        let viaShort = try await webcache.run([name, "-h"])
        let viaLong = try await webcache.run([name, "--help"])
        #expect(viaHelp.exitCode == 0)
        #expect(viaShort.exitCode == 0)
        #expect(viaLong.exitCode == 0)
        #expect(viaHelp.stdout == viaShort.stdout)
        #expect(viaHelp.stdout == viaLong.stdout)
        #expect(viaHelp.stdout.contains("\nUSAGE: webcache \(name)"))
        #expect(viaHelp.stdout.hasSuffix("  -h, --help              Show help information.\n"))
        #expect(viaHelp.stderr.isEmpty)
    }

    @Test func printsTheVersion() async throws {
        let result = try await webcache.run(["--version"])
        #expect(result.exitCode == 0)
        #expect(result.stdout == "\(CommandLineInterface.version)\n")
    }

    @Test(arguments: [
        (["frobnicate"], "Error: Unknown subcommand 'frobnicate'\nUsage: webcache <subcommand>\n"
            + "  See 'webcache --help' for more information.\n"),
        (["--frobnicate"], "Error: Unknown option '--frobnicate'\nUsage: webcache <subcommand>\n"
            + "  See 'webcache --help' for more information.\n"),
        (["help", "frobnicate"], "Error: Unknown subcommand 'frobnicate'\nUsage: webcache <subcommand>\n"
            + "  See 'webcache --help' for more information.\n"),
        (["prune", "--frobnicate"], "Error: Unknown option '--frobnicate'\nUsage: \(CommandCatalog.prune.usage)\n"
            + "  See 'webcache prune --help' for more information.\n"),
        (["pin"], "Error: Missing expected argument '<url>'\nUsage: \(CommandCatalog.pin.usage)\n"
            + "  See 'webcache pin --help' for more information.\n"),
        (["verify", "extra"], "Error: Unexpected argument 'extra'\nUsage: \(CommandCatalog.verify.usage)\n"
            + "  See 'webcache verify --help' for more information.\n"),
        (["inspect", "--store"], "Error: Missing value for '--store <path>'\nUsage: \(CommandCatalog.inspect.usage)\n"
            + "  See 'webcache inspect --help' for more information.\n"),
        (["verify", "--log-level", "loud"], "Error: The value 'loud' is invalid for '--log-level <level>'\n"
            + "Usage: \(CommandCatalog.verify.usage)\n  See 'webcache verify --help' for more information.\n"),
        (["logout", "--token-command", "printf token"],
         "Error: --token-command needs --instance <url>: the session is started on the instance\n"
            + "Usage: \(CommandCatalog.logout.usage)\n  See 'webcache logout --help' for more information.\n"),
        (["get", "--keep-session", "http://127.0.0.1:9/"],
         "Error: --keep-session needs --token-command, --token-file or --jwt-command: a guest has no session to keep\n"
            + "Usage: \(CommandCatalog.get.usage)\n  See 'webcache get --help' for more information.\n"),
        (["logout", "--guest", "--token-file", "token.txt"],
         "Error: --guest cannot be combined with --token-file\n"
            + "Usage: \(CommandCatalog.logout.usage)\n  See 'webcache logout --help' for more information.\n"),
        // Options that would do nothing without another are refused, not ignored.
        (["get", "--max-stale", "1d", "http://127.0.0.1:9/"],
         "Error: --max-stale <duration> limits the offline policy; give it with --policy offline\n"
            + "Usage: \(CommandCatalog.get.usage)\n  See 'webcache get --help' for more information.\n"),
        (["preload", "urls.txt", "--max-media-size", "1MB"],
         "Error: --max-media-size needs --media\n"
            + "Usage: \(CommandCatalog.preload.usage)\n  See 'webcache preload --help' for more information.\n"),
        // Numbers a timeout, an interval or a rate cannot hold, and fields no request may carry, before any work.
        (["get", "--connect-timeout", "1e300", "http://127.0.0.1:9/"],
         "Error: The value '1e300' is invalid for '--connect-timeout <duration>'\n"
            + "Usage: \(CommandCatalog.get.usage)\n  See 'webcache get --help' for more information.\n"),
        (["get", "--connect-timeout", "inf", "http://127.0.0.1:9/"],
         "Error: The value 'inf' is invalid for '--connect-timeout <duration>'\n"
            + "Usage: \(CommandCatalog.get.usage)\n  See 'webcache get --help' for more information.\n"),
        (["serve", "--head-timeout", "1e300"],
         "Error: The value '1e300' is invalid for '--head-timeout <duration>'\n"
            + "Usage: \(CommandCatalog.serve.usage)\n  See 'webcache serve --help' for more information.\n"),
        (["serve", "--flush-hits", "0"],
         "Error: The value '0' is invalid for '--flush-hits <duration>'\n"
            + "Usage: \(CommandCatalog.serve.usage)\n  See 'webcache serve --help' for more information.\n"),
        (["serve", "--flush-hits", "1e20"],
         "Error: The value '1e20' is invalid for '--flush-hits <duration>'\n"
            + "Usage: \(CommandCatalog.serve.usage)\n  See 'webcache serve --help' for more information.\n"),
        (["serve", "--rate-limit", "inf"],
         "Error: The value 'inf' is invalid for '--rate-limit <n>'\n"
            + "Usage: \(CommandCatalog.serve.usage)\n  See 'webcache serve --help' for more information.\n"),
        (["get", "-H", "Bad Name: x", "http://127.0.0.1:9/"],
         "Error: The value 'Bad Name: x' is invalid for '--header <name: value>': the name 'Bad Name' is not an "
            + "HTTP token\nUsage: \(CommandCatalog.get.usage)\n  See 'webcache get --help' for more information.\n"),
        (["get", "-H", "X-A: 1\r\nX-Injected: 1", "http://127.0.0.1:9/"],
         "Error: The value 'X-A: 1\\u{d}\\u{a}X-Injected: 1' is invalid for '--header <name: value>': the value "
            + "holds a line break or NUL\nUsage: \(CommandCatalog.get.usage)\n"
            + "  See 'webcache get --help' for more information.\n"),
        (["get", "--login-path", "login", "http://127.0.0.1:9/"],
         "Error: The value 'login' is invalid for '--login-path <pattern>': it is a path that starts with '/'\n"
            + "Usage: \(CommandCatalog.get.usage)\n  See 'webcache get --help' for more information.\n"),
        (["get", "--login-host", "idp example", "http://127.0.0.1:9/"],
         "Error: The value 'idp example' is invalid for '--login-host <host>': it is not a host name or IP address\n"
            + "Usage: \(CommandCatalog.get.usage)\n  See 'webcache get --help' for more information.\n"),
        (["get", "--resolve", "h:99999:127.0.0.1", "http://127.0.0.1:9/"],
         "Error: The value 'h:99999:127.0.0.1' is invalid for '--resolve'\n"
            + "Usage: \(CommandCatalog.get.usage)\n  See 'webcache get --help' for more information.\n"),
    ])
    func usageErrorsExitWith64OnStandardError(arguments: [String], expected: String) async throws {
        let result = try await webcache.run(arguments)
        #expect(result.exitCode == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == expected)
    }

    @Test func usesTheDefaultStoreUnderTheCacheHome() async throws {
        // With no --store, the store is looked for under $XDG_CACHE_HOME, which points into the test folder.
        let result = try await webcache.run(["verify"])
        let expected = folder.url.appendingPathComponent("cache/webcache/store.sqlite").path
        #expect(result.exitCode == 1)
        #expect(result.stderr == "Error: There is no store at '\(expected)'; give the path of one with --store.\n")
    }

    /// Commands that read or revalidate what is stored (`get` with the cache-only policy and `serve
    /// --offline` among them) refuse a path with no store, and leave none.
    @Test(arguments: ["refresh", "inspect", "verify", "prune", "get", "serve"])
    func aMissingStoreIsNamedAndNotCreated(command: String) async throws {
        let path = folder.url.appendingPathComponent("mistyped.sqlite").path
        let extra =
            switch command {
            case "prune": ["--expired"]
            case "get": ["--policy", "cache-only", "http://127.0.0.1:9/page.html"]
            case "serve": ["--offline", "--port", "0"]
            default: [String]()
            }
        let result = try await webcache.run([command, "--store", path] + extra)
        #expect(result.exitCode == 1)
        #expect(result.stderr == "Error: There is no store at '\(path)'; give the path of one with --store.\n")
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
