import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import Transport
import WebCacheTestSupport
@testable import WebCache

/// What a public page references is fetched with ``WebRequest/refusesPrivateAddresses``, so that the
/// transport checks the address it connects to (DNS rebinding); given pages and what a private page
/// references are not, and a redirect from a public address passes the refusal on.
@Suite struct PreloadAddressRefusalTests {
    /// Forwards to a real ``CurlTransport`` and records, per path, whether the request refused
    /// private addresses.
    private final class RecordingTransport: HTTPTransport {
        let inner: CurlTransport
        let refusals = Mutex<[String: Bool]>([:])

        init(_ inner: CurlTransport) {
            self.inner = inner
        }

        func send(_ request: HTTPRequest) async throws -> TransportResponse {
            refusals.withLock { $0[request.url.path] = request.refusesPrivateAddresses }
            return try await inner.send(request)
        }
    }

    private static func route(_ request: OriginRequest) -> OriginResponse {
        switch request.path {
        case "/index.html":
            return .text("<img src=\"/a.png\"><img src=\"/moved.png\">", contentType: "text/html")
        case "/moved.png":
            return OriginResponse(status: 302, headers: ["Location": "/b.png"])
        default:
            return OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(100)))
        }
    }

    /// Preloads `page` through a recording transport that sends `203.0.113.10` (a public address to
    /// the address policy) to the local origin, and returns what each path's request refused.
    private static func preload(_ page: (UInt16) -> String) async throws -> [String: Bool] {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let server = OriginServer { request in route(request) }
        try server.start()
        defer { server.stop() }
        var transportConfiguration = CurlTransport.Configuration()
        transportConfiguration.proxy = ""
        transportConfiguration.connectTo = ["203.0.113.10:80:127.0.0.1:\(server.port)"]
        let transport = RecordingTransport(try CurlTransport(configuration: transportConfiguration))
        var configuration = WebCache.Configuration(environment: [:])
        configuration.storePath = folder.storePath
        configuration.transport = transport
        let cache = try WebCache(configuration: configuration)
        let report = await cache.preload([page(server.port)])
        await cache.close()
        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(Set(server.requests.map(\.path)) == ["/index.html", "/a.png", "/moved.png", "/b.png"])
        return transport.refusals.withLock { $0 }
    }

    @Test func whatAPublicPageReferencesRefusesPrivateAddressesAndRedirectsPassItOn() async throws {
        let refusals = try await Self.preload { _ in "http://203.0.113.10/index.html" }
        #expect(refusals == ["/index.html": false, "/a.png": true, "/moved.png": true, "/b.png": true])
    }

    @Test func whatAPrivatePageReferencesIsNotRestricted() async throws {
        let refusals = try await Self.preload { port in "http://127.0.0.1:\(port)/index.html" }
        #expect(refusals == ["/index.html": false, "/a.png": false, "/moved.png": false, "/b.png": false])
    }
}
