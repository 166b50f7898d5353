import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheURLSession

@testable import WebCache

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Code written against URLSession reads through the store once `WebCacheURLProtocol` is registered.
/// One test: the protocol class has one registered cache per process.
@Suite(.serialized, .timeLimit(.minutes(5)))
struct URLProtocolTests {
    @Test func urlSessionRequestsGoThroughTheStore() async throws {
        try await withCache(origin: { _ in
            .text("through the store", headers: ["Cache-Control": "max-age=600"])
        }) { (origin, cache) async throws in
            // Given a session whose protocol classes route http(s) through the cache
            WebCacheURLProtocol.register(cache)
            defer { WebCacheURLProtocol.register(nil) }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.protocolClasses = [WebCacheURLProtocol.self]
            let session = URLSession(configuration: configuration)
            let url = origin.url("article")

            // When the same URL is loaded twice through URLSession
            let (firstBody, firstResponse) = try await session.data(from: url)
            let (secondBody, secondResponse) = try await session.data(from: url)

            // Then the first came from the network, the second from the store, with no second request
            let first = try #require(firstResponse as? HTTPURLResponse)
            let second = try #require(secondResponse as? HTTPURLResponse)
            #expect(String(decoding: firstBody, as: UTF8.self) == "through the store")
            #expect(secondBody == firstBody)
            #expect(first.value(forHTTPHeaderField: "X-WebCache-Source") == "network")
            #expect(second.value(forHTTPHeaderField: "X-WebCache-Source") == "hit")
            #expect(second.statusCode == 200)
            #expect(origin.requestCount == 1)
        }
    }

    @Test func onlyHTTPRequestsAreTakenAndOnlyWithARegisteredCache() throws {
        let http = URLRequest(url: try #require(URL(string: "http://example.test/")))
        let file = URLRequest(url: URL(fileURLWithPath: "/tmp/x"))
        WebCacheURLProtocol.register(nil)
        #expect(!WebCacheURLProtocol.canInit(with: http))
        #expect(!WebCacheURLProtocol.canInit(with: file))
    }
}
