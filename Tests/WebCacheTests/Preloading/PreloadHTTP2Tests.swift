import Foundation
import HTTPCore
import LocalOrigin
import Testing
import Transport
import WebCache
import WebCacheTestSupport

/// The preload engine's limits over HTTP/2, where one connection carries many transfers at once as
/// streams, so the transport's connection caps do not hold them: against nginx, which speaks HTTP/2
/// over TLS in front of a local origin that takes 20 ms per request. The origin counts the requests
/// it is working on, in all and per host; each such span lies within its request's time in flight.
@Suite(.enabled(if: HTTP2Proxy.isAvailable, "needs nginx and openssl"), .serialized)
struct PreloadHTTP2Tests {
    @Test(arguments: [(concurrency: 8, perHost: 3), (concurrency: 4, perHost: 4)])
    func limitsHoldForStreams(concurrency: Int, perHost: Int) async throws {
        let images = (1...15).map { "img-\($0).png" }
        let inAll = PreloadInFlightCounter()
        let perHostCounters = ["127.0.0.1": PreloadInFlightCounter(), "localhost": PreloadInFlightCounter()]
        let origin = OriginServer { request in
            let onHost = perHostCounters[request.headers["Host"] ?? ""]
            inAll.enter()
            onHost?.enter()
            defer {
                onHost?.leave()
                inAll.leave()
            }
            Thread.sleep(forTimeInterval: 0.02)
            if request.path.hasSuffix(".html") {
                let tags = images.map { "<img src=\"\(request.path.dropFirst().split(separator: ".")[0])-\($0)\">" }
                return .text("<html><body>" + tags.joined() + "</body></html>", contentType: "text/html")
            }
            return OriginResponse(
                headers: ["Content-Type": "image/png"], body: .bytes(Data(repeating: 7, count: 2_000)))
        }
        try origin.start()
        defer { origin.stop() }
        let proxy = try await HTTP2Proxy(origin: origin.baseURL)
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var options = PreloadOptions()
        options.concurrency = concurrency
        options.perHostConcurrency = perHost
        var configuration = WebCache.Configuration(environment: [:])
        configuration.storePath = folder.storePath
        configuration.transportConfiguration.caCertificateFile = proxy.certificatePath
        // As the command line does: the transport's connection caps are the run's limits, so that
        // fetches to hosts reached over HTTP/1.1 would be handed to it ahead of time.
        configuration.limitConnections(to: options)
        let cache = try WebCache(configuration: configuration)
        let pages = [proxy.url("a.html"), proxy.url("b.html"), proxy.url("c.html", host: "localhost"),
                     proxy.url("d.html", host: "localhost")]

        let report = await cache.preload(pages.map(\.absoluteString), options: options)
        await cache.close()

        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.completed == pages.count * (images.count + 1))
        let exchanges = proxy.exchanges()
        #expect(exchanges.count == pages.count * (images.count + 1))
        #expect(exchanges.allSatisfy { $0.httpVersion == "HTTP/2.0" }, "\(Set(exchanges.map(\.httpVersion)))")
        #expect(Set(exchanges.map(\.host)) == Set(perHostCounters.keys))
        #expect(inAll.maximum <= concurrency)
        #expect(inAll.maximum > 1, "requests overlapped")
        for (host, counter) in perHostCounters {
            #expect(counter.maximum <= perHost, "\(host)")
            #expect(counter.maximum > 0, "the origin saw \(host) as the host")
        }
    }
}
