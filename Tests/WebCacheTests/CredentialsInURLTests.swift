import Foundation
import HTTPCore
import LocalOrigin
import Testing
import Transport

@testable import WebCache

/// A user name or password in a URL is never sent, stored or followed: credentials come from the
/// configured provider only.
struct CredentialsInURLTests {
    private func makeCache(_ folder: URL) throws -> WebCache {
        var configuration = WebCache.Configuration(environment: ["HOME": folder.path])
        configuration.storePath = folder.appendingPathComponent("store.sqlite").path
        configuration.transportConfiguration.proxy = ""
        return try WebCache(configuration: configuration)
    }

    private func temporaryFolder() throws -> URL {
        let folder = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("webcache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test(arguments: ["http://user:hunter2@a.test/", "https://hunter2@a.test/x", "http://:hunter2@a.test/"])
    func resolveRefusesAURLWithCredentials(url: String) throws {
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try makeCache(folder)
        do {
            _ = try cache.resolve(url)
            Issue.record("\(url) was accepted")
        } catch let error as WebCacheError {
            #expect(error.code == .invalidURL)
            #expect(error.message.contains("user name or password"))
            #expect(!error.description.contains("hunter2"))
        }
    }

    @Test func aRedirectToAURLWithCredentialsIsNotFollowed() async throws {
        let server = OriginServer { request in
            request.path == "/start"
                ? OriginResponse(status: 302, headers: ["Location": "http://user:hunter2@127.0.0.1:1/next"])
                : .text("never")
        }
        try server.start()
        defer { server.stop() }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try makeCache(folder)
        do {
            _ = try await cache.data(for: WebRequest(url: server.url("start")))
            Issue.record("the redirect was followed")
        } catch let error as WebCacheError {
            #expect(error.code == .invalidURL)
            #expect(error.message.contains(server.url("start").absoluteString))
            #expect(!error.description.contains("hunter2"))
        }
        #expect(server.requestCount == 1)
        await cache.close()
    }

    @Test func aPreloadedPageCannotMakeWebcacheSendCredentials() async throws {
        let server = OriginServer { request in
            let port = request.headers["Host"]?.split(separator: ":").last ?? ""
            return request.path == "/page.html"
                ? .text("<img src=\"http://user:hunter2@127.0.0.1:\(port)/a.png\">", contentType: "text/html")
                : .text("image")
        }
        try server.start()
        defer { server.stop() }
        let folder = try temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try makeCache(folder)
        let report = await cache.preload([server.url("page.html").absoluteString])
        #expect(report.skipped.count == 1)
        #expect(report.skipped.first?.reason.contains("user name or password") == true)
        #expect(report.skipped.first?.url.contains("hunter2") == false)
        #expect(server.requests.map(\.target) == ["/page.html"])
        await cache.close()
    }
}
