import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

@testable import WebCache

/// ``WebCache/Configuration-swift.struct/requestHeaders``: fields added to every request count as
/// the request's own for the caching rules, and credentials among them reach the instance only.
@Suite struct RequestHeaderTests {
    @Test func credentialsGoToTheInstanceOnlyAndOtherFieldsEverywhere() async throws {
        let cdn = OriginServer { request in
            .text("img \(request.headers["Authorization"] ?? "-") \(request.headers["X-Trace"] ?? "-")",
                  contentType: "image/png", headers: ["Cache-Control": "public, max-age=600"])
        }
        try cdn.start()
        defer { cdn.stop() }
        let image = cdn.url("logo.png").absoluteString
        try await withCache(origin: { _ in
            .text(#"<img src="\#(image)">"#, contentType: "text/html", headers: ["Cache-Control": "public, max-age=600"])
        }, configure: { configuration in
            configuration.requestHeaders = ["Authorization": "Bearer for-the-instance", "X-Trace": "t1"]
        }) { (origin, cache) async throws in
            let report = await cache.preload(["page.html"])

            #expect(report.failures.isEmpty, "\(report.failures)")
            #expect(origin.requests.map { $0.headers["Authorization"] } == ["Bearer for-the-instance"])
            #expect(origin.requests.map { $0.headers["X-Trace"] } == ["t1"])
            #expect(cdn.requests.map { $0.headers["Authorization"] } == [nil])
            #expect(cdn.requests.map { $0.headers["X-Trace"] } == ["t1"])
        }
    }

    @Test func aFieldAResponseVariesOnSelectsTheStoredVariant() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let origin = OriginServer { request in
            .text("in \(request.headers["Accept-Language"] ?? "any")",
                  headers: ["Cache-Control": "max-age=600", "Vary": "Accept-Language"])
        }
        try origin.start()
        defer { origin.stop() }
        func cache(language: String) throws -> WebCache {
            var configuration = WebCache.Configuration(environment: [:])
            configuration.storePath = folder.storePath
            configuration.instanceURL = origin.baseURL
            configuration.requestHeaders = ["Accept-Language": language]
            return try WebCache(configuration: configuration)
        }

        let french = try cache(language: "fr")
        #expect(try await french.data(for: WebRequest("greeting")).text == "in fr")
        let again = try await french.data(for: WebRequest("greeting"))
        #expect(again.text == "in fr")
        #expect(again.source == .hit)
        await french.close()

        let english = try cache(language: "en")
        let other = try await english.data(for: WebRequest("greeting"))
        #expect(other.text == "in en")
        #expect(other.source == .network)
        await english.close()
        #expect(origin.requestCount == 2)
    }

    @Test func aResponseFetchedWithAuthorizationIsStoredOnlyAsTheRulesAllow() async throws {
        // RFC 9111 §3.5: without `public` (or s-maxage, must-revalidate) the guest partition keeps nothing.
        try await withCache(origin: { request in
            .text(request.path == "/public" ? "shared" : "personal",
                  headers: ["Cache-Control": request.path == "/public" ? "public, max-age=600" : "max-age=600"])
        }, configure: { configuration in
            configuration.requestHeaders = ["Authorization": "Bearer t"]
        }) { (origin, cache) async throws in
            for _ in 0..<2 {
                _ = try await cache.data(for: WebRequest("personal"))
                _ = try await cache.data(for: WebRequest("public"))
            }
            #expect(origin.requests.map(\.path) == ["/personal", "/public", "/personal"])
            #expect(try cache.storedVariants(origin.url("personal")).isEmpty)
        }
    }

    @Test func credentialsForEveryRequestNeedAnInstance() throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var configuration = WebCache.Configuration(environment: [:])
        configuration.storePath = folder.storePath
        configuration.requestHeaders = ["Cookie": "id=1"]

        let error = #expect(throws: WebCacheError.self) { _ = try WebCache(configuration: configuration) }

        #expect(error?.message.contains("Cookie") == true, "\(error?.message ?? "")")
        #expect(error?.message.contains("id=1") == false)
        #expect(!FileManager.default.fileExists(atPath: folder.storePath))
    }
}
