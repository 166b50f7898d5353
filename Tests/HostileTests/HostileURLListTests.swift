import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import Transport
import WebCache
import WebCacheTestSupport

/// The real `webcache` binary on a URL file full of junk: each bad line is reported as
/// `FILE:LINE: reason`, the good ones are preloaded, the exit code is 1, and a password in a URL
/// never shows up anywhere.
@Suite struct HostileURLListTests {
    static let secret = "s3cret-Pa55word"

    @Test func junkLinesAreReportedByLineAndTheGoodOnesArePreloaded() async throws {
        let server = try startOrigin(MisbehavingOrigin.respond)
        defer { server.stop() }
        let home = try TemporaryFolder()
        let runner = WebcacheRunner(home: home)
        let store = home.path("store.sqlite")
        let port = server.port

        var lines: [Data] = []
        func add(_ text: String) { lines.append(Data(text.utf8)) }
        add("# hostile list")                                                     // 1
        add("http://127.0.0.1:\(port)/plain.txt")                                // 2
        lines.append(Data([0xFF, 0xFE, 0x80, 0x41, 0x01, 0x0B]))                  // 3 binary, no NUL
        add("ftp://example.com/file.txt")                                        // 4
        add("file:///etc/passwd")                                                // 5
        add("javascript:alert(1)")                                               // 6
        add("data:text/html,<h1>hi</h1>")                                        // 7
        add("http://user:\(Self.secret)@127.0.0.1:\(port)/good.html")            // 8 credentials
        add("http://127.0.0.1:\(port)/" + String(repeating: "a", count: 1 << 20)) // 9 a 1 MiB line
        add("not a url at all")                                                  // 10
        add("junk")                                                              // 11 relative, no instance
        add("http://127.0.0.1:\(port)/good.html")                                // 12
        lines.append(Data("http://127.0.0.1:\(port)/soh".utf8) + Data([1]) + Data("x".utf8))  // 13
        add("http://")                                                           // 14
        let list = try home.write(Data(lines.joined(separator: Data([0x0A]))), to: "urls.txt")

        let result = try await runner.run(["preload", list, "--store", store, "--log-level", "trace", "--retries", "0"])
        #expect(result.exitCode == 1, "\(result.everything)")
        for line in [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 14] {
            #expect(result.stderr.contains("\(list):\(line): "), "line \(line) is not reported:\n\(result.stderr)")
        }
        for line in [1, 2, 12] {
            #expect(!result.stderr.contains("\(list):\(line): "), "line \(line) is reported:\n\(result.stderr)")
        }
        // Control characters are spelled out, not echoed; the million-byte line is not echoed back.
        #expect(!result.stderr.contains("\u{1}"))
        #expect(result.stderr.contains("\\u{1}"))
        #expect(result.everything.count < 200_000)
        #expect(!result.everything.contains(Self.secret))

        let opened = try CacheStore(path: store)
        for path in ["plain.txt", "good.html", "good.css"] {
            #expect(try opened.entries(url: server.url(path).absoluteString).count == 1, "\(path) is not stored")
        }
        #expect(try opened.totals().entryCount == 3)
        try await opened.close()
        for output in try await everyInspection(runner, store: store, port: port) {
            #expect(!output.contains(Self.secret), "\(output)")
        }
        for suffix in ["", "-wal", "-shm"] {
            guard let bytes = FileManager.default.contents(atPath: store + suffix) else { continue }
            #expect(bytes.range(of: Data(Self.secret.utf8)) == nil, "the secret is in \(store + suffix)")
        }
    }

    /// A file with NUL bytes is no list of URLs: one line says so, instead of an error for each of
    /// its thousands of "lines", and what the store holds stays.
    @Test func aBinaryFileIsRefusedWholeAndTheStoreKeepsItsEntries() async throws {
        let server = try startOrigin(MisbehavingOrigin.respond)
        defer { server.stop() }
        let home = try TemporaryFolder()
        let runner = WebcacheRunner(home: home)
        let store = home.path("store.sqlite")
        let good = try home.write(Data("http://127.0.0.1:\(server.port)/plain.txt\n".utf8), to: "urls.txt")
        try #require(try await runner.run(["preload", good, "--store", store]).exitCode == 0)
        var generator = SeededGenerator(seed: 3)
        let binary = try home.write(Data((0..<3_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) }),
                                    to: "photo.jpg")

        let result = try await runner.run(["preload", binary, "--store", store])

        #expect(result.exitCode == 1)
        #expect(result.stderr == "Error: The URL file '\(binary)' is not a text file of URLs: it contains NUL bytes.\n")
        #expect(result.stdout.isEmpty)
        let opened = try CacheStore(path: store)
        #expect(try opened.totals().entryCount == 1)
        try await opened.close()
    }

    @Test func aPasswordInAURLNeverAppearsInJSONOrTraceOutput() async throws {
        let server = try startOrigin(MisbehavingOrigin.respond)
        defer { server.stop() }
        let home = try TemporaryFolder()
        let runner = WebcacheRunner(home: home)
        let store = home.path("store.sqlite")
        let url = "http://user:\(Self.secret)@127.0.0.1:\(server.port)/plain.txt"
        let list = try home.write(Data((url + "\n").utf8), to: "urls.txt")
        let json = try await runner.run(["preload", list, "--store", store, "--json", "--log-level", "trace"])
        #expect(json.exitCode == 1)
        #expect(!json.everything.contains(Self.secret), "\(json.everything)")
        let get = try await runner.run(["get", url, "--store", store, "--log-level", "trace", "-i"])
        #expect(get.exitCode != 0)
        #expect(!get.everything.contains(Self.secret), "\(get.everything)")
        // The origin never received the credentials.
        #expect(!server.requests.contains { $0.headers["Authorization"] != nil })
    }

    /// Everything the read-only commands print about the store.
    private func everyInspection(_ runner: WebcacheRunner, store: String, port: UInt16) async throws -> [String] {
        var outputs: [String] = []
        for arguments in [
            ["inspect"], ["inspect", "--json"], ["inspect", "--pages"], ["inspect", "--pages", "--json"],
            ["inspect", "http://127.0.0.1:\(port)/good.html", "--json"], ["verify", "--json"],
        ] {
            outputs.append(try await runner.run(arguments + ["--store", store, "--log-level", "trace"]).everything)
        }
        return outputs
    }
}
