import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import WebCache

/// What keeps a long preload's memory flat and its warm runs cheap: the list read as the run goes,
/// pages' edges stored and let go as they settle, and fresh entries answered by one store lookup.
@Suite(.timeLimit(.minutes(5)))
struct PreloadScaleTests {
    /// More pages than the engine holds at once (``Preloader/pageWindow``: 64 pages with requisites,
    /// 256 without, at the default concurrency).
    private static let pageCount = 300

    private static func page(_ index: Int) -> String {
        String(format: "p%03d.html", index)
    }

    @Test func everyPageOfAListLongerThanTheWindowGetsItsCompleteEdges() async throws {
        // Given pages that share a stylesheet (with its image) and an image, each with one of its own;
        // the first page has an image only it uses, and the last frames the first.
        let last = Self.page(Self.pageCount - 1)
        let storedPagesWhenLastWasAskedFor = Mutex<Int?>(nil)
        let cacheBox = Mutex<WebCache?>(nil)
        let rig = try PreloadRig.start { request in
            let path = String(request.path.dropFirst())
            if path == Self.page(0) {
                return .text("<img src=\"only-first.png\">", contentType: "text/html")
            }
            if path.hasSuffix(".html") {
                if path == last {
                    let pages = cacheBox.withLock { $0 }.map { (try? $0.store.pages().count) ?? 0 }
                    storedPagesWhenLastWasAskedFor.withLock { $0 = pages }
                }
                let frame = path == last ? "<iframe src=\"\(Self.page(0))\"></iframe>" : ""
                let own = path.replacingOccurrences(of: ".html", with: ".png")
                return .text("<link rel=stylesheet href=\"site.css\"><img src=\"shared.png\"><img src=\"\(own)\">"
                                 + frame, contentType: "text/html")
            }
            if path == "site.css" {
                return .text("body { background: url(bg.png) }", contentType: "text/css")
            }
            return OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(16)))
        }
        cacheBox.withLock { $0 = rig.cache }
        let pages = (0..<Self.pageCount).map(Self.page)

        // When
        let report = await rig.cache.preload(pages, options: .allCandidates)

        // Then every URL was fetched once, and every page lists all it needs
        #expect(report.succeeded, "\(report.failures)")
        #expect(report.pages == Self.pageCount)
        #expect(rig.requestCounts.values.allSatisfy { $0 == 1 }, "\(rig.requestCounts.filter { $0.value > 1 })")
        for (index, page) in pages.enumerated() {
            var expected: Set<String> = [page, "site.css", "bg.png", "shared.png", page.replacingOccurrences(
                of: ".html", with: ".png")]
            if index == 0 { expected = [page, "only-first.png"] }
            if page == last { expected.formUnion([Self.page(0), "only-first.png"]) }
            let edges = try rig.cache.store.edges(forPage: rig.url(page))
            #expect(Set(edges.map(\.resourceURL)) == Set(expected.map(rig.url)), "\(page)")
            #expect(edges.allSatisfy { $0.failure == nil }, "\(page)")
        }
        // The last page was read from the list only once earlier pages had settled and been stored.
        #expect((storedPagesWhenLastWasAskedFor.withLock { $0 } ?? 0) > 0)
        await rig.stop()
    }

    @Test func aListIsReadAsTheRunGoesAndItsDuplicatesAreFetchedOnce() async throws {
        // Given a lazy list of 1,000 pages, each listed twice in a row, that counts what was read of it
        let drawn = DrawCounter()
        let drawnAtFirstRequest = Mutex<Int?>(nil)
        let rig = try PreloadRig.start { _ in
            drawnAtFirstRequest.withLock { $0 = $0 ?? drawn.value }
            return .text("plain", contentType: "text/plain")
        }
        let list = CountedList(count: 2_000, drawn: drawn)

        // When
        let report = await rig.cache.preload(list, options: .allCandidates)

        // Then each page was requested once, and the run started long before the list was read through
        #expect(report.succeeded, "\(report.failures)")
        #expect(report.pages == 1_000)
        #expect(rig.requestCounts.count == 1_000)
        #expect(rig.requestCounts.values.allSatisfy { $0 == 1 })
        #expect(drawn.value == 2_000)
        #expect(try #require(drawnAtFirstRequest.withLock { $0 }) < 1_000)
        #expect(try rig.cache.store.pages().count == 1_000)
        await rig.stop()
    }

    @Test(arguments: [true, false])
    func aRunReadsFewerPagesAheadWhenItFetchesTheirRequisites(includesRequisites: Bool) async throws {
        // Given a lazy list of 1,000 pages, each listed twice in a row, at 8 transfers at once
        let drawn = DrawCounter()
        let drawnAtFirstRequest = Mutex<Int?>(nil)
        let rig = try PreloadRig.start { _ in
            drawnAtFirstRequest.withLock { $0 = $0 ?? drawn.value }
            return .text("<img src=\"shared.png\">", contentType: "text/html")
        }
        var options = PreloadOptions.allCandidates
        options.concurrency = 8
        options.includesRequisites = includesRequisites

        // When
        let report = await rig.cache.preload(CountedList(count: 2_000, drawn: drawn), options: options)

        // Then the run had read 64 pages of the list (twice as many entries) before its first
        // request when it fetches what pages need, each of which holds its document until all it
        // needs has ended, and 256 when it fetches the pages alone; either way every page was stored
        #expect(report.succeeded, "\(report.failures)")
        #expect(report.pages == 1_000)
        let window = includesRequisites ? 64 : 256
        let read = try #require(drawnAtFirstRequest.withLock { $0 })
        #expect(read >= 2 * window - 1 && read <= 2 * window, "\(read) entries read")
        #expect(try rig.cache.store.pages().count == 1_000)
        await rig.stop()
    }

    @Test func aColdRunIntoAnEmptyStoreAsksOnceForATargetItStoredThroughARedirect() async throws {
        // Given an empty store, and a list that names a redirect and then its target, one at a time
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/old.html":
                return OriginResponse(status: 301, headers: ["Location": "/new.html", "Cache-Control": "max-age=3600"])
            default:
                return .text("new", contentType: "text/plain", headers: ["Cache-Control": "max-age=3600"])
            }
        }
        var options = PreloadOptions.allCandidates
        options.concurrency = 1
        options.includesRequisites = false

        // When
        let report = await rig.cache.preload(["old.html", "new.html"], options: options)

        // Then the target, stored while following the redirect, was not asked for again: the store
        // answered it although it held nothing when the run started
        #expect(report.succeeded, "\(report.failures)")
        #expect(rig.requestCounts == ["/old.html": 1, "/new.html": 1])
        #expect(report.requests == 2)
        #expect(try rig.cache.store.entry(url: rig.url("new.html")) != nil)
        await rig.stop()
    }

    @Test func aWarmRunSendsNoRequestForFreshEntriesAndRevalidatesStaleOnes() async throws {
        // Given a page that is always revalidated, a page that stays fresh, images fresh and stale,
        // and a fresh stylesheet whose image is fresh too
        let rig = try PreloadRig.start { request in
            let fresh: HTTPHeaders = ["Cache-Control": "max-age=3600", "Content-Type": "image/png"]
            let revalidated: HTTPHeaders = ["Cache-Control": "no-cache", "ETag": "\"v1\""]
            if request.headers["If-None-Match"] == "\"v1\"" {
                return OriginResponse(status: 304, headers: revalidated)
            }
            switch request.path {
            case "/page.html":
                return .text("<link rel=stylesheet href=\"site.css\"><img src=\"fresh.png\"><img src=\"stale.png\">",
                             contentType: "text/html", headers: revalidated)
            case "/fresh-page.html":
                return .text("<img src=\"extra.png\">", contentType: "text/html",
                             headers: ["Cache-Control": "max-age=3600"])
            case "/site.css":
                return .text("body { background: url(bg.png) }", contentType: "text/css",
                             headers: ["Cache-Control": "max-age=3600"])
            case "/stale.png":
                return OriginResponse(headers: ["Cache-Control": "no-cache", "ETag": "\"v1\"", "Content-Type": "image/png"],
                                      body: .bytes(preloadFiller(32)))
            default:
                return OriginResponse(headers: fresh, body: .bytes(preloadFiller(32)))
            }
        }
        let pages = ["page.html", "fresh-page.html"]
        let cold = await rig.cache.preload(pages, options: .allCandidates)
        #expect(cold.succeeded, "\(cold.failures)")
        #expect(cold.requests == 7)
        // The fresh page's image goes from the store: only reading that page again finds it is needed.
        _ = try await rig.cache.store.invalidate(url: rig.url("extra.png"))
        let before = rig.server.requests.count

        // When
        let warm = await rig.cache.preload(pages, options: .allCandidates)

        // Then the page and the stale image are revalidated, the fresh page is read from the store
        // and its missing image fetched; everything else costs no request
        #expect(warm.succeeded, "\(warm.failures)")
        let asked = rig.server.requests.dropFirst(before).map(\.path).sorted()
        #expect(asked == ["/extra.png", "/page.html", "/stale.png"])
        #expect(warm.requests == 3)
        #expect(warm.sources[.revalidated] == 2)
        #expect(warm.sources[.network] == 1)
        #expect(warm.sources[.hit] == 4)
        // Each answered from the store counts as a hit for eviction's order.
        try await rig.cache.store.flushAccessLog()
        for path in ["fresh.png", "bg.png", "site.css", "fresh-page.html"] {
            #expect(try rig.cache.store.entry(url: rig.url(path))?.hitCount == 1, "\(path)")
        }
        let edges = try rig.cache.store.edges(forPage: rig.url("page.html")).map(\.resourceURL)
        #expect(Set(edges) == Set(["page.html", "site.css", "bg.png", "fresh.png", "stale.png"].map(rig.url)))
        await rig.stop()
    }

    @Test func aRefreshRevalidatesFreshEntriesToo() async throws {
        // Given a page whose image is fresh
        let rig = try PreloadRig.start { request in
            let headers: HTTPHeaders = ["Cache-Control": "max-age=3600", "ETag": "\"v1\""]
            if request.headers["If-None-Match"] == "\"v1\"" { return OriginResponse(status: 304, headers: headers) }
            if request.path == "/page.html" {
                return .text("<img src=\"a.png\">", contentType: "text/html", headers: headers)
            }
            return OriginResponse(headers: ["Cache-Control": "max-age=3600", "ETag": "\"v1\"", "Content-Type": "image/png"],
                                  body: .bytes(preloadFiller(8)))
        }
        _ = await rig.cache.preload(["page.html"], options: .allCandidates)
        // When it is refreshed
        let refreshed = await rig.cache.refresh(["page.html"], options: .allCandidates)
        // Then both are asked again, as a reload does
        #expect(refreshed.requests == 2)
        #expect(refreshed.sources[.revalidated] == 2)
        await rig.stop()
    }
}

/// A count shared between a list and the test that reads it.
private final class DrawCounter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .relaxed) }

    func add() {
        count.add(1, ordering: .relaxed)
    }
}

/// `count` page names, each listed twice in a row, counting in `drawn` how many were read.
private struct CountedList: Sequence, Sendable {
    let count: Int
    let drawn: DrawCounter

    func makeIterator() -> AnyIterator<String> {
        var index = 0
        return AnyIterator {
            guard index < count else { return nil }
            defer { index += 1 }
            drawn.add()
            return "page-\(index / 2).txt"
        }
    }
}
