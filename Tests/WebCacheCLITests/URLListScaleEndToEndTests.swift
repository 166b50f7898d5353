import CacheStore
import ChildProcess
import Foundation
import LocalOrigin
import Testing
import WebCacheTestSupport

/// The real `webcache preload` on a URL list far longer than one read: every URL fetched once
/// however often it is listed, problems named by their line wherever they are, every page recorded,
/// and a second run that sends nothing for what is fresh.
@Suite(.timeLimit(.minutes(5)))
final class URLListScaleEndToEndTests: OriginStoreFixture, @unchecked Sendable {
    init() throws {
        try super.init(searchPath: WebcacheRunner.defaultSearchPath)
    }

    @Test func preloadsAListLongerThanAnyBufferOnceAndNamesItsBadLines() async throws {
        // Given 400 numbered pages, each listed three times with a long comment, and bad lines
        // after the first 64 KiB: one with a space, one longer than the limit
        let comment = "  # " + String(repeating: "c", count: 200)
        var lines: [String] = []
        for round in 0..<3 {
            for page in 0..<400 { lines.append("pages/\(page).html" + (round == 1 ? comment : "")) }
        }
        lines.insert("not a url", at: 700)
        lines.insert("pages/" + String(repeating: "x", count: 100_000), at: 900)
        let text = lines.joined(separator: "\n") + "\n"
        #expect(text.utf8.count > 3 * 65_536)
        let list = try folder.write(Data(text.utf8), to: "urls.txt")

        // When
        let cold = try await run("preload", list, "--instance", server.baseURL.absoluteString)

        // Then
        #expect(cold.exitCode == 1, "\(cold.stderr)")
        let reported = cold.stderr.split(separator: "\n").filter { $0.hasPrefix("webcache: \(list):") }
        #expect(reported == [
            "webcache: \(list):701: 'not a url' contains spaces or control characters.",
            "webcache: \(list):901: line is 100006 bytes long; the limit is 8192.",
        ])
        #expect(cold.stdout.hasPrefix("Preloaded 400 page(s)"), "\(cold.stdout)")
        #expect(cold.stdout.contains("2 line(s) of the URL file were skipped."), "\(cold.stdout)")
        let counts = server.requests.reduce(into: [String: Int]()) { $0[$1.path, default: 0] += 1 }
        #expect(counts.count == 1 + 400 * (1 + TestOrigin.numberedPagePhotos), "\(counts.count)")
        #expect(counts.values.allSatisfy { $0 == 1 })
        let (pageCount, completeCount) = try await withCacheStore(at: store) { store in
            let pages = try store.pages()
            return (pages.count, try pages.count { try store.pageStatus(forPage: $0.url).isComplete })
        }
        #expect(pageCount == 400)
        #expect(completeCount == 400)

        // And a second run finds everything fresh: no request
        server.resetLog()
        let warm = try await run("preload", list, "--instance", server.baseURL.absoluteString)
        #expect(warm.stdout.contains("over the network in 0 request(s)"), "\(warm.stdout)")
        #expect(server.requests.isEmpty)
    }

    @Test func aWarmRunOfALargeListWithBadLinesAnswersFromTheStoreAndNamesEveryBadLine() async throws {
        // Given 1,000 pages and 30 bad lines of five kinds spread among them
        let bad = ["not a url", "ftp://example.test/file", "http://user:secret@example.test/", "http://[::1/",
                   "http://example.test:99999/"]
        var lines = (0..<1_000).map { "pages/\($0).html" }
        for index in 0..<30 { lines.insert(bad[index % bad.count], at: 33 * index + 7) }
        let list = try folder.write(Data((lines.joined(separator: "\n") + "\n").utf8), to: "urls.txt")
        let badLines = lines.indices.filter { bad.contains(lines[$0]) }.map { $0 + 1 }
        let cold = try await run("preload", list, "--no-requisites", "--instance", server.baseURL.absoluteString)
        #expect(cold.stdout.hasPrefix("Preloaded 1000 page(s)"), "\(cold.stdout)\(cold.stderr)")
        server.resetLog()

        // When the list is preloaded again
        let warm = try await run(
            "preload", list, "--no-requisites", "--json", "--instance", server.baseURL.absoluteString)

        // Then nothing is sent, every page is answered from the store and counted once, and each bad
        // line is named by its number (the first 20 one by one, then how many more)
        #expect(server.requests.isEmpty)
        #expect(warm.exitCode == 1)
        let summary = try #require(warm.stdout.split(separator: "\n").last.map(String.init))
        for field in ["\"pages\":1000", "\"hit\":1000", "\"network\":0", "\"revalidated\":0", "\"requests\":0",
                      "\"failed\":0", "\"invalidLines\":30"] {
            #expect(summary.contains(field), "\(field) in \(summary)")
        }
        let fetched = warm.stdout.split(separator: "\n").filter { $0.contains("\"event\":\"fetched\"") }
        #expect(fetched.count == 1_000)
        #expect(fetched.allSatisfy { $0.contains("\"source\":\"hit\"") })
        let reported = warm.stderr.split(separator: "\n").filter { $0.hasPrefix("webcache: \(list):") }
        #expect(reported.count == 21, "\(warm.stderr)")
        #expect(reported.prefix(20).map { $0.split(separator: ":")[2] } == badLines.prefix(20).map { "\($0)"[...] })
        #expect(reported.contains("webcache: \(list): ... and 10 more lines that cannot be used"))
        #expect(reported[0].hasSuffix("'not a url' contains spaces or control characters."))
        #expect(reported[2].contains("user name or password"), "\(reported[2])")
        #expect(reported[4].contains("99999"), "\(reported[4])")
        let pages = try await withCacheStore(at: store) { try $0.pages().count }
        #expect(pages == 1_000)
    }

    @Test func aNULByteInAPipedListEndsTheListThereAndTheRestIsPreloaded() async throws {
        // Given a list on standard input whose NUL byte comes after the first read
        let webcache = try BuiltProducts.executable(named: "webcache").path
        let script = """
            { printf 'pages/1.html\\n'; head -c 100000 /dev/zero | tr '\\0' 'a'; printf '\\npages/2.html\\nx\\0y\\npages/3.html\\n'; } \
            | "\(webcache)" preload - --instance '\(server.baseURL.absoluteString)' --store '\(store)'
            """
        let child = try ChildProcess.spawn(
            "/bin/bash", ["-c", script],
            environment: ["PATH": WebcacheRunner.defaultSearchPath, "HOME": folder.url.path], output: .pipe,
            error: .pipe)
        // When
        let (termination, output, error) = await child.finish()
        // Then
        let stderr = String(decoding: error, as: UTF8.self)
        #expect(termination == .exited(1), "\(stderr)")
        #expect(stderr.contains("webcache: <stdin>:2: line is 100000 bytes long; the limit is 8192."), "\(stderr)")
        #expect(stderr.contains("webcache: <stdin>:4: contains NUL bytes; the rest of the list is not read."),
                "\(stderr)")
        #expect(String(decoding: output, as: UTF8.self).hasPrefix("Preloaded 2 page(s)"))
        #expect(!server.requests.contains { $0.path == "/pages/3.html" })
    }
}
