import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import Transport
import WebCache
import WebCacheTestSupport

@testable import CacheStore
@testable import Gateway

/// Fresh hits are answered on the connection's thread straight from the store, their bodies copied
/// from SQLite into the server's buffer: what the client gets must be what the loader would give,
/// byte for byte and field for field, for every size, HEAD, 304, a client that leaves, and a body
/// found damaged. A real origin, store and gateway; real clients.
@Suite(.timeLimit(.minutes(5)))
struct StoredHitTests {
    /// Deterministic bytes that differ from one chunk to the next.
    static func body(size: Int) -> Data {
        Data((0..<size).map { UInt8(truncatingIfNeeded: ($0 &* 31) ^ ($0 >> 12)) })
    }

    /// An origin that serves `/size/N` as N bytes, cacheable for an hour, with an ETag and a date.
    static let sizedOrigin: OriginServer.Handler = { request in
        let size = Int(request.path.split(separator: "/").last ?? "") ?? 0
        return OriginResponse(
            status: 200,
            headers: ["Cache-Control": "max-age=3600", "ETag": "\"s\(size)\"", "Content-Type": "application/octet-stream",
                      "Last-Modified": "Sat, 01 Jan 2033 00:00:00 GMT"],
            body: .bytes(body(size: size)))
    }

    static let chunk = CacheStore.chunkSize

    /// Zeroes chunk `seq` (or every chunk) of the stored body of `path`, as a failing disk might.
    static func damage(_ path: String, in harness: GatewayHarness, seq: Int64? = nil) async throws {
        let url = harness.origin.url(path).cacheKey.absoluteString
        let bodyID = try #require(try harness.cache.store.entry(url: url)?.bodyID)
        try await harness.cache.store.write("damage \(path)") { connection in
            try connection.run(
                "UPDATE body_chunk SET data = zeroblob(length(data)) WHERE body_id = ?1 AND (?2 IS NULL OR seq = ?2)",
                [.integer(bodyID), seq.map { .integer($0) } ?? .null])
        }
    }

    // MARK: - Bodies

    @Test(arguments: [0, 1, 399, chunk - 1, chunk, chunk + 1, 2 * chunk + 1_000, 4 * chunk])
    func aStoredBodyOfAnySizeIsServedFromTheStoreAsTheLoaderServesIt(size: Int) async throws {
        try await GatewayHarness.run(origin: Self.sizedOrigin) { harness in
            // Given
            let path = "/size/\(size)"
            let first = try await harness.get(path)
            let answeredBefore = harness.gateway.storeAnswers.load(ordering: .relaxed)

            // When
            let hit = try await harness.get(path)

            // Then: answered from the store, not through the loader
            #expect(harness.gateway.storeAnswers.load(ordering: .relaxed) == answeredBefore + 1)
            #expect(first.servedAs == "network")
            #expect(hit.status == 200)
            #expect(hit.servedAs == "hit")
            #expect(hit.body == Self.body(size: size))
            #expect(hit.headers["Content-Length"] == String(size))
            #expect(harness.origin.requestCount == 1)
            // And: field for field what the library's loader gives for the same request
            let loaded = try await harness.cache.data(for: WebRequest(harness.origin.url(path).absoluteString))
            #expect(loaded.source == .hit)
            #expect(loaded.body == hit.body)
            for field in loaded.headers where !["age", "date"].contains(field.name.lowercased()) {
                #expect(hit.headers[field.name] == field.value, "\(field.name)")
            }
            #expect(hit.headers["Via"]?.hasSuffix(harness.gateway.viaPseudonym) == true)
            let logged = try #require(harness.accessLog.all.last)
            #expect(logged.source == .hit && logged.isComplete && logged.bodyBytes == Int64(size))
        }
    }

    @Test func aHeadRequestGetsTheStoredLengthAndNoBody() async throws {
        try await GatewayHarness.run(origin: Self.sizedOrigin) { harness in
            let path = "/size/\(3 * Self.chunk)"
            _ = try await harness.get(path)
            let answeredBefore = harness.gateway.storeAnswers.load(ordering: .relaxed)

            let client = try RawClient(port: harness.gateway.port)
            try client.send("HEAD \(harness.origin.url(path).absoluteString) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let head = try client.readResponse(head: true)
            // The connection carries on with the next request: nothing of a body was sent.
            try client.send("GET \(harness.origin.url("/size/10").absoluteString) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            let next = try client.readResponse()

            #expect(head.status == 200)
            #expect(head.headers["X-WebCache"] == "hit")
            #expect(head.headers["Content-Length"] == String(3 * Self.chunk))
            #expect(harness.gateway.storeAnswers.load(ordering: .relaxed) == answeredBefore + 1)
            #expect(next.status == 200)
            #expect(next.body == Self.body(size: 10))
        }
    }

    @Test(arguments: [("If-None-Match", "\"s600000\""), ("If-Modified-Since", "Sun, 01 Jan 2034 00:00:00 GMT")])
    func aConditionalRequestIsAnswered304FromTheStore(field: String, value: String) async throws {
        try await GatewayHarness.run(origin: Self.sizedOrigin) { harness in
            _ = try await harness.get("/size/600000")
            let answeredBefore = harness.gateway.storeAnswers.load(ordering: .relaxed)

            let conditional = try await harness.get("/size/600000", headers: [field: value])
            let otherTag = try await harness.get("/size/600000", headers: ["If-None-Match": "\"other\""])

            #expect(conditional.status == 304)
            #expect(conditional.body.isEmpty)
            #expect(conditional.servedAs == "hit")
            #expect(conditional.headers["ETag"] == "\"s600000\"")
            #expect(otherTag.status == 200)
            #expect(otherTag.body == Self.body(size: 600_000))
            #expect(harness.gateway.storeAnswers.load(ordering: .relaxed) == answeredBefore + 2)
            #expect(harness.origin.requestCount == 1)
        }
    }

    @Test func aRangeOfAStoredBodyIsStillCutByTheLoader() async throws {
        try await GatewayHarness.run(origin: Self.sizedOrigin) { harness in
            _ = try await harness.get("/size/700000")
            let answeredBefore = harness.gateway.storeAnswers.load(ordering: .relaxed)

            let ranged = try await harness.get("/size/700000", headers: ["Range": "bytes=300000-300099"])

            #expect(ranged.status == 206)
            #expect(ranged.servedAs == "hit")
            #expect(ranged.body == Self.body(size: 700_000).subdata(in: 300_000..<300_100))
            #expect(ranged.headers["Content-Range"] == "bytes 300000-300099/700000")
            #expect(harness.gateway.storeAnswers.load(ordering: .relaxed) == answeredBefore)
        }
    }

    @Test func aVariantForOtherRequestFieldsIsNotServedFromTheStore() async throws {
        let handler: OriginServer.Handler = { request in
            .text("lang \(request.headers["Accept-Language"] ?? "none")",
                  headers: ["Cache-Control": "max-age=3600", "Vary": "Accept-Language"])
        }
        try await GatewayHarness.run(origin: handler) { harness in
            _ = try await harness.get("/page", headers: ["Accept-Language": "de"])

            let german = try await harness.get("/page", headers: ["Accept-Language": "de"])
            let french = try await harness.get("/page", headers: ["Accept-Language": "fr"])

            #expect(german.servedAs == "hit")
            #expect(String(decoding: german.body, as: UTF8.self) == "lang de")
            #expect(french.servedAs == "network")
            #expect(String(decoding: french.body, as: UTF8.self) == "lang fr")
        }
    }

    // MARK: - Clients that leave, bodies that break

    @Test func aClientThatLeavesMidBodyIsLoggedIncompleteAndTheGatewayServesOn() async throws {
        try await GatewayHarness.run(origin: Self.sizedOrigin) { harness in
            let size = 40 * Self.chunk
            let path = "/size/\(size)"
            _ = try await harness.get(path)
            let logged = harness.accessLog.all.count

            // When: a client reads the head and a little of the body, then closes its connection
            let received = try await Self.readThenLeave(
                port: harness.gateway.port, target: harness.origin.url(path).absoluteString, bytes: 100_000)
            await harness.accessLog.waitForCount(logged + 1)

            // Then
            #expect(received >= 100_000 && received < size)
            let entry = try #require(harness.accessLog.all.last)
            #expect(entry.source == .hit)
            #expect(!entry.isComplete)
            #expect(entry.bodyBytes < Int64(size))
            let again = try await harness.get(path)
            #expect(again.servedAs == "hit")
            #expect(again.body.count == size)
            #expect(harness.accessLog.all.last?.isComplete == true)
            #expect(harness.origin.requestCount == 1)
        }
    }

    @Test func aBodyOfOneChunkFoundDamagedIsFetchedAgainBeforeAnythingIsSent() async throws {
        try await GatewayHarness.run(origin: Self.sizedOrigin) { harness in
            _ = try await harness.get("/size/5000")
            try await Self.damage("/size/5000", in: harness)

            let refetched = try await harness.get("/size/5000")
            let hit = try await harness.get("/size/5000")

            #expect(refetched.status == 200)
            #expect(refetched.servedAs == "network")
            #expect(refetched.body == Self.body(size: 5000))
            #expect(hit.servedAs == "hit")
            #expect(hit.body == Self.body(size: 5000))
            #expect(harness.origin.requestCount == 2)
        }
    }

    @Test func aBodyFoundDamagedMidStreamBreaksOffAndIsDroppedFromTheStore() async throws {
        try await GatewayHarness.run(origin: Self.sizedOrigin) { harness in
            let size = 3 * Self.chunk + 5
            let path = "/size/\(size)"
            _ = try await harness.get(path)
            try await Self.damage(path, in: harness, seq: 1)
            let logged = harness.accessLog.all.count

            // When: the head has gone out when the second chunk is found damaged
            let response = try await harness.proxied.send(HTTPRequest(url: harness.origin.url(path)))
            var received = Data()
            var broke = false
            do {
                for try await piece in response.body { received.append(piece) }
            } catch {
                broke = true
            }
            await harness.accessLog.waitForCount(logged + 1)

            // Then: the client got the sound first chunk and a transfer that broke off, never a short body
            #expect(response.head.status == 200)
            #expect(response.head.headers["X-WebCache"] == "hit")
            #expect(response.head.headers["Content-Length"] == String(size))
            #expect(broke)
            #expect(received.count < size)
            #expect(received == Self.body(size: size).prefix(received.count))
            #expect(harness.accessLog.all.last?.isComplete == false)
            // And: the damaged copy is gone, so the next request fetches it again and stores it anew
            #expect(try harness.cache.store.entry(url: harness.origin.url(path).cacheKey.absoluteString) == nil)
            let refetched = try await harness.get(path)
            #expect(refetched.servedAs == "network")
            #expect(refetched.body == Self.body(size: size))
            #expect(try await harness.get(path).servedAs == "hit")
            #expect(harness.origin.requestCount == 2)
        }
    }

    /// Sends a GET for `target` as a proxy request, reads the head and at least `bytes` more, then
    /// closes the connection; returns how many bytes of the body it had read. Blocking socket calls,
    /// on a thread of its own.
    static func readThenLeave(port: UInt16, target: String, bytes: Int) async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    guard let socket = RawClient.connect(port: port) else {
                        throw SocketFailure(description: "connect to port \(port) failed")
                    }
                    defer { close(socket) }
                    let request = Array("GET \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8)
                    guard send(socket, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
                        throw SocketFailure(description: "send failed")
                    }
                    var received: [UInt8] = []
                    var buffer = [UInt8](repeating: 0, count: 16_384)
                    let marker: [UInt8] = [13, 10, 13, 10]
                    var headEnd: Int?
                    while headEnd == nil || received.count - headEnd! < bytes {
                        let count = recv(socket, &buffer, buffer.count, 0)
                        guard count > 0 else { throw SocketFailure(description: "closed early") }
                        received += buffer[..<count]
                        if headEnd == nil, received.count >= 4 {
                            headEnd = (0...(received.count - 4)).first { received[$0..<$0 + 4].elementsEqual(marker) }
                                .map { $0 + 4 }
                        }
                    }
                    return received.count - headEnd!
                })
            }
        }
    }

    /// A socket call of ``readThenLeave(port:target:bytes:)`` failed.
    struct SocketFailure: Error, CustomStringConvertible {
        var description: String
    }
}
