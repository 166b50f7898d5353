import Foundation
import LocalOrigin
import Testing
import WebCacheTestSupport

/// `webcache preload --render --har FILE`: the run recorded as a HAR 1.2 log, read back as JSON and
/// imported by `webcache import`, with the built executable, a real Chromium and the example app.
@Suite(.timeLimit(.minutes(3))) struct HARRecordingTests {
    /// The HAR file at `path` as JSON: its pages and entries.
    private static func log(at path: String) throws -> (log: [String: Any], pages: [[String: Any]], entries: [[String: Any]]) {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        let log = try #require((object as? [String: Any])?["log"] as? [String: Any])
        let pages = try #require(log["pages"] as? [[String: Any]])
        let entries = try #require(log["entries"] as? [[String: Any]])
        return (log, pages, entries)
    }

    private static func request(_ entry: [String: Any]) -> (method: String, url: String, headers: [String]) {
        let request = entry["request"] as? [String: Any] ?? [:]
        let headers = (request["headers"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        return (request["method"] as? String ?? "", request["url"] as? String ?? "", headers)
    }

    private static func response(_ entry: [String: Any]) -> [String: Any] { entry["response"] as? [String: Any] ?? [:] }

    private static func status(_ entry: [String: Any]) -> Int { response(entry)["status"] as? Int ?? -1 }

    @Test func aRenderedRunIsRecordedWithEveryRequestItsAnswerAndWhereItCameFrom() async throws {
        let fixture = try AppFixture()
        let page = fixture.server.url("/").absoluteString
        let urls = try fixture.urlFile(["/"])
        let har = fixture.home.path("first.har")

        // When the page is preloaded rendered, recording a HAR
        let first = try await fixture.webcache(["preload", "--render", "--har", har] + fixture.signedIn + [urls])
        #expect(first.exitCode == 0, "\(first.everything)")

        // Then the log is HAR 1.2 by webcache, with the page and its load times
        let (log, pages, entries) = try Self.log(at: har)
        #expect(log["version"] as? String == "1.2")
        #expect((log["creator"] as? [String: Any])?["name"] as? String == "webcache")
        try #require(pages.count == 1, "\(pages)")
        let pageID = try #require(pages[0]["id"] as? String)
        #expect(pages[0]["title"] as? String == page)
        let timings = try #require(pages[0]["pageTimings"] as? [String: Any])
        let onLoad = try #require(timings["onLoad"] as? Double)
        let onContentLoad = try #require(timings["onContentLoad"] as? Double)
        #expect(onContentLoad >= 0 && onLoad >= onContentLoad, "\(timings)")

        // And every request of the page is an entry of it, the document too, with its body as the page got it
        #expect(entries.allSatisfy { $0["pageref"] as? String == pageID })
        let document = try #require(entries.first { Self.request($0).url == page }, "\(entries.map { Self.request($0) })")
        #expect(Self.request(document).method == "GET")
        #expect(Self.status(document) == 200)
        #expect(document["_source"] as? String == "network")
        let content = try #require(Self.response(document)["content"] as? [String: Any])
        let indexFile = try String(contentsOf: Repository.file("examples/app/index.html"), encoding: .utf8)
        #expect(content["text"] as? String == indexFile)

        // And what the scripts asked for is there, the POST too, which went out and was not stored
        let asked = Set(entries.map { "\(Self.request($0).method) \(Self.request($0).url)" })
        #expect(asked.contains("GET \(fixture.server.url("/api/items.json"))"), "\(asked)")
        let post = try #require(entries.first { Self.request($0).method == "POST" }, "\(asked)")
        #expect(Self.request(post).url == fixture.server.url("/api/analytics").absoluteString)
        #expect(Self.status(post) == 204)
        #expect(post["_source"] as? String == "network")

        // And every stored entry was asked for and answered in the log
        let answeredGets = Set(entries.filter { Self.request($0).method == "GET" && Self.status($0) > 0 }
            .map { "GET \(Self.request($0).url)" })
        let stored = try await fixture.storedEntries()
        #expect(stored.isSubset(of: answeredGets), "stored, not in the log: \(stored.subtracting(answeredGets))")

        // And the session stays webcache's: no cookie or credential is in the log
        let headerNames = entries.flatMap { entry in
            Self.request(entry).headers + ((Self.response(entry)["headers"] as? [[String: Any]] ?? [])
                .compactMap { $0["name"] as? String })
        }.map { $0.lowercased() }
        #expect(!headerNames.contains { ["cookie", "set-cookie", "authorization"].contains($0) }, "\(Set(headerNames))")
        let text = try String(contentsOfFile: har, encoding: .utf8)
        #expect(!text.contains(AppFixture.token))

        // When it runs again, the log says the answers came from the store
        let again = fixture.home.path("second.har")
        let second = try await fixture.webcache(["preload", "--render", "--har", again] + fixture.signedIn + [urls])
        #expect(second.exitCode == 0, "\(second.everything)")
        let sources = try Self.log(at: again).entries.filter { Self.request($0).method == "GET" }
            .map { $0["_source"] as? String ?? "none" }
        #expect(!sources.isEmpty)
        #expect(sources.allSatisfy { $0 == "hit" || $0 == "revalidated" }, "\(sources)")

        // And the first log imports into another store, which then serves the page offline
        let other = fixture.home.path("other.sqlite")
        let imported = try await fixture.webcache(["import", har, "--store", other])
        #expect(imported.exitCode == 0, "\(imported.everything)")
        let offline = try await fixture.webcache(["get", "--policy", "cache-only", page, "--store", other])
        #expect(offline.exitCode == 0, "\(offline.everything)")
        #expect(offline.stdout == indexFile)
    }

    @Test func aHARFileThatCannotBeWrittenIsReportedAndThePagesArePreloadedAllTheSame() async throws {
        let fixture = try AppFixture()
        let har = fixture.home.path("missing-folder/run.har")

        let result = try await fixture.webcache(
            ["preload", "--render", "--har", har] + fixture.signedIn + [try fixture.urlFile(["/"])])

        #expect(result.exitCode == 1, "\(result.everything)")
        #expect(result.everything.contains(har), "\(result.everything)")
        #expect(result.everything.contains("the HAR file could not be created"), "\(result.everything)")
        #expect(result.everything.contains("No such file or directory"), "\(result.everything)")
        let stored = try await fixture.storedEntries()
        #expect(stored.contains("GET \(fixture.server.url("/api/items.json"))"), "\(stored)")
        #expect(!FileManager.default.fileExists(atPath: har))
    }

    @Test func aHARNeedsARenderedRun() async throws {
        let fixture = try AppFixture()
        let result = try await fixture.webcache(
            ["preload", "--har", fixture.home.path("run.har")] + fixture.signedIn + [try fixture.urlFile(["/"])])
        #expect(result.exitCode == 64, "\(result.everything)")
        #expect(result.stderr.contains("--har needs --render"), "\(result.everything)")
        #expect(!FileManager.default.fileExists(atPath: fixture.home.path("run.har")))
        #expect(fixture.server.requests.isEmpty)
    }
}
