import CacheStore
import ChildProcess
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

/// The real `webcache preload` on URL files that are not plain regular files of good URLs: pipes,
/// standard input, process substitution, a byte order mark, URLs no connection can use, files of
/// junk; and `prune --host` on an IPv6 host.
@Suite(.timeLimit(.minutes(5)))
final class URLFileEndToEndTests: OriginStoreFixture, @unchecked Sendable {
    init() throws {
        try super.init(searchPath: WebcacheRunner.defaultSearchPath)
    }

    private var instance: String { server.baseURL.absoluteString }

    /// Runs `script` with bash, `$WEBCACHE` naming the built executable; its exit code and outputs.
    private func bash(_ script: String) async throws -> (exitCode: Int32?, stdout: String, stderr: String) {
        let environment = [
            "PATH": WebcacheRunner.defaultSearchPath, "HOME": folder.url.path, "XDG_CACHE_HOME": folder.path("cache"),
            "WEBCACHE": try BuiltProducts.executable(named: "webcache").path,
        ]
        let child = try ChildProcess.spawn("/bin/bash", ["-c", script], environment: environment, output: .pipe,
                                           error: .pipe)
        let (termination, output, error) = await child.finish()
        let code: Int32? = if case .exited(let code) = termination { code } else { nil }
        return (code, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
    }

    @Test func readsTheURLFileFromPipesDevicesAndStandardInput() async throws {
        let options = "--instance '\(instance)' --store '\(store)'"
        let substituted = try await bash("\"$WEBCACHE\" preload <(printf 'page.html\\n') \(options)")
        #expect(substituted.exitCode == 0, "\(substituted.stderr)")
        let piped = try await bash("printf 'about.html\\n' | \"$WEBCACHE\" preload /dev/stdin \(options)")
        #expect(piped.exitCode == 0, "\(piped.stderr)")
        let standardInput = try await bash("printf 'page.html\\nabout.html\\n' | \"$WEBCACHE\" preload - \(options)")
        #expect(standardInput.exitCode == 0, "\(standardInput.stderr)")
        #expect(standardInput.stdout.hasPrefix("Preloaded 2 page(s)"), "\(standardInput.stdout)")
        let empty = try await webcache.run(["preload", "/dev/null", "--store", store])
        #expect(empty.exitCode == 0, "\(empty.stderr)")
        #expect(Set(server.requests.map(\.path)) == ["/page.html", "/style.css", "/app.js", "/about.html", "/team.svg"])
    }

    @Test func namesAURLFileThatCannotBeRead() async throws {
        let missing = folder.path("absent.txt")
        for (path, reason) in [(folder.url.path, "is a directory"), (missing, "does not exist")] {
            let result = try await webcache.run(["preload", path, "--store", store])
            #expect(result.exitCode == 1)
            #expect(result.stderr == "Error: The URL file '\(path)' \(reason).\n")
        }
        let directoryOnStandardInput = try await bash("\"$WEBCACHE\" preload - --store '\(store)' < /")
        #expect(directoryOnStandardInput.exitCode == 1)
        #expect(directoryOnStandardInput.stderr == "Error: The URL file '<stdin>' is a directory.\n")
    }

    @Test func aByteOrderMarkDoesNotSpoilTheFirstURL() async throws {
        let list = try folder.write(Data("\u{FEFF}page.html\n".utf8), to: "urls.txt")
        let result = try await webcache.run(["preload", list, "--instance", instance, "--store", store])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(server.requests.map(\.path).first == "/page.html")
    }

    @Test func reportsURLsNoConnectionCanUseByLineWithoutTryingThem() async throws {
        let lines = [
            "http://127.0.0.1:99999/", "http://bad_host!.com/", "http://[zz::1]/", "http://127.0.0.1:0/", "http://",
            "page.html",
        ]
        let list = try folder.write(Data(lines.joined(separator: "\n").utf8), to: "urls.txt")

        let result = try await webcache.run(["preload", list, "--instance", instance, "--store", store])

        #expect(result.exitCode == 1)
        let reported = result.stderr.split(separator: "\n").filter { $0.hasPrefix("webcache: \(list):") }
        #expect(reported == [
            "webcache: \(list):1: 'http://127.0.0.1:99999/' has the port 99999, which is not a number from 1 to 65535.",
            "webcache: \(list):2: 'http://bad_host!.com/' has the host 'bad_host!.com', which is not a valid host name "
                + "or IP address.",
            "webcache: \(list):3: 'http://[zz::1]/' has the host '[zz::1]', which is not a valid IPv6 address.",
            "webcache: \(list):4: 'http://127.0.0.1:0/' has the port 0, which is not a number from 1 to 65535.",
            "webcache: \(list):5: 'http://' has no host.",
        ])
        #expect(!result.stderr.contains("retrying"), "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Preloaded 1 page(s)"), "\(result.stdout)")
        #expect(result.stdout.contains("5 line(s) of the URL file were skipped."), "\(result.stdout)")
    }

    @Test func listsTheFirstLinesThatCannotBeUsedAndCountsTheRest() async throws {
        let junk = (1...50).map { "not a url \($0)" }
        let list = try folder.write(Data((junk + ["page.html"]).joined(separator: "\n").utf8), to: "urls.txt")

        let result = try await webcache.run(["preload", list, "--instance", instance, "--store", store])

        #expect(result.exitCode == 1)
        let reported = result.stderr.split(separator: "\n").filter { $0.hasPrefix("webcache: \(list):") }
        #expect(reported.count == 21, "\(result.stderr)")
        #expect(reported.first == "webcache: \(list):1: 'not a url 1' contains spaces or control characters.")
        #expect(reported[19].hasPrefix("webcache: \(list):20: "))
        #expect(reported.last == "webcache: \(list): ... and 30 more lines that cannot be used")
        #expect(result.stdout.contains("50 line(s) of the URL file were skipped."), "\(result.stdout)")
        #expect(server.requests.map(\.path).first == "/page.html")
    }

    @Test func prunesTheEntriesOfAnIPv6HostSpelledEitherWay() async throws {
        try await withCacheStore(at: store) { store in
            for url in ["http://[::1]:8080/a", "http://127.0.0.1:8080/b"] {
                let entry = CacheEntry(url: url, status: 200, headers: [:], requestTime: Date(), responseTime: Date(),
                                       freshUntil: Date().addingTimeInterval(600))
                try await store.save(entry, body: Data("body".utf8))
            }
        }
        let inspect = try await webcache.run(["inspect", "--store", store])
        #expect(inspect.stdout.contains("\n  [::1] "), "\(inspect.stdout)")
        for spelling in ["::1", "[::1]"] {
            let result = try await webcache.run(["prune", "--host", spelling, "--dry-run", "--store", store])
            #expect(result.exitCode == 0, "\(result.stderr)")
            // The two entries share one body, which the other keeps.
            #expect(result.stdout == "would remove: http://[::1]:8080/a\n"
                + "Would remove 1 entry (4 B, freeing 0 B). Nothing was removed (--dry-run).\n")
        }
    }
}
