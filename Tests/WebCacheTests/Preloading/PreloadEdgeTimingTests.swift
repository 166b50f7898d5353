import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCache

/// A page's edges are stored once it and everything it needs have ended, while the run goes on, so
/// a run stopped half-way keeps them for the pages it finished.
@Suite struct PreloadEdgeTimingTests {
    @Test func aFinishedPageHasItsEdgesStoredBeforeTheRunEnds() async throws {
        // slow.png is held back until the test has looked at the store (or for three minutes at most:
        // the whole suite runs at once on a small machine, and this test's tasks may wait their turn).
        let gate = DispatchSemaphore(value: 0)
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/quick.html":
                return .text("<link rel=stylesheet href=\"quick.css\"><img src=\"quick.png\">", contentType: "text/html")
            case "/quick.css":
                return .text("body { background: url(bg.png) }", contentType: "text/css")
            case "/slow.html":
                return .text("<img src=\"slow.png\">", contentType: "text/html")
            case "/slow.png":
                _ = gate.wait(timeout: .now() + 180)
                return OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(10)))
            default:
                return OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(10)))
            }
        }
        let cache = rig.cache
        let run = Task { await cache.preload(["quick.html", "slow.html"]) }

        // While slow.png is held back, the quick page's edges appear (within about one edge
        // interval on a quiet machine); the slow page's do not.
        var quickEdges: [PageEdge] = []
        let deadline = ContinuousClock.now + .seconds(150)
        while quickEdges.isEmpty, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
            quickEdges = try cache.store.edges(forPage: rig.url("quick.html"))
        }
        #expect(Set(quickEdges.map(\.resourceURL))
            == Set(["quick.html", "quick.css", "quick.png", "bg.png"].map(rig.url)))
        #expect(try cache.store.edges(forPage: rig.url("slow.html")).isEmpty, "the slow page is not settled yet")
        gate.signal()

        let report = await run.value
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(try cache.store.pageStatus(forPage: rig.url("slow.html")).isComplete)
        #expect(try cache.store.pageStatus(forPage: rig.url("quick.html")).isComplete)
        await rig.stop()
    }
}
