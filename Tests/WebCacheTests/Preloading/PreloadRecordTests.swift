import Discovery
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing

@testable import CacheStore
@testable import WebCache

/// A listed page that is fresh, with everything it needs fresh, found in the same bytes the same
/// way, is settled from its record: no request, no read of it or its stylesheets, nothing written.
/// Whatever the record does not settle (another device, a stylesheet stored again with other bytes,
/// a failed requisite) goes the full way; a document that uses a stylesheet a record answered reads
/// it; a page that frames a page a record answered takes what that page needs.
@Suite(.timeLimit(.minutes(5)))
struct PreloadRecordTests {
    /// An origin whose stylesheet can be changed while it runs; every response is fresh for an hour.
    final class Site: Sendable {
        let stylesheet = Mutex(".a { background: url(/i/bg-a.png) } .b { background: url(/i/bg-b.png) }")
        let failing = Mutex<Set<String>>([])
        /// The version of `/n.html`, whose tag names it.
        let pageVersion = Mutex(1)

        var handler: OriginServer.Handler {
            { request in
                let fresh: HTTPHeaders = ["Cache-Control": "max-age=3600"]
                if self.failing.withLock({ $0.contains(request.path) }) {
                    return OriginResponse(status: 404, headers: ["Cache-Control": "no-store"])
                }
                switch request.path {
                case "/a.html":
                    return .text("""
                        <!doctype html><link rel=stylesheet href=/site.css><div class=a></div><img src=/i/a.png>
                        <img srcset="/i/s1.png 1x, /i/s3.png 3x">
                        """, contentType: "text/html", headers: fresh)
                case "/b.html":
                    return .text("<!doctype html><link rel=stylesheet href=/site.css><div class=b></div>",
                                 contentType: "text/html", headers: fresh)
                case "/f.html":
                    return .text("<!doctype html><img src=/i/f.png>", contentType: "text/html", headers: fresh)
                case "/n.html":
                    // Revalidated at every use; the stylesheet and images stay fresh.
                    let tag = "\"n-\(self.pageVersion.withLock { $0 })\""
                    let headers: HTTPHeaders = ["Cache-Control": "no-cache", "ETag": tag]
                    if request.headers["If-None-Match"] == tag { return OriginResponse(status: 304, headers: headers) }
                    let image = self.pageVersion.withLock { $0 } == 1 ? "/i/a.png" : "/i/changed.png"
                    return .text("""
                        <!doctype html><link rel=stylesheet href=/site.css><div class=a></div><img src=\(image)>
                        """, contentType: "text/html", headers: headers)
                case "/framed.html":
                    return .text("""
                        <!doctype html><link rel=stylesheet href=/site.css><div class=a></div>
                        <iframe src=/frame.html></iframe>
                        """, contentType: "text/html", headers: ["Cache-Control": "no-cache", "ETag": "\"framed\""])
                case "/frame.html":
                    if request.headers["If-None-Match"] == "\"frame\"" {
                        return OriginResponse(status: 304, headers: ["Cache-Control": "no-cache", "ETag": "\"frame\""])
                    }
                    return .text("<!doctype html><img src=/i/in-frame.png>", contentType: "text/html",
                                 headers: ["Cache-Control": "no-cache", "ETag": "\"frame\""])
                case "/p.html":
                    return .text("<!doctype html><iframe src=/f.html></iframe>", contentType: "text/html", headers: fresh)
                case "/r.html":
                    return .text("<!doctype html><link rel=stylesheet href=/old.css><div class=a></div>",
                                 contentType: "text/html", headers: fresh)
                case "/old.css":
                    return OriginResponse(status: 301, headers: ["Location": "/site.css", "Cache-Control": "max-age=3600"])
                case "/site.css":
                    return .text(self.stylesheet.withLock { $0 }, contentType: "text/css", headers: fresh)
                default:
                    return .text("png \(request.path)", contentType: "image/png", headers: fresh)
                }
            }
        }
    }

    private func start() throws -> (PreloadRig, Site) {
        let site = Site()
        return (try PreloadRig.start(handler: site.handler), site)
    }

    /// The paths the origin was asked for after the first `count` requests, sorted.
    private func asked(_ rig: PreloadRig, after count: Int) -> [String] {
        rig.server.requests.dropFirst(count).map(\.path).sorted()
    }

    private func edgePaths(_ rig: PreloadRig, _ page: String) throws -> [String] {
        try rig.cache.store.edges(forPage: rig.url(page)).map { URL(string: $0.resourceURL)?.path ?? "" }.sorted()
    }

    @Test func aFreshPageAndAllItNeedsAreSettledFromTheirRecordWithoutBeingRead() async throws {
        // Given a page with a stylesheet, an image of a style rule, an image and a srcset, preloaded once
        let (rig, _) = try start()
        let cold = await rig.cache.preload(["a.html"])
        #expect(cold.succeeded, "\(cold.failures)")
        let needed = ["/a.html", "/i/a.png", "/i/bg-a.png", "/i/s1.png", "/site.css"]
        #expect(try edgePaths(rig, "a.html") == needed)
        let edges = try rig.cache.store.edges(forPage: rig.url("a.html"))
        let skipped = try rig.cache.store.skipped(forPage: rig.url("a.html"))
        #expect(skipped.map { URL(string: $0.resourceURL)?.path } == ["/i/bg-b.png", "/i/s3.png"])
        let discovery = try #require(Preloader.discovery(for: PreloadOptions()))
        #expect(try rig.cache.store.recordedPages(urls: [rig.url("a.html")], discovery: discovery)[0] != nil)
        try await rig.cache.store.flushAccessLog()
        let before = rig.server.requests.count

        // When it is preloaded again
        let log = PreloadEventLog()
        let warm = await rig.cache.preload(["a.html"], events: log.handler)

        // Then nothing is sent, nothing is read (nothing is discovered), and every URL is a hit once
        #expect(warm.succeeded, "\(warm.failures)")
        #expect(rig.server.requests.count == before)
        #expect(log.discoveredPaths.isEmpty)
        #expect(log.fetchedPaths.sorted() == needed)
        #expect(warm.sources == [.hit: needed.count])
        #expect(warm.pages == 1 && warm.failedPages == 0 && warm.pagesMissingRequisites == 0)
        // And the record is as it was, each entry used once more
        #expect(try rig.cache.store.edges(forPage: rig.url("a.html")) == edges)
        #expect(try rig.cache.store.skipped(forPage: rig.url("a.html")) == skipped)
        try await rig.cache.store.flushAccessLog()
        for path in needed {
            #expect(try rig.cache.store.entry(url: rig.url(String(path.dropFirst())))?.hitCount == 1, "\(path)")
        }
        await rig.stop()
    }

    @Test func aDocumentThatUsesAStylesheetARecordAnsweredReadsIt() async throws {
        // Given a page recorded with its stylesheet, whose other rule shows an image on another page
        let (rig, _) = try start()
        #expect(await rig.cache.preload(["a.html"]).succeeded)
        let before = rig.server.requests.count

        // When it is preloaded again with a new page that uses the same stylesheet
        let warm = await rig.cache.preload(["a.html", "b.html"])

        // Then the first page is settled from its record, and the new one reads the stylesheet from
        // the store for its own rule's image; each URL is counted once
        #expect(warm.succeeded, "\(warm.failures)")
        #expect(asked(rig, after: before) == ["/b.html", "/i/bg-b.png"])
        #expect(try edgePaths(rig, "b.html") == ["/b.html", "/i/bg-b.png", "/site.css"])
        #expect(try edgePaths(rig, "a.html") == ["/a.html", "/i/a.png", "/i/bg-a.png", "/i/s1.png", "/site.css"])
        #expect(warm.sources == [.hit: 5, .network: 2])
        await rig.stop()
    }

    @Test func aPageThatFramesAPageARecordAnsweredNeedsWhatThatPageNeeds() async throws {
        // Given a page recorded with its image
        let (rig, _) = try start()
        #expect(await rig.cache.preload(["f.html"]).succeeded)
        let before = rig.server.requests.count

        // When it is preloaded again with a new page that frames it
        let warm = await rig.cache.preload(["f.html", "p.html"])

        // Then the new page needs the frame and the frame's image, which the record answered
        #expect(warm.succeeded, "\(warm.failures)")
        #expect(asked(rig, after: before) == ["/p.html"])
        #expect(try edgePaths(rig, "p.html") == ["/f.html", "/i/f.png", "/p.html"])
        #expect(try rig.cache.store.pageStatus(forPage: rig.url("p.html")).isComplete)
        await rig.stop()
    }

    @Test func aRunForAnotherDeviceReadsThePageAgain() async throws {
        // Given a page preloaded for the desktop
        let (rig, _) = try start()
        #expect(await rig.cache.preload(["a.html"]).succeeded)
        let before = rig.server.requests.count

        // When it is preloaded for a phone (pixel ratio 3)
        var options = PreloadOptions()
        options.device = .phone
        let log = PreloadEventLog()
        let warm = await rig.cache.preload(["a.html"], options: options, events: log.handler)

        // Then the page is read again and the phone's candidate fetched and recorded
        #expect(warm.succeeded, "\(warm.failures)")
        #expect(!log.discoveredPaths.isEmpty)
        #expect(asked(rig, after: before) == ["/i/s3.png"])
        #expect(try edgePaths(rig, "a.html").contains("/i/s3.png"))
        // And the record now stands for the phone, not for the desktop
        let phone = try #require(Preloader.discovery(for: options))
        let desktop = try #require(Preloader.discovery(for: PreloadOptions()))
        #expect(try rig.cache.store.recordedPages(urls: [rig.url("a.html")], discovery: phone)[0] != nil)
        #expect(try rig.cache.store.recordedPages(urls: [rig.url("a.html")], discovery: desktop)[0] == nil)
        await rig.stop()
    }

    @Test func aStylesheetStoredAgainWithOtherBytesIsReadAgain() async throws {
        // Given a page recorded with its stylesheet
        let (rig, site) = try start()
        #expect(await rig.cache.preload(["a.html"]).succeeded)

        // When the stylesheet changes and a client loads it again from the origin, so that the
        // store holds the new bytes, still fresh
        site.stylesheet.withLock { $0 = ".a { background: url(/i/bg-new.png) }" }
        let reloaded = try await rig.cache.data(for: WebRequest("site.css"), policy: .reloadIgnoringCacheData)
        #expect(String(decoding: reloaded.body, as: UTF8.self).contains("bg-new"))
        let before = rig.server.requests.count
        let warm = await rig.cache.preload(["a.html"])

        // Then the page and the stylesheet are read again from the store, and the new image found
        #expect(warm.succeeded, "\(warm.failures)")
        #expect(asked(rig, after: before) == ["/i/bg-new.png"])
        #expect(try edgePaths(rig, "a.html") == ["/a.html", "/i/a.png", "/i/bg-new.png", "/i/s1.png", "/site.css"])
        await rig.stop()
    }

    @Test func aRequisiteThatFailedIsAskedForAgain() async throws {
        // Given a page whose image failed
        let (rig, site) = try start()
        site.failing.withLock { $0 = ["/i/a.png"] }
        let cold = await rig.cache.preload(["a.html"])
        #expect(cold.failures.map(\.url) == [rig.url("i/a.png")])

        // When the image is back and the page is preloaded again
        site.failing.withLock { $0 = [] }
        let before = rig.server.requests.count
        let warm = await rig.cache.preload(["a.html"])

        // Then the image is asked for again, and the page is complete
        #expect(warm.succeeded, "\(warm.failures)")
        #expect(asked(rig, after: before) == ["/i/a.png"])
        #expect(try rig.cache.store.edges(forPage: rig.url("a.html")).allSatisfy { $0.failure == nil })
        await rig.stop()
    }

    @Test func aPageTheOriginConfirmsUnchangedIsSettledFromItsRecord() async throws {
        // Given a page revalidated at every use, with a stylesheet and images that stay fresh
        let (rig, _) = try start()
        #expect(await rig.cache.preload(["n.html"]).succeeded)
        let needed = ["/i/a.png", "/i/bg-a.png", "/n.html", "/site.css"]
        #expect(try edgePaths(rig, "n.html") == needed)
        let skipped = try rig.cache.store.skipped(forPage: rig.url("n.html"))
        #expect(!skipped.isEmpty)
        let before = rig.server.requests.count

        // When it is preloaded again and the origin answers 304
        let log = PreloadEventLog()
        let warm = await rig.cache.preload(["n.html"], events: log.handler)

        // Then only the page is asked for, conditionally; it is read but not scanned, and what it
        // needs is answered by its record, as it was recorded
        #expect(warm.succeeded, "\(warm.failures)")
        #expect(asked(rig, after: before) == ["/n.html"])
        #expect(rig.server.requests.last?.headers["If-None-Match"] == "\"n-1\"")
        #expect(log.discoveredPaths.isEmpty)
        #expect(warm.sources == [.revalidated: 1, .hit: 3])
        #expect(warm.pagesMissingRequisites == 0 && warm.failedPages == 0)
        #expect(try edgePaths(rig, "n.html") == needed)
        #expect(try rig.cache.store.skipped(forPage: rig.url("n.html")) == skipped)
        #expect(try rig.cache.store.pageStatus(forPage: rig.url("n.html")).isComplete)
        await rig.stop()
    }

    @Test func aPageTheOriginChangedIsScannedAgain() async throws {
        // Given a page revalidated at every use, preloaded once
        let (rig, site) = try start()
        #expect(await rig.cache.preload(["n.html"]).succeeded)
        let before = rig.server.requests.count

        // When the origin changes it (a new tag and another image) and it is preloaded again
        site.pageVersion.withLock { $0 = 2 }
        let log = PreloadEventLog()
        let warm = await rig.cache.preload(["n.html"], events: log.handler)

        // Then the new page is scanned and its new image fetched and recorded in place of the old
        #expect(warm.succeeded, "\(warm.failures)")
        #expect(asked(rig, after: before) == ["/i/changed.png", "/n.html"])
        #expect(log.discoveredPaths.contains("/i/changed.png"))
        #expect(try edgePaths(rig, "n.html") == ["/i/bg-a.png", "/i/changed.png", "/n.html", "/site.css"])
        await rig.stop()
    }

    @Test func aConfirmedPageWhoseFrameIsNotYetConfirmedIsScannedAndStaysComplete() async throws {
        // Given a page and its frame, both revalidated at every use, the frame's image fresh
        let (rig, _) = try start()
        #expect(await rig.cache.preload(["framed.html"]).succeeded)
        let needed = ["/frame.html", "/framed.html", "/i/bg-a.png", "/i/in-frame.png", "/site.css"]
        #expect(try edgePaths(rig, "framed.html") == needed)
        let before = rig.server.requests.count

        // When it is preloaded again and the origin confirms both
        let log = PreloadEventLog()
        let warm = await rig.cache.preload(["framed.html"], events: log.handler)

        // Then the page's record does not stand while its frame is unconfirmed (stale in the store):
        // the page is scanned, its frame confirmed, and the page is as complete as before
        #expect(warm.succeeded, "\(warm.failures)")
        #expect(asked(rig, after: before) == ["/frame.html", "/framed.html"])
        #expect(rig.server.requests.dropFirst(before).allSatisfy { $0.headers["If-None-Match"] != nil })
        #expect(log.discoveredPaths.contains("/frame.html"))
        #expect(try edgePaths(rig, "framed.html") == needed)
        #expect(try rig.cache.store.pageStatus(forPage: rig.url("framed.html")).isComplete)
        await rig.stop()
    }

    @Test func aStylesheetReachedThroughARedirectIsReadAgainWhenItsTargetChanges() async throws {
        // Given a page whose stylesheet redirects to another URL, every response fresh
        let (rig, site) = try start()
        #expect(await rig.cache.preload(["r.html"]).succeeded)
        #expect(try edgePaths(rig, "r.html") == ["/i/bg-a.png", "/old.css", "/r.html"])

        // When the target changes and a client loads it again, so that the store holds the new
        // bytes under the target's URL (the page's edges name the redirecting URL only, so the
        // digest does not cover the target: a redirect among the edges keeps the record from standing)
        site.stylesheet.withLock { $0 = ".a { background: url(/i/bg-new.png) }" }
        _ = try await rig.cache.data(for: WebRequest("site.css"), policy: .reloadIgnoringCacheData)
        let before = rig.server.requests.count
        let warm = await rig.cache.preload(["r.html"])

        // Then the page is not settled from a record made from the old bytes: the new image is found
        #expect(warm.succeeded, "\(warm.failures)")
        #expect(asked(rig, after: before) == ["/i/bg-new.png"])
        #expect(try edgePaths(rig, "r.html").contains("/i/bg-new.png"))
        await rig.stop()
    }

    @Test func edgesFoundInAStylesheetAnotherClientReplacedBeforeTheyWereWrittenAreNotTrusted() async throws {
        // Given an origin that holds the stylesheet's image until the test lets it go
        let site = Site()
        let gate = DispatchSemaphore(value: 0)
        let held = Mutex(false)
        let rig = try PreloadRig.start { request in
            if request.path == "/i/bg-a.png" {
                held.withLock { $0 = true }
                _ = gate.wait(timeout: .now() + 60)
            }
            return site.handler(request)
        }

        // When the page is preloaded, and after its stylesheet was read (its image is asked for)
        // but before the page's edges are written, the origin changes the stylesheet and another
        // client of the same store loads it again
        async let cold = rig.cache.preload(["a.html"])
        for _ in 0..<6_000 where !held.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(10)) }
        #expect(held.withLock { $0 })
        site.stylesheet.withLock { $0 = ".a { background: url(/i/bg-new.png) }" }
        _ = try await rig.cache.data(for: WebRequest("site.css"), policy: .reloadIgnoringCacheData)
        gate.signal()
        #expect(await cold.succeeded)
        let before = rig.server.requests.count

        // Then the page's record is not trusted, since its edges were found in bytes the store no
        // longer holds: the next run reads the page and the new stylesheet and finds the new image
        let warm = await rig.cache.preload(["a.html"])
        #expect(warm.succeeded, "\(warm.failures)")
        #expect(asked(rig, after: before) == ["/i/bg-new.png"])
        #expect(try edgePaths(rig, "a.html").contains("/i/bg-new.png"))
        await rig.stop()
    }
}
