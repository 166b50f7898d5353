import CacheStore
import Foundation
import Testing
import WebCache
import WebCacheTestSupport

@testable import WebCacheCLI

/// Options and arguments that name a URL, a host, a file or a pattern are checked before any work
/// starts: a bad one is a usage error (64) that names the value and says what is wrong. (Were one
/// accepted, the command would run: `serve` until the time limit cancels it.)
@Suite(.timeLimit(.minutes(5)))
struct InputOptionTests {
    private let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    /// Runs the command line in this process; standard error and the exit code.
    private func run(_ arguments: [String]) async -> (stderr: String, exitCode: Int32) {
        let stdout = BufferedOutput()
        let stderr = BufferedOutput()
        let code = await CommandLineInterface.run(
            arguments + ["--store", folder.path("store.sqlite")], stdout: stdout, stderr: stderr,
            environment: ["HOME": folder.url.path, "XDG_CACHE_HOME": folder.path("cache")])
        #expect(stdout.text.isEmpty)
        return (stderr.text, code)
    }

    @Test(arguments: [
        (["get", "x", "--instance", "http://127.0.0.1:99999/"],
         "The value 'http://127.0.0.1:99999/' is invalid for '--instance <url>': it has the port 99999, which is not "
            + "a number from 1 to 65535"),
        (["get", "x", "--instance", "http://"],
         "The value 'http://' is invalid for '--instance <url>': it has no host"),
        (["serve", "--port", "0", "--upstream", "http://bad_host!.com/"],
         "The value 'http://bad_host!.com/' is invalid for '--upstream <url>': it has the host 'bad_host!.com', "
            + "which is not a valid host name or IP address"),
        (["pin", "http://[zz::1]/"],
         "The value 'http://[zz::1]/' is invalid for '<url>': it has the host '[zz::1]', which is not a valid IPv6 "
            + "address"),
        (["pin", "index.html"],
         "The value 'index.html' is invalid for '<url>': it is a relative URL, and there is no --instance <url> to "
            + "resolve it against"),
        (["inspect", "--pages", "index.html"],
         "The value 'index.html' is invalid for '<url>': it is a relative URL, and there is no --instance <url> to "
            + "resolve it against"),
        (["export", "--har", "out.har", "--page", "nav/home"],
         "The value 'nav/home' is invalid for '--page <url>': it is a relative URL, and there is no --instance <url> "
            + "to resolve it against"),
        (["view", "index.html", "--screenshot", "shot.png"],
         "The value 'index.html' is invalid for '<url>': it is a relative URL, and there is no --instance <url> to "
            + "resolve it against"),
        (["inspect", "http://a.test:99999/", "--instance", "http://a.test/"],
         "The value 'http://a.test:99999/' is invalid for '<url>': it has the port 99999, which is not a number from "
            + "1 to 65535"),
        (["prune", "--page", "http://127.0.0.1:0/"],
         "The value 'http://127.0.0.1:0/' is invalid for '--page <url>': it has the port 0, which is not a number "
            + "from 1 to 65535"),
        (["get", "x", "--instance", "http://a.test/", "--jwt-command", "true", "--token-endpoint",
          "http://a.test:99999/token"],
         "The value 'http://a.test:99999/token' is invalid for '--token-endpoint <url>': it has the port 99999, "
            + "which is not a number from 1 to 65535"),
    ])
    func refusesAURLOptionNoConnectionCanUse(arguments: [String], message: String) async {
        let (stderr, code) = await run(arguments)
        #expect(code == 64)
        #expect(stderr.hasPrefix("Error: \(message)\nUsage: webcache \(arguments[0]) "), "\(stderr)")
    }

    @Test func refusesACAFileThatCannotBeRead() async {
        let missing = folder.path("absent.pem")
        for (path, reason) in [(missing, "does not exist"), (folder.url.path, "is a directory")] {
            let (stderr, code) = await run(["get", "http://127.0.0.1:9/", "--cacert", path])
            #expect(code == 64)
            let message = "Error: The value '\(path)' is invalid for '--cacert <file>': the file \(reason)\n"
            #expect(stderr.hasPrefix(message), "\(stderr)")
        }
    }

    @Test func checksTheOptionsBeforeReadingTheURLFile() async {
        let (stderr, code) = await run(["preload", "/nonexistent/urls.txt", "--concurrency", "0"])
        #expect(code == 64)
        #expect(stderr.hasPrefix("Error: The value '0' is invalid for '--concurrency <n>'\n"), "\(stderr)")
    }

    @Test(arguments: [
        (["preload", "/dev/null", "--allow-host", "http://127.0.0.1:33791/"],
         "The value 'http://127.0.0.1:33791/' is invalid for '--allow-host <host>': it is a URL; give its host "
            + "alone: 127.0.0.1"),
        (["preload", "/dev/null", "--allow-host", "bad host!"],
         "The value 'bad host!' is invalid for '--allow-host <host>': a host is a name such as example.com or an "
            + "IP address such as 192.0.2.1 or ::1, matched exactly and on every port"),
        (["preload", "/dev/null", "--deny-host", ""],
         "The value '' is invalid for '--deny-host <host>': a host is a name such as example.com"),
        (["preload", "/dev/null", "--allow-host", "*.example.com"],
         "The value '*.example.com' is invalid for '--allow-host <host>': hosts are matched exactly, not as "
            + "patterns; give each host, such as www.example.com"),
        (["preload", "/dev/null", "--allow-host", "127.0.0.1:8080"],
         "The value '127.0.0.1:8080' is invalid for '--allow-host <host>': a host is matched on every port; give "
            + "it without one: 127.0.0.1"),
        (["refresh", "--host", "https://a.test/x"],
         "The value 'https://a.test/x' is invalid for '--host <host>': it is a URL; give its host alone: a.test"),
        (["prune", "--host", "bad_host!.com"],
         "The value 'bad_host!.com' is invalid for '--host <host>': a host is a name such as example.com"),
        (["preload", "/dev/null", "--deny-host", "[zz::1]"],
         "The value '[zz::1]' is invalid for '--deny-host <host>': a host is a name such as example.com"),
    ])
    func refusesAHostOptionThatIsNoHost(arguments: [String], message: String) async {
        let (stderr, code) = await run(arguments)
        #expect(code == 64)
        #expect(stderr.hasPrefix("Error: \(message)"), "\(stderr)")
    }

    /// A bare number is seconds everywhere else; to prune, where "30" meant as days would remove
    /// nearly everything, it needs its unit.
    @Test(arguments: ["30", " 7 ", "1.5"])
    func pruneRefusesAnAgeWithoutAUnit(age: String) async {
        let (stderr, code) = await run(["prune", "--older-than", age, "--dry-run"])
        #expect(code == 64)
        #expect(stderr.hasPrefix("Error: The value '\(age)' for '--older-than <duration>' has no unit; give one of "
            + "s, m, h, d or w, as in 30d"), "\(stderr)")
    }

    @Test func acceptsHostsAsTheEngineComparesThem() throws {
        let parsed = try ArgumentParser.parse(
            ["urls.txt", "--allow-host", "A.Test", "--allow-host", "[::1]", "--allow-host", "bücher.example",
             "--allow-host", "192.0.2.1", "--deny-host", "::1", "--deny-host", "my_host.example."],
            spec: CommandCatalog.preload)
        let options = try PreloadScopeOptions.options(from: parsed)
        #expect(options.allowedHosts == ["a.test", "::1", "xn--bcher-kva.example", "192.0.2.1"])
        #expect(options.deniedHosts == ["::1", "my_host.example."])
    }

    @Test(arguments: [
        ("::1", "[::1]"), ("[::1]", "[::1]"), ("CDN.a.test", "cdn.a.test"), ("127.0.0.1", "127.0.0.1"),
        ("xn--bcher-kva.example", "bücher.example"), ("bücher.example", "bücher.example"),
    ])
    func prunesAHostAsTheStoreKeepsIt(given: String, stored: String) throws {
        let parsed = try ArgumentParser.parse(["--host", given], spec: CommandCatalog.prune)
        #expect(try PruneCommand.makePlan(parsed, now: Date()) == .criteria(PruneCriteria(host: stored)))
    }

    @Test(arguments: [
        ("[", 1), ("*/[a-z", 3), ("[]", 1), ("[^]", 1), ("*.css[", 6),
    ])
    func refusesAGlobWithASetThatIsNeverClosed(pattern: String, position: Int) async {
        let (stderr, code) = await run(["prune", "--url-pattern", pattern])
        #expect(code == 64)
        #expect(stderr.hasPrefix("Error: The value '\(pattern)' is invalid for '--url-pattern <glob>': the '[' at "
            + "character \(position) opens a set that no ']' closes, so the pattern matches nothing; write '[[]' "
            + "to match a '[' itself\n"), "\(stderr)")
    }

    @Test(arguments: ["*", "*.css", "[[]", "*[]]*", "[^]x]", "*/img-[0-9]*.png", "a]b"])
    func acceptsGlobsWhoseSetsAreClosed(pattern: String) throws {
        let parsed = try ArgumentParser.parse(["--url-pattern", pattern], spec: CommandCatalog.prune)
        #expect(try PruneCommand.makePlan(parsed, now: Date()) == .criteria(PruneCriteria(urlPattern: pattern)))
    }
}
