import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCache
import WebCacheTestSupport

/// How the preloader schedules: sub-resources start while a page streams, and per-host limits hold.
@Suite struct PreloadSchedulingTests {
    @Test func stylesheetIsRequestedBeforeThePageHasFinishedArriving() async throws {
        let marks = PreloadMarks()
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/slow.html":
                let body = OriginResponse.Body.stream { writer in
                    try writer.write("<!DOCTYPE html><html><head><link rel=\"stylesheet\" href=\"early.css\">\n")
                    // Trickle the rest until the stylesheet has been asked for (or a generous bound passes,
                    // which leaves the marks in the wrong order and fails the test).
                    var chunks = 0
                    while !marks.contains("css requested"), chunks < 3_000 {
                        try writer.write("<!-- \(String(repeating: "x", count: 64)) -->\n")
                        Thread.sleep(forTimeInterval: 0.01)
                        chunks += 1
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
}
