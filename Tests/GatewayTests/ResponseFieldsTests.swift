import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import Transport
import WebCache
import WebCacheTestSupport

@testable import Gateway

/// What the gateway tells a client about a response: its `Date` and `Age` (RFC 9111 §4.2.3, §5.1),
/// its content exactly as the origin coded it (RFC 9110 §7.7), and how an answer without content is
/// framed (RFC 9110 §8.6, §9.3.2); and that a response without content is stored like any other.
@Suite(.timeLimit(.minutes(5)))
struct ResponseFieldsTests {
    // MARK: - Date and Age

    @Test(arguments: [
        // The origin's Age is larger than the apparent age: it is kept, never lowered.
        (originAge: "150", dateAgo: 40.0, least: 150),
        // No Age: the apparent age (receipt time minus Date) counts.
        (originAge: nil, dateAgo: 200.0, least: 200),
    ] as [(originAge: String?, dateAgo: TimeInterval, least: Int)])
    func aResponseFromTheNetworkKeepsTheOriginsDateAndItsAge(
        originAge: String?, dateAgo: TimeInterval, least: Int
    ) async throws {
        // Given: a response already older than its max-age when it leaves the origin
        let start = Date()
        let date = HTTPDate.format(start.addingTimeInterval(-dateAgo))
        let handler: OriginServer.Handler = { _ in
            var headers: HTTPHeaders = ["Cache-Control": "max-age=100", "Date": date]
            if let originAge { headers["Age"] = originAge }
            return .text("old news", headers: headers)
        }
        try await GatewayHarness.run(origin: handler) { harness in
            // When
            let reply = try await harness.get("/news")
            // Then: a downstream cache can tell it is stale
            #expect(reply.servedAs == "network")
            #expect(reply.headers.values(for: "Date") == [date])
            let ages = reply.headers.values(for: "Age").compactMap { Int($0) }
            // Date has whole seconds, so it may read up to a second older.
            let most = least + 1 + Int(Date().timeIntervalSince(start).rounded(.up))
            #expect(ages.count == 1)
            #expect(ages.allSatisfy { (least...most).contains($0) }, "Age: \(ages), at most \(most)")
        }
    }

    @Test func aHitKeepsTheStoredDate() async throws {
        // Given: a lifetime from Expires, which a downstream cache measures from Date
        let start = Date()
        let dated = start.addingTimeInterval(-30)
        let date = HTTPDate.format(dated)
        let expires = HTTPDate.format(dated.addingTimeInterval(3600))
        let handler: OriginServer.Handler = { _ in .text("dated", headers: ["Date": date, "Expires": expires]) }
        try await GatewayHarness.run(origin: handler) { harness in
            _ = try await harness.get("/dated")
            // When
            let hit = try await harness.get("/dated")
            // Then
            #expect(hit.servedAs == "hit")
            #expect(hit.headers.values(for: "Date") == [date])
            let age = try #require(hit.headers["Age"].flatMap { Int($0) })
            let most = 31 + Int(Date().timeIntervalSince(start).rounded(.up))
            #expect((30...most).contains(age), "Age: \(age), at most \(most)")
        }
    }

    // MARK: - Responses without content

    @Test(arguments: [
        (status: 204, headers: ["Cache-Control": "max-age=3600"]),
        (status: 204, headers: ["Last-Modified": "Sat, 01 Jan 2000 00:00:00 GMT"]),
        (status: 200, headers: ["Cache-Control": "max-age=3600"]),
    ] as [(status: Int, headers: HTTPHeaders)])
    func aResponseWithoutContentIsStored(status: Int, headers: HTTPHeaders) async throws {
        let handler: OriginServer.Handler = { _ in OriginResponse(status: status, headers: headers) }
        try await GatewayHarness.run(origin: handler) { harness in
            // When
            let first = try await harness.get("/empty")
            let second = try await harness.get("/empty")
            // Then
            #expect(first.status == status)
            #expect(first.servedAs == "network")
            #expect(second.status == status)
            #expect(second.servedAs == "hit")
            #expect(second.body.isEmpty)
            #expect(harness.origin.requestCount == 1)
        }
    }

    // MARK: - Content codings

    @Test func codedContentPassesThroughUntouched() async throws {
        // Given: an origin that sends gzip whatever it is asked, and forbids transformations
        let handler: OriginServer.Handler = { _ in
            OriginResponse(headers: ["Content-Encoding": "gzip", "Content-Type": "text/plain", "ETag": "\"gz\"",
                                     "Cache-Control": "max-age=3600, no-transform"],
                           body: .bytes(Self.gzipBytes))
        }
        try await GatewayHarness.run(origin: handler) { harness in
            let client = try Self.undecodingClient(harness)
            let request = HTTPRequest(url: harness.origin.url("/text"), headers: ["Accept-Encoding": "gzip"])
            for served in ["network", "hit"] {
                // When
                let reply = try await GatewayHarness.send(request, via: client)
                // Then
                #expect(reply.servedAs == served)
                #expect(reply.headers["Content-Encoding"] == "gzip")
                #expect(reply.headers["ETag"] == "\"gz\"")
                #expect(reply.body == Self.gzipBytes)
                await harness.accessLog.waitForCount(served == "network" ? 1 : 2)
            }
        }
    }

    @Test func aPreloadedDecodedEntryIsServedWithItsTagMadeWeak() async throws {
        // Given: an origin that sends gzip with a strong tag, and an entry the library stored decoded
        let handler: OriginServer.Handler = { request in
            if request.headers["If-None-Match"] == "\"gz\"" {
                return OriginResponse(status: 304, headers: ["ETag": "\"gz\"", "Cache-Control": "max-age=3600"])
            }
            return OriginResponse(headers: ["Content-Encoding": "gzip", "Content-Type": "text/plain", "ETag": "\"gz\"",
                                            "Cache-Control": "max-age=3600"],
                                  body: .bytes(Self.gzipBytes))
        }
        try await GatewayHarness.run(origin: handler) { harness in
            let report = await harness.cache.preload([harness.origin.url("/text").absoluteString])
            #expect(report.failures.isEmpty)
            let client = try Self.undecodingClient(harness)
            // When
            let reply = try await GatewayHarness.send(
                HTTPRequest(url: harness.origin.url("/text"), headers: ["Accept-Encoding": "gzip"]), via: client)
            await harness.accessLog.waitForCount(1)
            // Then: the decoded bytes, whose tag no longer claims to be the gzip bytes'
            #expect(reply.servedAs == "hit")
            #expect(reply.headers["Content-Encoding"] == nil)
            #expect(reply.headers["ETag"] == #"W/"gz""#)
            #expect(String(decoding: reply.body, as: UTF8.self) == Self.gzipText)
            // And a client holding the origin's strong tag revalidates against it (weak comparison)
            let revalidation = try await GatewayHarness.send(
                HTTPRequest(url: harness.origin.url("/text"), headers: ["If-None-Match": "\"gz\""]), via: client)
            await harness.accessLog.waitForCount(2)
            #expect(revalidation.status == 304)
            #expect(revalidation.headers["ETag"] == #"W/"gz""#)
            #expect(harness.origin.requests.count == 1)
        }
    }

    @Test(arguments: [false, true])
    func aDecodedCopyOfANoTransformResponseIsNotServedWhileTheOriginCanAnswer(offline: Bool) async throws {
        // Given: an origin that sends gzip and forbids transformations, and a preload that stored it decoded
        let handler: OriginServer.Handler = { _ in
            OriginResponse(headers: ["Content-Encoding": "gzip", "Content-Type": "text/plain", "ETag": "\"gz\"",
                                     "Cache-Control": "max-age=3600, no-transform"],
                           body: .bytes(Self.gzipBytes))
        }
        try await GatewayHarness.run(origin: handler, configure: { configuration, _ in
            configuration.offline = offline
        }) { harness in
            let url = harness.origin.url("/text")
            #expect(await harness.cache.preload([url.absoluteString]).failures.isEmpty)
            let client = try Self.undecodingClient(harness)
            let request = HTTPRequest(url: url, headers: ["Accept-Encoding": "gzip"])
            if offline {
                // When the origin cannot be asked, the decoded copy is all there is
                let reply = try await GatewayHarness.send(request, via: client)
                #expect(reply.servedAs == "hit")
                #expect(reply.headers["ETag"] == #"W/"gz""#)
                #expect(String(decoding: reply.body, as: UTF8.self) == Self.gzipText)
                return
            }
            for served in ["network", "hit"] {
                // When
                let reply = try await GatewayHarness.send(request, via: client)
                await harness.accessLog.waitForCount(served == "network" ? 1 : 2)
                // Then: the response as the origin coded it, which replaces the decoded copy
                #expect(reply.servedAs == served)
                #expect(reply.headers["Content-Encoding"] == "gzip")
                #expect(reply.headers["ETag"] == "\"gz\"")
                #expect(reply.body == Self.gzipBytes)
            }
            #expect(harness.origin.requests.count == 2)
            #expect(try harness.cache.store.variants(url: url.absoluteString).map(\.decodedFrom) == [nil])
        }
    }

    @Test func theOriginIsAskedForNoContentCodingAndOneEntryServesEveryClient() async throws {
        // Given: an origin that negotiates, with a tag per representation
        let handler: OriginServer.Handler = { request in
            var headers: HTTPHeaders = ["Cache-Control": "max-age=3600", "Vary": "Accept-Encoding"]
            if request.headers.listValues(for: "Accept-Encoding").contains("gzip") {
                headers["Content-Encoding"] = "gzip"
                headers["ETag"] = "\"gz\""
                return OriginResponse(headers: headers, body: .bytes(Self.gzipBytes))
            }
            headers["ETag"] = "\"id\""
            return .text(Self.gzipText, headers: headers)
        }
        try await GatewayHarness.run(origin: handler) { harness in
            let client = try Self.undecodingClient(harness)
            for (acceptEncoding, served) in [("gzip", "network"), ("br", "hit")] {
                // When
                let request = HTTPRequest(url: harness.origin.url("/text"),
                                          headers: ["Accept-Encoding": acceptEncoding])
                let reply = try await GatewayHarness.send(request, via: client)
                // Then: the identity representation with its own tag, acceptable to both clients
                #expect(reply.servedAs == served)
                #expect(reply.headers["Content-Encoding"] == nil)
                #expect(reply.headers["ETag"] == "\"id\"")
                #expect(String(decoding: reply.body, as: UTF8.self) == Self.gzipText)
                await harness.accessLog.waitForCount(served == "network" ? 1 : 2)
            }
            #expect(harness.origin.requests.map { $0.headers["Accept-Encoding"] } == [nil])
        }
    }

    // MARK: - Answers without content

    @Test(arguments: [true, false], [true, false])
    func a304OrTheAnswerToHeadDeclaresTheLengthOfTheStoredGet(conditional: Bool, sentWithALength: Bool) async throws {
        // Given: a stored response that the origin sent with a length, or chunked: the store knows
        // its length either way, and the gateway frames it itself (RFC 9110 §7.6.1)
        let handler: OriginServer.Handler = { _ in
            let headers: HTTPHeaders = ["ETag": "\"v1\"", "Cache-Control": "max-age=3600"]
            let body = Data("ten bytes.".utf8)
            return OriginResponse(headers: headers, body: .stream(contentLength: sentWithALength ? body.count : nil) {
                try $0.write(body)
            })
        }
        try await GatewayHarness.run(origin: handler, configure: { configuration, _ in
            // A safety net: on a busy machine the answer may take longer than seconds to start.
            configuration.idleTimeout = 300
        }) { harness in
            _ = try await harness.get("/logo")
            let target = harness.origin.url("/logo").absoluteString
            let request = conditional
                ? "GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nIf-None-Match: \"v1\"\r\n\r\n"
                : "HEAD \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
            // When: that request, then another on the same connection
            let (answer, next) = try await Self.blocking {
                let client = try RawClient(port: harness.gateway.port)
                try client.send(request)
                let answer = try client.readResponse(head: true)
                try client.send("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                return (answer, try client.readResponse())
            }
            // Then: the length of the GET's content (RFC 9110 §8.6, §9.3.2), no chunked framing
            #expect(answer.status == (conditional ? 304 : 200))
            #expect(answer.headers["Content-Length"] == "10")
            #expect(answer.headers["Transfer-Encoding"] == nil)
            #expect(next.status == 200)
            #expect(next.headers["Content-Length"] == "10")
            #expect(String(decoding: next.body, as: UTF8.self) == "ten bytes.")
        }
    }

    // MARK: - Helpers

    static let gzipText = String(repeating: "hello gzip ", count: 100)
    /// ``gzipText``, gzip-coded.
    static let gzipBytes = Data(base64Encoded: "H4sIAIylDGsC/8tIzcnJV0ivyixQyBhljjJHmaNMcpkATFbXD0wEAAA=")!

    /// A client of the gateway as a proxy that sends the request's own `Accept-Encoding` and leaves
    /// the content as it arrives.
    static func undecodingClient(_ harness: GatewayHarness) throws -> CurlTransport {
        var settings = CurlTransport.Configuration()
        settings.proxy = harness.gateway.url.absoluteString
        settings.decodeContent = false
        return try CurlTransport(configuration: settings)
    }

    /// Runs blocking socket calls on a thread of their own, so that they never hold up the tasks
    /// that serve the request.
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try work() }) }
        }
    }
}
