import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import Transport

@testable import WebCache

/// A preloaded resource on a public address cannot redirect webcache to a private one.
struct RedirectAddressPolicyTests {
    @Test func aRequisiteRedirectingToAPrivateAddressFailsAndIsNotFollowed() async throws {
        let port = Mutex<UInt16>(0)
        let server = OriginServer { request in
            switch request.path {
            case "/page.html": .text("<img src=/hop.png>", contentType: "text/html")
            case "/hop.png":
                OriginResponse(status: 302, headers: ["Location": "http://127.0.0.1:\(port.withLock { $0 })/admin"])
            default: .text("private")
            }
        }
        try server.start()
        port.withLock { $0 = server.port }
        defer { server.stop() }
        let folder = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("webcache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = WebCache.Configuration(environment: ["HOME": folder.path])
        configuration.storePath = folder.appendingPathComponent("store.sqlite").path
        configuration.transportConfiguration.proxy = ""
        // To curl, public.test is the local origin; to the address policy it is not a private name.
        configuration.transportConfiguration.resolve = ["public.test:\(server.port):127.0.0.1"]
        let cache = try WebCache(configuration: configuration)
        let page = "http://public.test:\(server.port)/page.html"
        let report = await cache.preload([page])
        #expect(!server.requests.contains { $0.path == "/admin" })
        let failure = try #require(report.failures.first)
        #expect(failure.url == "http://public.test:\(server.port)/hop.png")
        #expect(failure.reason.contains("may not reach the private address of 127.0.0.1"))
        // A direct load is the caller's own choice and follows the redirect.
        let direct = try await cache.data(for: WebRequest("http://public.test:\(server.port)/hop.png"))
        #expect(direct.status == 200)
        await cache.close()
    }
}
