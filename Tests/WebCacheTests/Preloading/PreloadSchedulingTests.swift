import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCache
import WebCacheTestSupport

/// How the preloader schedules: sub-resources start while a page streams, and per-host limits hold.
///
/// Each test runs the engine on a thread of its own: they compare what the engine does with what the
/// origin's threads do meanwhile, and on the shared pool the engine would wait its turn behind every
/// other test of the run while the origin goes on.
@Suite(.ownThread) struct PreloadSchedulingTests {
    @Test func stylesheetIsRequestedBeforeThePageHasFinishedArriving() async throws {
        let marks = PreloadMarks()
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/slow.html":
                let body = OriginResponse.Body.stream { writer in
                    try writer.write("<!DOCTYPE html><html><head><link rel=\"stylesheet\" href=\"early.css\">\n")
                    // Trickle the rest until the stylesheet has been asked for. The bound is a safety net
                    // only (reaching it leaves the marks in the wrong order and fails the test).
                    let safetyNet = Date().addingTimeInterval(600)
                    while !marks.contains("css requested"), Date() < safetyNet {
                        try writer.write("<!-- \(String(repeating: "x", count: 64)) -->\n")
                        Thread.sleep(forTimeInterval: 0.01)
                    }
                    for _ in 0..<5 {
                        try writer.write("<p>more text</p>\n")
                        Thread.sleep(forTimeInterval: 0.01)
                    }
                    // Marked before the last chunk is sent: once it is, the image may be asked for
                    // before this thread runs again.
                    marks.add("page finished")
                    try writer.write("<img src=\"late.png\"></head></html>\n")
                }
                return OriginResponse(headers: ["Content-Type": "text/html"], body: body)
            case "/early.css":
                marks.add("css requested")
                return .text("body { color: black; }", contentType: "text/css")
            case "/late.png":
                marks.add("image requested")
                return OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(100)))
            default:
                return .text("Not found", status: 404)
            }
        }

        let report = await rig.cache.preload(["slow.html"])

        #expect(report.failures.isEmpty)
        #expect(report.completed == 3)
        let order = marks.all
        let css = try #require(order.firstIndex(of: "css requested"))
        let finished = try #require(order.firstIndex(of: "page finished"))
        #expect(css < finished, "order at the origin: \(order)")
        #expect(order.last == "image requested")
        await rig.stop()
    }

    /// A page with many images and a stylesheet whose `@import` chain ends in a font: each stylesheet
    /// of the chain is found only when the one before it arrives, and goes ahead of the images still
    /// waiting, so the run does not end on the chain one link after another.
    @Test func importChainOvertakesTheImagesWaiting() async throws {
        let marks = PreloadMarks()
        let images = (1...30).map { "img-\($0).png" }
        let page = "<html><head><link rel=\"stylesheet\" href=\"a.css\"></head><body>"
            + images.map { "<img src=\"\($0)\">" }.joined() + "</body></html>"
        let rig = try PreloadRig.start { request in
            marks.add(request.path)
            Thread.sleep(forTimeInterval: 0.01)
            switch request.path {
            case "/index.html": return .text(page, contentType: "text/html")
            case "/a.css": return .text("@import \"b.css\";", contentType: "text/css")
            case "/b.css": return .text("@import \"c.css\";", contentType: "text/css")
            case "/c.css": return .text("@font-face { src: url(f.woff2) }", contentType: "text/css")
            case "/f.woff2":
                return OriginResponse(headers: ["Content-Type": "font/woff2"], body: .bytes(preloadFiller(500)))
            default: return OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(500)))
            }
        }
        var options = PreloadOptions.allCandidates
        options.concurrency = 1
        options.perHostConcurrency = 1

        let report = await rig.cache.preload(["index.html"], options: options)

        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.completed == images.count + 5)
        let order = marks.all
        let lastStylesheet = try #require(order.firstIndex(of: "/c.css"))
        let imagesBefore = order[..<lastStylesheet].filter { $0.hasSuffix(".png") }.count
        // One transfer at a time, with at most a couple handed out ahead: a few images may start
        // while each link of the chain is read, never most of them.
        #expect(imagesBefore <= 8, "order at the origin: \(order)")
        await rig.stop()
    }

    @Test(arguments: [1, 2])
    func perHostLimitBoundsConcurrentRequests(limit: Int) async throws {
        let inFlight = PreloadInFlightCounter()
        let images = (1...12).map { "img-\($0).png" }
        let page = "<html><body>" + images.map { "<img src=\"\($0)\">" }.joined() + "</body></html>"
        let rig = try PreloadRig.start { request in
            inFlight.enter()
            defer { inFlight.leave() }
            Thread.sleep(forTimeInterval: 0.02)
            if request.path == "/index.html" { return .text(page, contentType: "text/html") }
            return OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(2_000)))
        }
        var options = PreloadOptions()
        options.concurrency = 8
        options.perHostConcurrency = limit

        let report = await rig.cache.preload(["index.html"], options: options)

        #expect(report.failures.isEmpty)
        #expect(report.completed == images.count + 1)
        #expect(inFlight.maximum <= limit)
        await rig.stop()
    }

    /// With the transport's connections capped at the run's limits (as the command line does), the
    /// engine hands it fetches ahead of time; the transport still holds the transfers to the limits.
    @Test(arguments: [(concurrency: 2, perHost: 2), (concurrency: 3, perHost: 1)])
    func fetchesHandedOutAheadStillRespectTheLimits(concurrency: Int, perHost: Int) async throws {
        let inFlight = PreloadInFlightCounter()
        let images = (1...16).map { "img-\($0).png" }
        let page = "<html><body>" + images.map { "<img src=\"\($0)\">" }.joined() + "</body></html>"
        let folder = try TemporaryFolder()
        let server = OriginServer { request in
            inFlight.enter()
            defer { inFlight.leave() }
            Thread.sleep(forTimeInterval: 0.02)
            if request.path == "/index.html" { return .text(page, contentType: "text/html") }
            return OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(50_000)))
        }
        try server.start()
        var options = PreloadOptions()
        options.concurrency = concurrency
        options.perHostConcurrency = perHost
        var configuration = WebCache.Configuration(environment: [:])
        configuration.storePath = folder.storePath
        configuration.instanceURL = server.baseURL
        configuration.limitConnections(to: options)
        let cache = try WebCache(configuration: configuration)

        let report = await cache.preload(["index.html"], options: options)

        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.completed == images.count + 1)
        #expect(inFlight.maximum <= min(concurrency, perHost))
        await cache.close()
        server.stop()
        folder.remove()
    }

    /// Two origins, each allowed more transfers than the run as a whole: the global limit alone holds
    /// the requests in flight across both, and they do reach it. The handlers hold their requests
    /// until the limit has been reached once (or a generous bound has passed, a safety net that fails
    /// the test), and each a little longer, so that requests beyond
    /// the limit would overlap. With the transport's connections capped too, the fetches the engine
    /// hands out ahead of time are held to the limit as well.
    @Test(arguments: [false, true])
    func globalLimitHoldsAcrossHosts(limitsConnections: Bool) async throws {
        let concurrency = 3
        let inFlight = PreloadInFlightCounter()
        let handler: OriginServer.Handler = { request in
            inFlight.enter()
            defer { inFlight.leave() }
            if request.path != "/index.html" {
                inFlight.waitForMaximum(concurrency, timeout: 300)
                Thread.sleep(forTimeInterval: 0.02)
            }
            return OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(2_000)))
        }
        let other = OriginServer(handler: handler)
        try other.start()
        let images = (1...8).flatMap { ["img-\($0).png", "http://localhost:\(other.port)/img-\($0).png"] }
        let page = "<html><body>" + images.map { "<img src=\"\($0)\">" }.joined() + "</body></html>"
        let folder = try TemporaryFolder()
        let server = OriginServer { request in
            request.path == "/index.html" ? .text(page, contentType: "text/html") : handler(request)
        }
        try server.start()
        var options = PreloadOptions()
        options.concurrency = concurrency
        options.perHostConcurrency = 6
        var configuration = WebCache.Configuration(environment: [:])
        configuration.storePath = folder.storePath
        configuration.instanceURL = server.baseURL
        if limitsConnections { configuration.limitConnections(to: options) }
        let cache = try WebCache(configuration: configuration)

        let report = await cache.preload(["index.html"], options: options)

        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.completed == images.count + 1)
        #expect(server.requestCount == 9 && other.requestCount == 8)
        #expect(inFlight.maximum == concurrency)
        await cache.close()
        server.stop()
        other.stop()
        folder.remove()
    }
}
