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

    /// Every spelling of a non-public address in a redirect from a public resource is refused before
    /// any connection: loopback, IPv6 loopback, IPv4-mapped loopback, unspecified, link-local (the
    /// cloud metadata address), private and shared.
    @Test(arguments: [
        "http://127.0.0.1:PORT/admin", "http://[::1]:PORT/admin", "http://[::ffff:127.0.0.1]:PORT/admin",
        "http://[::ffff:7f00:1]:PORT/admin", "http://0.0.0.0:PORT/admin", "http://169.254.169.254/latest/meta-data",
        "http://10.0.0.1/admin", "http://192.168.0.1/admin", "http://100.64.0.1/admin", "http://localhost:PORT/admin",
    ])
    func aRedirectToANonPublicAddressIsRefusedInEverySpelling(target: String) async throws {
        let location = Mutex<String>("")
        let server = OriginServer { request in
            switch request.path {
            case "/page.html": .text("<img src=/hop.png>", contentType: "text/html")
            case "/hop.png": OriginResponse(status: 302, headers: ["Location": location.withLock { $0 }])
            default: .text("private")
            }
        }
        try server.start()
        defer { server.stop() }
        location.withLock { $0 = target.replacingOccurrences(of: "PORT", with: "\(server.port)") }
        let folder = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("webcache-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = WebCache.Configuration(environment: ["HOME": folder.path])
        configuration.storePath = folder.appendingPathComponent("store.sqlite").path
        configuration.transportConfiguration.proxy = ""
        configuration.transportConfiguration.connectTimeout = .seconds(1)
        configuration.transportConfiguration.resolve = ["public.test:\(server.port):127.0.0.1"]
        let cache = try WebCache(configuration: configuration)

        let report = await cache.preload(["http://public.test:\(server.port)/page.html"])

        #expect(!server.requests.contains { $0.path == "/admin" })
        let failure = try #require(report.failures.first, "\(target) was followed")
        #expect(failure.reason.contains("may not reach the private address"), "\(target): \(failure.reason)")
        await cache.close()
    }
}
