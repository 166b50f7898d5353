import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCache
import WebCacheTestSupport

/// Full preloads of a generated site against a real origin: every requisite once, page status, and
/// a second run that only revalidates.
@Suite struct PreloadSiteTests {
    // MARK: - First run

    @Test func storesEveryRequisiteOnceAcrossPagesThatShareThem() async throws {
        let folder = try TemporaryFolder()
        let site = try PreloadSiteFixture.write(pageCount: 4, to: folder)
        let rig = try PreloadRig.serving(folder.url.appending(path: "site"), in: folder)
        let events = PreloadEventLog()

        let report = await rig.cache.preload(site.pages.map { String($0.dropFirst()) }, events: events.handler)

        // The origin saw each page and requisite exactly once, and nothing else.
        let counts = rig.requestCounts
        #expect(Set(counts.keys) == site.allPaths)
        #expect(counts.filter { $0.value != 1 }.isEmpty, "requested more than once: \(counts.filter { $0.value != 1 })")

        #expect(report.failures.isEmpty)
        #expect(report.skipped.isEmpty)
        #expect(report.pages == site.pages.count)
        #expect(report.completed == site.allPaths.count)
        #expect(report.sources[.network] == site.allPaths.count)
        #expect(report.requests == site.allPaths.count)

        // Each requisite was discovered (once per run) and each path fetched once.
        #expect(Set(events.discoveredPaths) == site.allRequisites)
        #expect(events.discoveredPaths.count == site.allRequisites.count)
        #expect(events.fetchedPaths.sorted() == site.allPaths.sorted())
        // Each requisite is announced before it is reported fetched.
        let all = events.all
        for path in site.allRequisites {
            let announced = all.firstIndex {
                if case .discovered(let url, _, _) = $0 { url.path == path } else { false }
            }
            let stored = all.firstIndex {
                if case .fetched(let url, _, _, _) = $0 { url.path == path } else { false }
            }
            if let announced, let stored {
                #expect(announced < stored, "\(path) was reported fetched before it was discovered")
            } else {
                Issue.record("\(path) lacks a discovered or a fetched event")
            }
        }

        for page in site.pages {
            let status = try rig.cache.store.pageStatus(forPage: rig.url(page))
            #expect(status.isComplete, "\(page): missing \(status.missing)")
            #expect(status.failures.isEmpty)
            // The page itself plus each of its requisites, through the stylesheets and the manifest.
            #expect(status.resourceCount == site.requisites[page, default: []].count + 1)
        }
        await rig.stop()
    }

    // MARK: - Second run

    @Test func secondRunSendsOnlyConditionalRequestsAndMovesNoBodies() async throws {
        let folder = try TemporaryFolder()
        let site = try PreloadSiteFixture.write(pageCount: 3, to: folder)
        let rig = try PreloadRig.serving(folder.url.appending(path: "site"), in: folder)
        let pages = site.pages.map { String($0.dropFirst()) }

        let first = await rig.cache.preload(pages)
        #expect(first.failures.isEmpty)
        #expect(first.networkBytes > 10_000)
        rig.server.resetLog()

        let second = await rig.cache.preload(pages)

        #expect(second.failures.isEmpty)
        #expect(second.completed == first.completed)
        let requests = rig.server.requests
        for request in requests {
            let conditional = request.headers.contains("If-None-Match") || request.headers.contains("If-Modified-Since")
            #expect(conditional, "unconditional request for \(request.target) on the second run")
        }
        // The pages are `no-cache`: they are revalidated; the year-long assets are not asked for at all.
        #expect(Set(requests.map(\.path)) == Set(site.pages))
        #expect(second.sources[.revalidated] == site.pages.count)
        #expect(second.sources[.network, default: 0] == 0)
        #expect(second.networkBytes * 100 <= first.networkBytes)
        await rig.stop()
    }

    /// A run that cannot fetch the pages (the origin is down) records their failure but keeps the
    /// requisites an earlier run recorded: the stored copies still need them.
    @Test func aRunThatCannotReachThePagesKeepsWhatTheyNeed() async throws {
        let folder = try TemporaryFolder()
        let site = try PreloadSiteFixture.write(pageCount: 2, to: folder)
        let rig = try PreloadRig.serving(folder.url.appending(path: "site"), in: folder)
        let pages = site.pages.map { String($0.dropFirst()) }
        #expect(await rig.cache.preload(pages).failures.isEmpty)
        let before = try site.pages.map { try rig.cache.store.pageStatus(forPage: rig.url($0)) }
        rig.server.stop()

        let second = await rig.cache.preload(pages)

        #expect(Set(second.failures.map(\.url)) == Set(site.pages.map { rig.url($0) }))
        for (page, earlier) in zip(site.pages, before) {
            let status = try rig.cache.store.pageStatus(forPage: rig.url(page))
            #expect(status.resourceCount == earlier.resourceCount)
            #expect(status.resourceCount == site.requisites[page, default: []].count + 1)
            #expect(status.storedCount == earlier.storedCount)
            #expect(status.failures.map(\.resourceURL) == [rig.url(page)], "\(page): \(status.failures)")
        }
        await rig.stop()
    }

    // MARK: - Refresh and the completion form

    @Test func refreshRevalidatesEveryStoredPageAndRequisiteConditionally() async throws {
        let folder = try TemporaryFolder()
        let site = try PreloadSiteFixture.write(pageCount: 2, to: folder)
        let rig = try PreloadRig.serving(folder.url.appending(path: "site"), in: folder)
        let first = await withCheckedContinuation { continuation in
            rig.cache.preload(site.pages.map { String($0.dropFirst()) }, events: { _ in }) { report in
                continuation.resume(returning: report)
            }
        }
        #expect(first.failures.isEmpty)
        #expect(first.completed == site.allPaths.count)
        rig.server.resetLog()

        let refreshed = try await rig.cache.refresh()

        #expect(refreshed.failures.isEmpty)
        #expect(refreshed.pages == site.pages.count)
        let requests = rig.server.requests
        #expect(Set(requests.map(\.path)) == site.allPaths)
        #expect(requests.count == site.allPaths.count)
        for request in requests {
            #expect(request.headers.contains("If-None-Match") || request.headers.contains("If-Modified-Since"),
                    "unconditional request for \(request.target) during refresh")
        }
        #expect(refreshed.sources[.revalidated] == site.allPaths.count)
        #expect(refreshed.networkBytes == 0)
        await rig.stop()
    }

    @Test func refreshCanBeLimitedToSomeHosts() async throws {
        let rig = try PreloadRig.start { request in
            .text("<p>\(request.path)</p>", contentType: "text/html", headers: ["Cache-Control": "max-age=600"])
        }
        let port = rig.server.port
        let first = await rig.cache.preload(["http://127.0.0.1:\(port)/a.html", "http://localhost:\(port)/b.html"])
        #expect(first.failures.isEmpty)
        #expect(first.completed == 2)
        rig.server.resetLog()

        let refreshed = try await rig.cache.refresh(hosts: ["LocalHost"])

        #expect(refreshed.pages == 1)
        #expect(rig.server.requests.map { ($0.headers["Host"] ?? "") + $0.path } == ["localhost:\(port)/b.html"])
        await rig.stop()
    }

    @Test func aPageStoredCodedIsScannedDecoded() async throws {
        // A page that its origin codes with gzip unasked: `<img src=/photo.png>`
        let page = try #require(Data(base64Encoded: "H4sIAAAAAAACA7PJKMnNsbPJzE1XKC5KttUvyMgvydcryEu3s9EHS3EBAPA2yHQiAAAA"))
        let rig = try PreloadRig.start { request in
            request.path == "/page.html"
                ? OriginResponse(headers: ["Content-Type": "text/html", "Content-Encoding": "gzip",
                                           "Cache-Control": "max-age=600"], body: .bytes(page))
                : .text("png", contentType: "image/png", headers: ["Cache-Control": "max-age=600"])
        }
        // Stored as coded by a caller that takes content so, as the gateway does
        var coded = WebRequest("page.html")
        coded.decodesContent = false
        _ = try await rig.cache.data(for: coded)

        let report = await rig.cache.preload(["page.html"])

        #expect(report.failures.isEmpty)
        #expect(report.completed == 2)
        #expect(rig.requestCounts == ["/page.html": 1, "/photo.png": 1])
        await rig.stop()
    }

    @Test func preloadedPagesAreChosenByHostsAsURLsGiveThem() async throws {
        let rig = try PreloadRig.start { _ in .text("") }
        let pages = ["http://[::1]:8080/a.html", "http://xn--bcher-kva.example/b.html", "http://example.test/c.html"]
        for page in pages {
            try await rig.cache.store.setEdges(
                [PageEdge(resourceURL: page + ".css", kind: "stylesheet")], forPage: page, partition: "guest")
        }

        #expect(try rig.cache.preloadedPages(hosts: ["[::1]"]) == [pages[0]])
        #expect(try rig.cache.preloadedPages(hosts: ["::1"]) == [pages[0]])
        #expect(try rig.cache.preloadedPages(hosts: ["Bücher.example"]) == [pages[1]])
        #expect(try rig.cache.preloadedPages(hosts: [" Example.TEST "]) == [pages[2]])
        #expect(try rig.cache.preloadedPages().count == 3)
        await rig.stop()
    }
}
