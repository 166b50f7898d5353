import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

/// The real `webcache refresh` revalidating what a real `webcache preload` stored, against real origins.
@Suite struct RefreshCommandLineTests {
    /// The JSON objects `--json` printed, one per line.
    private static func objects(_ result: WebcacheRunner.Result) throws -> [[String: Any]] {
        try result.stdout.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
        }
    }

    /// Preloads `pages` of `server` with the real binary into the store in `folder`.
    private static func preload(_ pages: [String], from server: OriginServer, into folder: TemporaryFolder)
        async throws
    {
        try folder.write("urls.txt", pages.map { $0 + "\n" }.joined())
        let preloaded = try await PreloadCommandLineTests.run([
            "preload", folder.url.appending(path: "urls.txt").path, "--instance", server.baseURL.absoluteString,
            "--store", folder.storePath, "--all-candidates",
        ])
        try #require(preloaded.exitCode == 0, "stderr: \(preloaded.stderr)")
    }

    @Test func refreshRevalidatesStoredPagesWithConditionalRequestsOnly() async throws {
        let folder = try TemporaryFolder()
        let site = try PreloadSiteFixture.write(pageCount: 2, to: folder)
        let server = OriginServer(handler: StaticSite(root: folder.url.appending(path: "site")).handler)
        try server.start()
        defer {
            server.stop()
            folder.remove()
        }
        try await Self.preload(["page-1.html", "page-2.html"], from: server, into: folder)
        server.resetLog()

        let refreshed = try await PreloadCommandLineTests.run(["refresh", "--json", "--store", folder.storePath,
            "--all-candidates"])

        #expect(refreshed.exitCode == 0, "stderr: \(refreshed.stderr)")
        let requests = server.requests
        #expect(Set(requests.map(\.path)) == site.allPaths)
        #expect(requests.count == site.allPaths.count)
        for request in requests {
            #expect(request.headers.contains("If-None-Match") || request.headers.contains("If-Modified-Since"),
                    "unconditional request for \(request.target) during refresh")
        }
        let summary = try #require(try Self.objects(refreshed).last)
        #expect(summary["event"] as? String == "summary")
        #expect(summary["pages"] as? Int == site.pages.count)
        #expect(summary["revalidated"] as? Int == site.allPaths.count)
        #expect(summary["networkBytes"] as? Int == 0)
        #expect(summary["failed"] as? Int == 0)
    }

    @Test func refreshWithADeniedHostFetchesNothingFromIt() async throws {
        let folder = try TemporaryFolder()
        let cached: HTTPHeaders = ["Cache-Control": "max-age=600", "ETag": "\"v1\""]
        var imageHeaders = cached
        imageHeaders["Content-Type"] = "image/png"
        let images = OriginServer { [imageHeaders] _ in
            OriginResponse(headers: imageHeaders, body: .bytes(preloadFiller(500)))
        }
        try images.start()
        let page = "<link rel=\"stylesheet\" href=\"style.css\"><img src=\"http://localhost:\(images.port)/pic.png\">"
        let pages = OriginServer { request in
            if request.headers["If-None-Match"] == cached["ETag"] { return OriginResponse(status: 304, headers: cached) }
            return request.path == "/style.css"
                ? .text("p { color: red; }", contentType: "text/css", headers: cached)
                : .text(page, contentType: "text/html", headers: cached)
        }
        try pages.start()
        defer {
            images.stop()
            pages.stop()
            folder.remove()
        }
        try await Self.preload(["index.html"], from: pages, into: folder)
        try #require(images.requestCount == 1)
        images.resetLog()
        pages.resetLog()

        let refreshed = try await PreloadCommandLineTests.run([
            "refresh", "--deny-host", "LOCALHOST", "--json", "--store", folder.storePath, "--all-candidates",
        ])

        #expect(refreshed.exitCode == 0, "stderr: \(refreshed.stderr)")
        #expect(images.requests.isEmpty, "fetched from the denied host: \(images.requests.map(\.target))")
        #expect(Set(pages.requests.map(\.path)) == ["/index.html", "/style.css"])
        let events = try Self.objects(refreshed)
        let skipped = events.filter { $0["event"] as? String == "skipped" }.compactMap { $0["url"] as? String }
        #expect(skipped == ["http://localhost:\(images.port)/pic.png"])
        #expect(events.last?["revalidated"] as? Int == 2)
    }
}
