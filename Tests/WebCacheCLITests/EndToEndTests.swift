import Foundation
import HTTPCore
import LocalOrigin
import Sessions
import Testing
import WebCacheTestSupport

@testable import CacheStore

#if canImport(Glibc)
import Glibc
#endif

/// The real `webcache` executable against a real origin on 127.0.0.1, with a store in a temporary folder.
@Suite(.timeLimit(.minutes(5)))
final class EndToEndTests: OriginStoreFixture, @unchecked Sendable {
    /// Stores the page and its stylesheet with `get`.
    private func storePageAndStylesheet() async throws {
        for path in ["/page.html", "/style.css"] {
            let result = try await run("get", url(path))
            try #require(result.exitCode == 0, "get \(path) failed: \(result.stderr)")
        }
    }

    /// Preloads two pages with `preload`: both need the stylesheet; the page also needs the script,
    /// the about page the photo.
    private func preloadTwoPages() async throws {
        let list = try folder.write(Data("page.html\nabout.html\n".utf8), to: "urls.txt")
        let result = try await run("preload", list, "--instance", server.baseURL.absoluteString)
        try #require(result.exitCode == 0, "preload failed: \(result.stderr)")
        let pages = try jsonObject(try await run("inspect", "--pages", "--json"))["pages"] as? [[String: Any]]
        try #require(pages?.count == 2 && pages?.allSatisfy { $0["complete"] as? Bool == true } == true)
    }

    private func jsonObject(_ result: WebcacheRunner.Result) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: result.stdoutData)
        return try #require(object as? [String: Any], "stdout is not one JSON object: \(result.stdout)")
    }

    // MARK: - get

    @Test func getsFromTheNetworkThenFromTheStore() async throws {
        // When
        let first = try await run("get", url("/style.css"))
        let requestsAfterFirst = server.requestCount
        let second = try await run("get", url("/style.css"))
        // Then the body goes to stdout and the cache status to stderr
        #expect(first.exitCode == 0)
        #expect(first.stdout == TestOrigin.stylesheet)
        #expect(first.stderr.hasPrefix("webcache: network 200 \(url("/style.css"))"))
        #expect(second.exitCode == 0)
        #expect(second.stdout == TestOrigin.stylesheet)
        #expect(second.stderr.hasPrefix("webcache: hit 200 \(url("/style.css"))"))
        #expect(requestsAfterFirst == 1)
        #expect(server.requestCount == requestsAfterFirst)
    }

    /// `-o` writes into what its path names, as a shell's `>` does: a pipe (or a device such as
    /// `/dev/null`) is written to, not replaced by a new file; `-` is standard output.
    @Test func theOutputFileIsWrittenInPlace() async throws {
        let fifo = folder.path("body.fifo")
        try #require(mkfifo(fifo, 0o600) == 0)
        let reader = Task.detached { () -> Data in
            guard let handle = FileHandle(forReadingAtPath: fifo) else { return Data() }
            defer { try? handle.close() }
            return (try? handle.readToEnd()) ?? Data()
        }
        let piped = try await run("get", url("/style.css"), "-o", fifo)
        #expect(piped.exitCode == 0, "\(piped.stderr)")
        var status = stat()
        // Had the pipe been replaced, its reader would wait for ever: it is asked only if the pipe is there.
        try #require(stat(fifo, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO, "the pipe was replaced")
        #expect(String(decoding: await reader.value, as: UTF8.self) == TestOrigin.stylesheet)

        let dash = try await run("get", url("/style.css"), "-o", "-")
        #expect(dash.stdout == TestOrigin.stylesheet)
        let file = folder.path("body.css")
        #expect(try await run("get", url("/style.css"), "-o", file).exitCode == 0)
        #expect(try String(contentsOfFile: file, encoding: .utf8) == TestOrigin.stylesheet)

        let missing = folder.path("missing/body.css")
        let refused = try await run("get", url("/style.css"), "-o", missing)
        #expect(refused.exitCode == 1)
        #expect(refused.stderr == "Error: Cannot write the output file '\(missing)': No such file or directory.\n")
    }

    /// -v logs the cache's decisions; --log-level says the level outright, over -v.
    @Test func verboseLogsDecisionsUnlessTheLevelIsGiven() async throws {
        let verbose = try await run("get", "-v", url("/page.html"))
        #expect(verbose.stderr.contains("webcache: debug: "), "\(verbose.stderr)")
        let quiet = try await run("get", "-v", "--log-level", "error", url("/page.html"))
        #expect(quiet.exitCode == 0, "\(quiet.stderr)")
        #expect(!quiet.stderr.contains("debug:"), "\(quiet.stderr)")
    }

    /// Lines end with CR LF, as curl -i writes them, so that the head ends at the first empty line.
    @Test func includesTheStatusLineAndTheHeadersWithCookiesRedacted() async throws {
        let result = try await run("get", "-i", url("/page.html"))
        #expect(result.exitCode == 0)
        #expect(result.stdout.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(result.stdout.contains("ETag: \"page-1\"\r\n"))
        #expect(result.stdout.contains("Set-Cookie: <redacted>\r\n"))
        #expect(!result.stdout.contains("s3cr3t"))
        #expect(result.stdout.hasSuffix("\r\n\r\n" + TestOrigin.page))
        // A response from the store has no protocol of its own: it is written as HTTP/1.1
        let hit = try await run("get", "-i", url("/page.html"))
        #expect(hit.stderr.hasPrefix("webcache: hit 200 "), "\(hit.stderr)")
        #expect(hit.stdout.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(hit.stdout)")
        #expect(hit.stdout.contains("\r\nETag: \"page-1\"\r\n"), "\(hit.stdout)")
        let missing = try await run("get", "-i", url("/nothing-here"))
        #expect(missing.stdout.hasPrefix("HTTP/1.1 404 Not Found\r\n"), "\(missing.stdout)")
        // With -o, the head goes into the file before the body, as with curl -i -o
        let file = folder.path("included.txt")
        let written = try await run("get", "-i", "-o", file, url("/page.html"))
        #expect(written.stdout.isEmpty, "\(written.stdout)")
        let contents = try String(contentsOfFile: file, encoding: .utf8)
        #expect(contents.hasPrefix("HTTP/1.1 200 OK\r\n"), "\(contents)")
        #expect(contents.hasSuffix("\r\n\r\n" + TestOrigin.page))
    }

    /// The status line names the protocol the response came over, as curl -i does.
    @Test(.enabled(if: HTTP2Proxy.isAvailable, "needs nginx and openssl"))
    func theStatusLineOfAResponseOverHTTP2SaysSo() async throws {
        let proxy = try await HTTP2Proxy(origin: server.baseURL)
        let page = proxy.url("style.css").absoluteString
        let result = try await run("get", "-i", "--cacert", proxy.certificatePath, page)
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("HTTP/2 200 OK\r\n"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("\r\n\r\n" + TestOrigin.stylesheet))
    }

    @Test func resolvesARelativeURLAgainstTheInstance() async throws {
        let result = try await run("get", "style.css", "--instance", server.baseURL.absoluteString)
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout == TestOrigin.stylesheet)
        #expect(server.requests.map(\.path) == ["/style.css"])
    }

    @Test(arguments: [
        ("ftp://example.test/file", "it is not an http or https URL"),
        ("relative/page.html", "it is a relative URL, and there is no --instance <url> to resolve it against"),
        ("http://user:secret@example.test/", "'http://***@example.test/' carries a user name or password"),
    ])
    func refusesABadURLNamingItBeforeMakingAStore(input: String, reason: String) async throws {
        let result = try await run("get", input)
        #expect(result.exitCode == 64)
        #expect(result.stdout.isEmpty)
        // (naming it without its password)
        let named = input.replacingOccurrences(of: "user:secret", with: "***")
        #expect(result.stderr.hasPrefix("Error: The value '\(named)' is invalid for '<url>': \(reason)"),
                "\(result.stderr)")
        #expect(server.requestCount == 0)
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    /// A URL given to a command resolves against --instance as the lines of a preload's list do
    /// (`1.html` against `…/pages` is `…/pages/1.html`), so that every command names what was stored.
    @Test func theCommandsThatTakeAURLResolveItAgainstTheInstanceAsPreloadDoes() async throws {
        let instance = url("/pages")
        let list = try folder.write(Data("1.html\n".utf8), to: "urls.txt")
        let preload = try await run("preload", list, "--instance", instance)
        try #require(preload.exitCode == 0, "preload failed: \(preload.stderr)")
        let page = url("/pages/1.html")
        func run(_ arguments: String...) async throws -> WebcacheRunner.Result {
            let result = try await webcache.run(arguments + ["--instance", instance, "--store", store])
            #expect(result.exitCode == 0, "\(arguments): \(result.stderr)")
            return result
        }

        let get = try await run("get", "--policy", "cache-only", "1.html")
        #expect(get.stdout == TestOrigin.numberedPage("/pages/1.html"))
        let entry = try jsonObject(try await run("inspect", "1.html", "--json"))
        #expect(entry["url"] as? String == page)
        let record = try await run("inspect", "--pages", "1.html")
        #expect(record.stdout.hasPrefix("complete: \(page) (partition guest): "), "\(record.stdout)")
        let pin = try await run("pin", "1.html")
        #expect(pin.stdout == "Pinned 8 entries in partition guest: the page and the stored resources it needs "
            + "(\(page)).\n")
        let unpin = try await run("pin", "--unpin", "1.html")
        #expect(unpin.stdout.hasPrefix("Unpinned 8 entries in partition guest: "), "\(unpin.stdout)")
        let archive = folder.path("page.har")
        let export = try await run("export", "--har", archive, "--page", "1.html")
        #expect(export.stdout.hasPrefix("Exported 8 entries and "), "\(export.stdout)")
        let prune = try await run("prune", "--dry-run", "--page", "1.html")
        #expect(prune.stdout.contains("would remove the record of the page: \(page) (partition guest)\n"),
                "\(prune.stdout)")
        #expect(prune.stdout.contains("Would remove 8 entries ("), "\(prune.stdout)")
    }

    @Test func failsOnAnHTTPError() async throws {
        let result = try await run("get", url("/nothing-here"))
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("404 \(url("/nothing-here"))"))
    }

    // MARK: - inspect

    @Test func inspectsTotalsAndHosts() async throws {
        try await storePageAndStylesheet()
        let text = try await run("inspect")
        #expect(text.exitCode == 0, "\(text.stderr)")
        #expect(text.stdout.contains("Entries:     2 ("))
        #expect(text.stdout.contains("Freshness:   2 fresh, 0 stale but servable, 0 to revalidate before use"))
        #expect(text.stdout.contains("Pinned:      0"))
        #expect(text.stdout.contains("  HOST       ENTRIES"))
        #expect(text.stdout.contains("  127.0.0.1        2"))

        let json = try jsonObject(try await run("inspect", "--json"))
        let bytes = TestOrigin.page.utf8.count + TestOrigin.stylesheet.utf8.count
        #expect(json["entries"] as? Int == 2)
        #expect(json["bodies"] as? Int == 2)
        #expect(json["entryBytes"] as? Int == bytes)
        #expect(json["fresh"] as? Int == 2)
        #expect(json["store"] as? String == store)
        let hosts = try #require(json["hosts"] as? [[String: Any]])
        #expect(hosts.count == 1)
        #expect(hosts.first?["name"] as? String == "127.0.0.1")
        #expect(hosts.first?["entries"] as? Int == 2)
        let partitions = try #require(json["partitions"] as? [[String: Any]])
        #expect(partitions.map { $0["name"] as? String } == ["guest"])
    }

    @Test func inspectsOneEntryStoredWithoutItsSetCookie() async throws {
        try await storePageAndStylesheet()
        _ = try await run("get", url("/page.html"))  // a hit
        let text = try await run("inspect", url("/page.html"))
        #expect(text.exitCode == 0, "\(text.stderr)")
        #expect(text.stdout.hasPrefix("GET \(url("/page.html")) (partition guest)\n"))
        #expect(text.stdout.contains("  Status:        200\n"))
        #expect(text.stdout.contains("  State:         fresh\n"))
        #expect(text.stdout.contains("  ETag:          \"page-1\"\n"))
        #expect(text.stdout.contains("  Hits:          1\n"))
        #expect(text.stdout.contains("  Decoded from:  none, stored as received\n"))
        // The origin set a cookie; the stored copy does not keep the field at all.
        #expect(!text.stdout.contains("Set-Cookie"))
        #expect(!text.stdout.contains("s3cr3t"))

        let json = try jsonObject(try await run("inspect", url("/page.html"), "--json"))
        #expect(json["url"] as? String == url("/page.html"))
        let entries = try #require(json["entries"] as? [[String: Any]])
        let entry = try #require(entries.first)
        #expect(entries.count == 1)
        #expect(entry["status"] as? Int == 200)
        #expect(entry["partition"] as? String == "guest")
        #expect(entry["etag"] as? String == "\"page-1\"")
        #expect(entry["state"] as? String == "fresh")
        #expect(entry["pinned"] as? Bool == false)
        #expect(entry["size"] as? Int == TestOrigin.page.utf8.count)
        let storedAt = try #require(entry["storedAt"] as? String)
        #expect(try Date(storedAt, strategy: .iso8601) <= Date())
        let headers = try #require(entry["headers"] as? [[String: String]])
        #expect(headers.contains { $0["name"] == "ETag" })
        #expect(!headers.contains { $0["name"] == "Set-Cookie" })
        #expect(!String(describing: json).contains("s3cr3t"))
    }

    @Test func inspectSaysWhatABodyWasDecodedFrom() async throws {
        let fetched = try await run("get", url("/coded.txt"))
        #expect(fetched.exitCode == 0, "\(fetched.stderr)")
        #expect(fetched.stdout == String(repeating: "hello gzip ", count: 100))

        let text = try await run("inspect", url("/coded.txt"))
        #expect(text.stdout.contains("  Decoded from:  gzip\n"))
        #expect(text.stdout.contains("  ETag:          \"gz\"\n"))
        let json = try jsonObject(try await run("inspect", url("/coded.txt"), "--json"))
        let entries = try #require(json["entries"] as? [[String: Any]])
        #expect(entries.first?["decodedFrom"] as? String == "gzip")
    }

    @Test func inspectRedactsTheCookiesAnOlderVersionStored() async throws {
        // Versions before kept Set-Cookie with the stored response.
        try await withCacheStore(at: store) { store in
            let entry = CacheEntry(
                url: url("/legacy"), status: 200, headers: ["Set-Cookie": "legacy=s3cr3t-old", "ETag": "\"l\""],
                requestTime: Date(), responseTime: Date(), freshUntil: Date().addingTimeInterval(600))
            try await store.save(entry, body: Data("legacy".utf8))
        }
        let text = try await run("inspect", url("/legacy"))
        #expect(text.stdout.contains("    Set-Cookie: <redacted>\n"), "\(text.stdout)")
        let json = try await run("inspect", url("/legacy"), "--json")
        #expect(json.stdout.contains("<redacted>"))
        #expect(!(text.stdout + json.stdout).contains("s3cr3t"))
    }

    @Test func refusesToInspectAURLThatIsNotStored() async throws {
        try await storePageAndStylesheet()
        let missing = url("/never-loaded.html")
        let result = try await run("inspect", missing)
        #expect(result.exitCode == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "Error: '\(missing)' is not in the store '\(store)'.\n")
    }

    @Test func refusesAStoreThatDoesNotExistAndDoesNotCreateIt() async throws {
        let result = try await run("inspect")
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("'\(store)'"))
        #expect(!FileManager.default.fileExists(atPath: store))
    }

    @Test func inspectsPagesWithFailuresAndMissingResources() async throws {
        // Given a page whose edges say it needs the stylesheet (stored), the script (not stored)
        // and an image that failed
        try await storePageAndStylesheet()
        try await withCacheStore(at: store) { store in
            try await store.setEdges(
                [
                    PageEdge(resourceURL: url("/style.css"), kind: "stylesheet"),
                    PageEdge(resourceURL: url("/app.js"), kind: "script"),
                    PageEdge(resourceURL: url("/logo.png"), kind: "image", failure: "HTTP 404"),
                ], forPage: url("/page.html"))
        }
        // When
        let text = try await run("inspect", "--pages")
        let json = try jsonObject(try await run("inspect", "--pages", "--json"))
        // Then
        #expect(text.exitCode == 0, "\(text.stderr)")
        #expect(text.stdout.contains(
            "incomplete: \(url("/page.html")) (partition guest): 1 of 3 resources stored\n"))
        #expect(text.stdout.contains("  failed: \(url("/logo.png")) (image): HTTP 404\n"))
        #expect(text.stdout.contains("  missing: \(url("/app.js"))\n"))
        #expect(text.stdout.hasSuffix("1 page(s), 0 complete.\n"))
        let pages = try #require(json["pages"] as? [[String: Any]])
        let page = try #require(pages.first)
        #expect(pages.count == 1)
        #expect(page["complete"] as? Bool == false)
        #expect(page["resources"] as? Int == 3)
        #expect(page["stored"] as? Int == 1)
        #expect(page["missing"] as? [String] == [url("/app.js"), url("/logo.png")])
        let failures = try #require(page["failures"] as? [[String: String]])
        #expect(failures == [["url": url("/logo.png"), "kind": "image", "reason": "HTTP 404"]])
    }

    // MARK: - prune

    @Test func dryRunRemovesNothing() async throws {
        try await storePageAndStylesheet()
        let dryRun = try await run("prune", "--url-pattern", "*.css", "--dry-run")
        #expect(dryRun.exitCode == 0, "\(dryRun.stderr)")
        #expect(dryRun.stdout.contains("would remove: \(url("/style.css"))\n"))
        #expect(dryRun.stdout.contains("Would remove 1 entry ("))
        let after = try jsonObject(try await run("inspect", "--json"))
        #expect(after["entries"] as? Int == 2)
        #expect(try await run("inspect", url("/style.css")).exitCode == 0)
    }

    @Test func prunesByURLPattern() async throws {
        try await storePageAndStylesheet()
        let result = try await run("prune", "--url-pattern", "*.css")
        #expect(result.exitCode == 0, "\(result.stderr)")
        let freed = "\(TestOrigin.stylesheet.utf8.count) B"
        #expect(result.stdout == "Removed 1 entry (\(freed) freed).\n")
        #expect(try await run("inspect", url("/style.css")).exitCode == 1)
        #expect(try await run("inspect", url("/page.html")).exitCode == 0)
    }

    @Test func prunesToFitASizeAsJSON() async throws {
        try await storePageAndStylesheet()
        let json = try jsonObject(try await run("prune", "--max-size", "0", "--json"))
        #expect(json["entries"] as? Int == 2)
        #expect(json["dryRun"] as? Bool == false)
        #expect(json["freedBytes"] as? Int == TestOrigin.page.utf8.count + TestOrigin.stylesheet.utf8.count)
        let after = try jsonObject(try await run("inspect", "--json"))
        #expect(after["entries"] as? Int == 0)
    }

    /// Pinned entries are not evicted: a limit they alone pass is not reached, and the command says so.
    @Test func aLimitThePinnedEntriesPassIsNamedAsNotReached() async throws {
        try await storePageAndStylesheet()
        #expect(try await run("pin", url("/page.html")).exitCode == 0)
        let page = "\(TestOrigin.page.utf8.count) B"

        let planned = try await run("prune", "--max-size", "0", "--dry-run")
        let evicted = try await run("prune", "--max-size", "0", "--json")

        #expect(planned.exitCode == 1)
        #expect(planned.stderr == "Error: the bodies would still take \(page), more than the limit of 0 B: what is "
            + "left is pinned (unpin some, or give a larger limit).\n")
        #expect(evicted.exitCode == 1)
        #expect(evicted.stderr == "Error: the bodies still take \(page), more than the limit of 0 B: what is left "
            + "is pinned (unpin some, or give a larger limit).\n")
        let report = try jsonObject(evicted)
        #expect(report["entries"] as? Int == 1)
        #expect(report["bodyBytesLeft"] as? Int == TestOrigin.page.utf8.count)
        #expect(try await run("inspect", url("/page.html")).exitCode == 0)
    }

    @Test func compactsTheStoreFileAfterPruning() async throws {
        // Given a store grown by large bodies, most of which are then removed
        try await withCacheStore(at: store) { store in
            for index in 0..<30 {
                try await store.save(
                    CacheEntry(
                        partition: "guest", method: .get, url: url("/big-\(index).bin"), varyKey: "", status: 200,
                        headers: ["Content-Type": "application/octet-stream"], requestTime: Date(),
                        responseTime: Date(), freshUntil: Date().addingTimeInterval(3_600)),
                    body: Data(repeating: UInt8(index), count: 100_000))
            }
        }
        let before = try fileSize(store)
        // When
        let result = try await run("prune", "--url-pattern", "*/big-1*", "--compact", "--json")
        // Then
        #expect(result.exitCode == 0, "\(result.stderr)")
        let json = try jsonObject(result)
        #expect(json["entries"] as? Int == 11)
        let compactedTo = try #require(json["compactedTo"] as? Int)
        #expect(compactedTo < before, "\(before) → \(compactedTo)")
        #expect(try fileSize(store) < before)
        let after = try jsonObject(try await run("inspect", "--json"))
        #expect(after["entries"] as? Int == 19)
        #expect(try await run("verify").exitCode == 0)
        // Alone, it only compacts, and says so.
        let alone = try await run("prune", "--compact")
        #expect(alone.exitCode == 0, "\(alone.stderr)")
        #expect(alone.stdout.hasPrefix("Compacted the store: "), "\(alone.stdout)")
    }

    private func fileSize(_ path: String) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    @Test(arguments: [
        (["prune"], "Error: Give at least one of --expired"),
        (["prune", "--include-pinned"], "Error: Give at least one of --expired"),
        (["prune", "--older-than", "3 fortnights"],
         "Error: The value '3 fortnights' is invalid for '--older-than <duration>'"),
        (["prune", "--max-size", "lots"], "Error: The value 'lots' is invalid for '--max-size <size>'"),
        (["prune", "--max-size", "1M", "--host", "a.test"], "Error: --max-size evicts by last access alone"),
        (["prune", "--page", "page.html"], "Error: The value 'page.html' is invalid for '--page <url>'"),
    ])
    func refusesBadPruneOptions(arguments: [String], message: String) async throws {
        try await storePageAndStylesheet()
        let result = try await webcache.run(arguments + ["--store", store])
        #expect(result.exitCode == 64)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix(message))
        #expect(result.stderr.hasSuffix("\n  See 'webcache prune --help' for more information.\n"))
        #expect(result.stderr.contains("\nUsage: webcache prune [--expired]"))
        let after = try jsonObject(try await run("inspect", "--json"))
        #expect(after["entries"] as? Int == 2)
    }

    // MARK: - prune --page

    @Test func prunesAWholePageAndKeepsWhatTheOtherPageNeeds() async throws {
        try await preloadTwoPages()
        // When
        let result = try await run("prune", "--page", url("/page.html"))
        // Then the page and its script go; the shared stylesheet and the about page stay whole
        #expect(result.exitCode == 0, "\(result.stderr)")
        let freed = TestOrigin.page.utf8.count + TestOrigin.script.utf8.count
        #expect(result.stdout == "Removed 2 entries (\(freed) B freed).\n"
            + "Removed the record of the page \(url("/page.html")) (partition guest).\n")
        #expect(try await run("inspect", url("/page.html")).exitCode == 1)
        #expect(try await run("inspect", url("/app.js")).exitCode == 1)
        #expect(try await run("inspect", url("/style.css")).exitCode == 0)
        let pages = try await run("inspect", "--pages")
        #expect(pages.stdout == "complete: \(url("/about.html")) (partition guest): 3 of 3 resources stored\n"
            + "1 page(s), 1 complete.\n")
        let totals = try jsonObject(try await run("inspect", "--json"))
        #expect(totals["entries"] as? Int == 3)
        #expect(try await run("verify").exitCode == 0)
    }

    @Test func dryRunOfAPageListsWhatWouldGoAndRemovesNothing() async throws {
        try await preloadTwoPages()
        // When
        let text = try await run("prune", "--page", url("/page.html"), "--dry-run")
        let json = try jsonObject(try await run("prune", "--page", url("/page.html"), "-n", "--json"))
        // Then
        #expect(text.exitCode == 0, "\(text.stderr)")
        let bytes = TestOrigin.page.utf8.count + TestOrigin.script.utf8.count
        #expect(text.stdout.contains("would remove: \(url("/page.html"))\n"))
        #expect(text.stdout.contains("would remove: \(url("/app.js"))\n"))
        #expect(text.stdout.hasSuffix(
            "would remove the record of the page: \(url("/page.html")) (partition guest)\n"
                + "Would remove 2 entries (\(bytes) B, freeing \(bytes) B). Nothing was removed (--dry-run).\n"))
        #expect(json["dryRun"] as? Bool == true)
        #expect(Set(json["urls"] as? [String] ?? []) == [url("/page.html"), url("/app.js")])
        #expect(json["removedPages"] as? [[String: String]] == [["partition": "guest", "url": url("/page.html")]])
        #expect(json["keptPages"] as? [[String: String]] == [])
        let after = try jsonObject(try await run("inspect", "--json"))
        #expect(after["entries"] as? Int == 5)
        let pages = try jsonObject(try await run("inspect", "--pages", "--json"))["pages"] as? [[String: Any]]
        #expect(pages?.count == 2)
    }

    @Test func aPinnedResourceStaysWhenItsPageIsPruned() async throws {
        try await preloadTwoPages()
        let pinned = try await run("pin", url("/app.js"))
        #expect(pinned.stdout == "Pinned 1 entry in partition guest: the entry (\(url("/app.js"))).\n")
        // When the page is named under another spelling of its URL
        let spelled = url("/page.html").replacingOccurrences(of: "http://", with: "HTTP://")
        let json = try jsonObject(try await run("prune", "--page", spelled, "--json"))
        // Then the page and its record go, the pinned script stays
        #expect(json["urls"] as? [String] == [url("/page.html")])
        #expect(json["removedPages"] as? [[String: String]] == [["partition": "guest", "url": url("/page.html")]])
        #expect(try await run("inspect", url("/app.js")).exitCode == 0)
        let pages = try jsonObject(try await run("inspect", "--pages", "--json"))["pages"] as? [[String: Any]]
        #expect(pages?.compactMap { $0["url"] as? String } == [url("/about.html")])
    }

    @Test func aPinnedPageKeepsItsRecord() async throws {
        try await preloadTwoPages()
        #expect(try await run("pin", url("/page.html")).stdout.hasPrefix("Pinned 3 entries"))
        // When
        let result = try await run("prune", "--page", url("/page.html"))
        // Then nothing goes, and the output says why the page stays listed
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout == "Removed 0 entries (0 B freed).\n"
            + "Kept the record of the page \(url("/page.html")) (partition guest): the page itself stays "
            + "(pinned, needed by another page, or not matched by the other options).\n")
        let pages = try jsonObject(try await run("inspect", "--pages", "--json"))["pages"] as? [[String: Any]]
        #expect(pages?.count == 2)
    }

    @Test func refusesToPruneAPageThatIsNotRecorded() async throws {
        try await preloadTwoPages()
        // The stylesheet is stored but is no page; nope.html is not stored at all
        for path in ["/style.css", "/nope.html"] {
            let result = try await run("prune", "--page", url(path))
            #expect(result.exitCode == 1)
            #expect(result.stdout.isEmpty)
            #expect(result.stderr
                == "Error: '\(url(path))' is not a page with recorded resources in the store '\(store)'.\n")
        }
        let elsewhere = try await run("prune", "--page", url("/page.html"), "--partition", "user-1")
        #expect(elsewhere.exitCode == 1)
        #expect(elsewhere.stderr.hasSuffix("in the store '\(store)' (partition user-1).\n"))
        let after = try jsonObject(try await run("inspect", "--json"))
        #expect(after["entries"] as? Int == 5)
    }

    // MARK: - pin

    @Test func pinsAPageWithItsResourcesSoPruningKeepsThem() async throws {
        try await storePageAndStylesheet()
        _ = try await run("get", url("/app.js"))
        try await withCacheStore(at: store) { store in
            try await store.setEdges([PageEdge(resourceURL: url("/style.css"), kind: "stylesheet")],
                                     forPage: url("/page.html"))
        }
        // When
        let pinned = try await run("pin", url("/page.html"))
        let pruned = try await run("prune", "--url-pattern", "*")
        // Then the page and its stylesheet stay, the unrelated script goes
        #expect(pinned.exitCode == 0, "\(pinned.stderr)")
        #expect(pinned.stdout.hasPrefix("Pinned 2 entries in partition guest: the page and the stored resources"))
        #expect(pruned.stdout == "Removed 1 entry (\(TestOrigin.script.utf8.count) B freed).\n")
        let after = try jsonObject(try await run("inspect", "--json"))
        #expect(after["entries"] as? Int == 2)
        #expect(after["pinned"] as? Int == 2)

        // When unpinned, they can go
        let unpinned = try await run("pin", "--unpin", url("/page.html"))
        #expect(unpinned.stdout.hasPrefix("Unpinned 2 entries"))
        #expect(try await run("prune", "--url-pattern", "*").stdout.hasPrefix("Removed 2 entries"))
    }

    @Test func pinsASingleEntry() async throws {
        try await storePageAndStylesheet()
        let result = try await run("pin", url("/style.css"))
        #expect(result.exitCode == 0)
        #expect(result.stdout == "Pinned 1 entry in partition guest: the entry (\(url("/style.css"))).\n")
        let json = try jsonObject(try await run("inspect", url("/style.css"), "--json"))
        let entries = try #require(json["entries"] as? [[String: Any]])
        #expect(entries.first?["pinned"] as? Bool == true)
    }

    @Test func pinningAPageWithNothingStoredFails() async throws {
        try await storePageAndStylesheet()
        // Only the record of the page's resources is left
        try await withCacheStore(at: store) { store in
            try await store.setEdges([PageEdge(resourceURL: url("/gone.css"), kind: "stylesheet")],
                                     forPage: url("/gone.html"))
        }
        let result = try await run("pin", url("/gone.html"))
        #expect(result.exitCode == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "webcache: nothing of the page \(url("/gone.html")) is stored in partition guest; "
            + "preload it again first.\n")
    }

    @Test func refusesToPinAURLThatIsNotStored() async throws {
        try await storePageAndStylesheet()
        let result = try await run("pin", url("/nope.html"))
        #expect(result.exitCode == 1)
        #expect(result.stderr == "Error: '\(url("/nope.html"))' is not in the store '\(store)'.\n")
    }

    // MARK: - verify

    @Test func verifiesASoundStore() async throws {
        try await storePageAndStylesheet()
        let text = try await run("verify")
        #expect(text.exitCode == 0)
        #expect(text.stdout == "ok: 2 entries, 2 bodies checked\n")
        let json = try jsonObject(try await run("verify", "--json"))
        #expect(json["ok"] as? Bool == true)
        #expect(json["bodies"] as? Int == 2)
        #expect((json["problems"] as? [Any])?.isEmpty == true)
    }

    @Test func reportsADamagedBody() async throws {
        // Given a body whose bytes no longer match its hash
        try await storePageAndStylesheet()
        try await withCacheStore(at: store) { store in
            try await store.write("damage a body") { connection in
                try connection.execute(
                    sql: "UPDATE body_chunk SET data = x'00' WHERE body_id = (SELECT min(id) FROM body)")
            }
        }
        // When
        let result = try await run("verify")
        // Then
        #expect(result.exitCode == 1)
        #expect(result.stdout.contains("problem: "))
        #expect(result.stderr.hasPrefix("Error: The store '\(store)' has "))
    }

    // MARK: - logout

    @Test func logoutWithoutASignedInUserChangesNothing() async throws {
        try await storePageAndStylesheet()
        let result = try await run("logout")
        #expect(result.exitCode == 0)
        #expect(result.stdout.hasPrefix("Not signed in:"))
        let after = try jsonObject(try await run("inspect", "--json"))
        #expect(after["entries"] as? Int == 2)
    }

    @Test func logoutRemovesTheUsersPartitionOnly() async throws {
        // Given a guest entry and two entries of alice's partition
        try await storePageAndStylesheet()
        let key = IdentityKey.credential(.tokenCommand("echo never-run"), instance: server.baseURL, name: "alice")
        let partition = SessionIdentity.user(id: key).partitionName
        try await withCacheStore(at: store) { store in
            for path in ["/private/a", "/private/b"] {
                let entry = CacheEntry(
                    partition: partition, url: url(path), status: 200, headers: ["Content-Type": "text/plain"],
                    requestTime: Date(), responseTime: Date(), freshUntil: Date().addingTimeInterval(600))
                try await store.save(entry, body: Data("private \(path)".utf8))
            }
        }
        // When
        let result = try await run(
            "logout", "--instance", server.baseURL.absoluteString, "--user", "alice",
            "--token-command", "echo never-run")
        // Then
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout.hasPrefix("Logged out: removed 2 entries"), "\(result.stdout)")
        #expect(result.stdout.contains(partition))
        let after = try jsonObject(try await run("inspect", "--json"))
        #expect(after["entries"] as? Int == 2)
        let partitions = try #require(after["partitions"] as? [[String: Any]])
        #expect(partitions.map { $0["name"] as? String } == ["guest"])
        #expect(server.requestCount == 2)
    }
}
