import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import WebCache

/// A run that does not look for some kinds of requisite keeps the edges earlier runs recorded for them.
@Suite struct PreloadEdgeKeepingTests {
    /// A page with a stylesheet and a video.
    private static func page(_ request: OriginRequest) -> OriginResponse {
        switch request.path {
        case "/index.html":
            .text("<link rel=stylesheet href=site.css><video src=movie.mp4></video>", contentType: "text/html")
        case "/site.css":
            .text("body { color: black }", contentType: "text/css")
        case "/movie.mp4":
            OriginResponse(headers: ["Content-Type": "video/mp4"], body: .bytes(preloadFiller(2_000)))
        default:
            .text("Not found", status: 404)
        }
    }

    private static func edgeKinds(_ rig: PreloadRig) throws -> [String: String] {
        let edges = try rig.cache.store.edges(forPage: rig.url("index.html"))
        return Dictionary(uniqueKeysWithValues: edges.map { ($0.resourceURL, $0.kind) })
    }

    @Test func aRunWithoutMediaKeepsTheMediaEdges() async throws {
        let rig = try PreloadRig.start(handler: Self.page)
        var withMedia = PreloadOptions()
        withMedia.includesMedia = true
        let first = await rig.cache.preload(["index.html"], options: withMedia)
        #expect(first.failures.isEmpty, "\(first.failures)")
        let recorded = try Self.edgeKinds(rig)
        #expect(recorded[rig.url("movie.mp4")] == "media")

        var again = PreloadOptions()
        again.revalidatesFreshEntries = true
        let second = await rig.cache.preload(["index.html"], options: again)

        #expect(second.failures.isEmpty, "\(second.failures)")
        #expect(rig.requestCounts["/movie.mp4"] == 1, "the second run does not fetch the video")
        #expect(try Self.edgeKinds(rig) == recorded)
        let status = try rig.cache.store.pageStatus(forPage: rig.url("index.html"))
        // The page, its stylesheet and its video.
        #expect(status.isComplete && status.resourceCount == 3, "\(status)")
        await rig.stop()
    }

    @Test func aRunOfPagesAloneKeepsEveryRequisiteEdge() async throws {
        let rig = try PreloadRig.start(handler: Self.page)
        let first = await rig.cache.preload(["index.html"])
        #expect(first.failures.isEmpty, "\(first.failures)")
        let recorded = try Self.edgeKinds(rig)
        #expect(recorded[rig.url("site.css")] == "stylesheet")

        var pagesOnly = PreloadOptions()
        pagesOnly.includesRequisites = false
        pagesOnly.revalidatesFreshEntries = true
        let second = await rig.cache.preload(["index.html"], options: pagesOnly)

        #expect(second.failures.isEmpty, "\(second.failures)")
        #expect(rig.requestCounts["/site.css"] == 1)
        #expect(try Self.edgeKinds(rig) == recorded)
        await rig.stop()
    }

    /// A stylesheet that fails in a later run was not read: the image the page needs through it
    /// stays in the page's record, so that `prune --page` of another page that shares the image,
    /// or `pin`, does not take it for unneeded.
    @Test func aRunWhoseStylesheetFailsKeepsWhatThePageNeedsThroughIt() async throws {
        let stylesheetFails = Mutex(false)
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/index.html": .text("<link rel=stylesheet href=site.css>", contentType: "text/html")
            case "/site.css" where stylesheetFails.withLock({ $0 }): .text("Unavailable", status: 503)
            case "/site.css": .text("body { background: url(bg.png) }", contentType: "text/css")
            case "/bg.png": OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(500)))
            default: .text("Not found", status: 404)
            }
        }
        let first = await rig.cache.preload(["index.html"])
        #expect(first.failures.isEmpty, "\(first.failures)")
        #expect(try Self.edgeKinds(rig)[rig.url("bg.png")] == "image")

        stylesheetFails.withLock { $0 = true }
        var again = PreloadOptions()
        again.revalidatesFreshEntries = true
        again.retries = 0
        let second = await rig.cache.preload(["index.html"], options: again)

        #expect(second.failures.map(\.url) == [rig.url("site.css")], "\(second.failures)")
        let kinds = try Self.edgeKinds(rig)
        #expect(kinds[rig.url("site.css")] == "stylesheet")
        #expect(kinds[rig.url("bg.png")] == "image")
        let edges = try rig.cache.store.edges(forPage: rig.url("index.html"))
        #expect(edges.first { $0.resourceURL == rig.url("site.css") }?.failure != nil)
        await rig.stop()
    }

    @Test func aRunWithMediaReplacesTheMediaEdges() async throws {
        let videoRemoved = Mutex(false)
        let rig = try PreloadRig.start { request in
            request.path == "/index.html" && videoRemoved.withLock { $0 }
                ? .text("<link rel=stylesheet href=site.css>", contentType: "text/html") : Self.page(request)
        }
        var withMedia = PreloadOptions()
        withMedia.includesMedia = true
        _ = await rig.cache.preload(["index.html"], options: withMedia)
        #expect(try Self.edgeKinds(rig)[rig.url("movie.mp4")] == "media")

        // The page no longer has its video: a run that looks for media forgets it.
        videoRemoved.withLock { $0 = true }
        withMedia.revalidatesFreshEntries = true
        _ = await rig.cache.preload(["index.html"], options: withMedia)

        #expect(try Self.edgeKinds(rig)[rig.url("movie.mp4")] == nil)
        #expect(try Self.edgeKinds(rig)[rig.url("site.css")] == "stylesheet")
        await rig.stop()
    }
}
