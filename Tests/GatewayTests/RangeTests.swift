import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import WebCache

@testable import Gateway

/// Range requests through the gateway (RFC 9110 §14), answered from the store, and partial
/// responses stored, combined and completed (RFC 9111 §3.3, §3.4), with a real origin.
@Suite(.timeLimit(.minutes(1)))
struct RangeTests {
    /// A million bytes that differ from one position to the next, over four store chunks.
    static let content = Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })

    /// An origin that serves `content` under `etag` with ranges, and counts what it was asked.
    static func origin(etag: String = #""v1""#, content: Data = content) -> OriginServer.Handler {
        { request in
            .ranged(content, headers: ["ETag": etag, "Cache-Control": "max-age=3600",
                                       "Content-Type": "application/octet-stream"], request: request)
        }
    }

    static func bytes(_ range: ClosedRange<Int>, of data: Data = content) -> Data {
        Data(data[range])
    }

    /// The ranged requests every check below sends, with what each must answer.
    static func expectRangesAnswered(by harness: GatewayHarness, servedAs: String) async throws {
        let single = try await harness.get("/video", headers: ["Range": "bytes=200000-300000"])
        #expect(single.status == 206)
        #expect(single.headers["Content-Range"] == "bytes 200000-300000/1000000")
        #expect(single.headers["Content-Length"] == "100001")
        #expect(single.body == bytes(200_000...300_000))
        #expect(single.servedAs == servedAs)

        let open = try await harness.get("/video", headers: ["Range": "bytes=999000-"])
        #expect(open.status == 206)
        #expect(open.headers["Content-Range"] == "bytes 999000-999999/1000000")
        #expect(open.body == bytes(999_000...999_999))

        let suffix = try await harness.get("/video", headers: ["Range": "bytes=-10"])
        #expect(suffix.status == 206)
        #expect(suffix.body == bytes(999_990...999_999))

        let several = try await harness.get("/video", headers: ["Range": "bytes=0-9,500000-500009"])
        try expectMultipart(several, of: [0...9, 500_000...500_009])

        let past = try await harness.get("/video", headers: ["Range": "bytes=1000000-"])
        #expect(past.status == 416)
        #expect(past.headers["Content-Range"] == "bytes */1000000")
        #expect(past.body.isEmpty)

        let otherVersion = try await harness.get("/video", headers: ["Range": "bytes=0-9", "If-Range": #""v0""#])
        #expect(otherVersion.status == 200)
        #expect(otherVersion.body == content)

        let sameVersion = try await harness.get("/video", headers: ["Range": "bytes=0-9", "If-Range": #""v1""#])
        #expect(sameVersion.status == 206)
        #expect(sameVersion.body == bytes(0...9))

        // RFC 9110 §13.2.2: If-None-Match comes before Range.
        let unchanged = try await harness.get("/video", headers: ["Range": "bytes=0-9", "If-None-Match": #""v1""#])
        #expect(unchanged.status == 304)
        #expect(unchanged.body.isEmpty)
        // A 304 declares the length a 200 would have (RFC 9110 §8.6), not the range's, or none.
        #expect(unchanged.headers["Content-Length"] == "1000000")
        let unchangedParts = try await harness.get(
            "/video", headers: ["Range": "bytes=0-9,20-29", "If-None-Match": #""v1""#])
        #expect(unchangedParts.status == 304)
        #expect(unchangedParts.headers["Content-Length"] == nil)
        // ... and before a range that cannot be satisfied: the client's copy is current.
        for tag in [#""v1""#, "*"] {
            let unchangedPast = try await harness.get(
                "/video", headers: ["Range": "bytes=1000000-", "If-None-Match": tag])
            #expect(unchangedPast.status == 304, "\(tag)")
            #expect(unchangedPast.headers["Content-Length"] == "1000000")
        }
    }

    @Test func rangesOfACompleteEntryComeFromTheStoreOnlineAndOffline() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "gateway-ranges-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = OriginServer(handler: Self.origin())
        try origin.start()
        defer { origin.stop() }
        let cache = try GatewayHarness.makeCache(folder: folder)
        // Given the whole response stored
        try await GatewayHarness.serve(cache: cache, origin: origin) { harness in
            let whole = try await harness.get("/video")
            #expect(whole.body == Self.content)
            // When ranges are asked online, then Then they come from the store
            try await Self.expectRangesAnswered(by: harness, servedAs: "hit")
        }
        // And offline too
        try await GatewayHarness.serve(cache: cache, origin: origin, configure: { configuration, _ in
            configuration.offline = true
        }) { harness in
            try await Self.expectRangesAnswered(by: harness, servedAs: "hit")
        }
        #expect(origin.requestCount == 1)
        await cache.close()
    }

    @Test func a206IsStoredAndCompletedByALaterRange() async throws {
        try await GatewayHarness.run(origin: Self.origin()) { harness in
            // Given a first range fetched from the origin and kept as a partial entry
            let first = try await harness.get("/video", headers: ["Range": "bytes=0-599999"])
            #expect(first.status == 206)
            #expect(first.servedAs == "network")
            #expect(first.body == Self.bytes(0...599_999))
            let url = harness.origin.url("/video").absoluteString
            #expect(try harness.cache.store.variants(url: url).isEmpty, "a partial entry is never a response")
            let partial = try #require(try harness.cache.store.partialVariants(url: url).first)
            #expect(partial.parts.map(\.span) == [0...599_999])

            // When a range inside it is asked, it comes from the parts
            let inside = try await harness.get("/video", headers: ["Range": "bytes=100-199"])
            #expect(inside.status == 206)
            #expect(inside.servedAs == "hit")
            #expect(inside.headers["Content-Range"] == "bytes 100-199/1000000")
            #expect(inside.body == Self.bytes(100...199))
            #expect(harness.origin.requestCount == 1)

            // When a range only partly held is asked, only the missing bytes are fetched
            let rest = try await harness.get("/video", headers: ["Range": "bytes=500000-"])
            #expect(rest.status == 206)
            #expect(rest.body == Self.bytes(500_000...999_999))
            let asked = try #require(harness.origin.requests.last)
            #expect(asked.headers["Range"] == "bytes=600000-999999")
            #expect(asked.headers["If-Range"] == #""v1""#)

            // Then the entry is complete, and the whole response is a hit
            #expect(try harness.cache.store.partialVariants(url: url).isEmpty)
            let entry = try #require(try harness.cache.store.variants(url: url).first)
            #expect(entry.status == 200)
            #expect(entry.bodySize == 1_000_000)
            #expect(entry.headers["Content-Range"] == nil)
            let whole = try await harness.get("/video")
            #expect(whole.status == 200)
            #expect(whole.servedAs == "hit")
            #expect(whole.body == Self.content)
            #expect(harness.origin.requestCount == 2)
        }
    }

    /// Expects `reply` to be a 206 of `ranges` of `content` as `multipart/byteranges`, in that order.
    static func expectMultipart(
        _ reply: GatewayHarness.Reply, of ranges: [ClosedRange<Int>], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(reply.status == 206, sourceLocation: sourceLocation)
        let type = try #require(reply.headers["Content-Type"], sourceLocation: sourceLocation)
        #expect(type.hasPrefix("multipart/byteranges; boundary="), sourceLocation: sourceLocation)
        let boundary = String(type.dropFirst("multipart/byteranges; boundary=".count))
        let expected = multipart(ranges, boundary: boundary)
        #expect(reply.body == expected, sourceLocation: sourceLocation)
        #expect(reply.headers["Content-Length"] == String(expected.count), sourceLocation: sourceLocation)
    }

    /// The body of a `multipart/byteranges` answer of `ranges` of `content` under `boundary`.
    static func multipart(_ ranges: [ClosedRange<Int>], boundary: String) -> Data {
        var body = Data()
        for range in ranges {
            body += Data(("--\(boundary)\r\nContent-Type: application/octet-stream\r\n"
                + "Content-Range: bytes \(range.lowerBound)-\(range.upperBound)/1000000\r\n\r\n").utf8)
            body += bytes(range) + Data("\r\n".utf8)
        }
        return body + Data("--\(boundary)--\r\n".utf8)
    }

    @Test func severalRangesThePartsHoldAreServedFromThem() async throws {
        try await GatewayHarness.run(origin: Self.origin()) { harness in
            // Given two parts, far apart
            for range in ["bytes=0-999", "bytes=500000-500999"] {
                #expect(try await harness.get("/video", headers: ["Range": range]).status == 206)
            }
            // When several ranges they hold are asked at once, in no order
            let several = try await harness.get("/video", headers: ["Range": "bytes=500100-500109,0-9,900-909"])
            // Then they come from the parts, as from a complete entry, in the order asked
            #expect(several.servedAs == "hit")
            try Self.expectMultipart(several, of: [500_100...500_109, 0...9, 900...909])
            // and ranges that touch are one
            let touching = try await harness.get("/video", headers: ["Range": "bytes=10-19,0-9"])
            #expect(touching.status == 206)
            #expect(touching.headers["Content-Range"] == "bytes 0-19/1000000")
            #expect(touching.body == Self.bytes(0...19))
            #expect(harness.origin.requestCount == 2)
            // while several ranges that are not all held go to the origin as asked
            let partly = try await harness.get("/video", headers: ["Range": "bytes=0-9,600000-600009"])
            #expect(partly.status == 206)
            #expect(harness.origin.requests.last?.headers["Range"] == "bytes=0-9,600000-600009")
        }
    }

    @Test func twoPartialResponsesAreCombined() async throws {
        try await GatewayHarness.run(origin: Self.origin()) { harness in
            let url = harness.origin.url("/video").absoluteString
            // Given two ranges that do not touch, fetched one after the other
            _ = try await harness.get("/video", headers: ["Range": "bytes=0-99"])
            let second = try await harness.get("/video", headers: ["Range": "bytes=300000-400000"])
            #expect(second.status == 206)
            #expect(second.body == Self.bytes(300_000...400_000))
            // Then one partial entry holds both parts
            let partials = try harness.cache.store.partialVariants(url: url)
            #expect(partials.count == 1)
            #expect(partials.first?.parts.map(\.span) == [0...99, 300_000...400_000])
            #expect(partials.first.map(\.entry.bodySize) == Int64(100 + 100_001))
            // And both are served from the store
            let fromFirst = try await harness.get("/video", headers: ["Range": "bytes=10-19"])
            let fromSecond = try await harness.get("/video", headers: ["Range": "bytes=350000-350009"])
            #expect(fromFirst.servedAs == "hit")
            #expect(fromFirst.body == Self.bytes(10...19))
            #expect(fromSecond.servedAs == "hit")
            #expect(fromSecond.body == Self.bytes(350_000...350_009))
            // A range across the gap fetches only the gap, and joins all three
            let across = try await harness.get("/video", headers: ["Range": "bytes=50-300049"])
            #expect(across.body == Self.bytes(50...300_049))
            #expect(harness.origin.requests.last?.headers["Range"] == "bytes=100-299999")
            #expect(try harness.cache.store.partialVariants(url: url).first?.parts.count == 3)
            #expect(harness.origin.requestCount == 3)
        }
    }

    @Test func aChangedValidatorDiscardsTheParts() async throws {
        let current = Mutex((etag: #""v1""#, content: Self.content))
        let changed = Data(Self.content.reversed())
        let handler: OriginServer.Handler = { request in
            let (etag, content) = current.withLock { $0 }
            return Self.origin(etag: etag, content: content)(request)
        }
        try await GatewayHarness.run(origin: handler) { harness in
            let url = harness.origin.url("/video").absoluteString
            // Given a part of version 1 stored
            _ = try await harness.get("/video", headers: ["Range": "bytes=0-99"])
            #expect(try harness.cache.store.partialVariants(url: url).count == 1)
            // When the origin changes the representation and another range is asked
            current.withLock { $0 = (#""v2""#, changed) }
            let reply = try await harness.get("/video", headers: ["Range": "bytes=200-299"])
            // Then If-Range fails at the origin, which sends the new representation whole
            #expect(reply.status == 200)
            #expect(reply.body == changed)
            #expect(harness.origin.requests.last?.headers["If-Range"] == #""v1""#)
            // And the parts of version 1 are gone: the new version is stored complete
            #expect(try harness.cache.store.partialVariants(url: url).isEmpty)
            let entry = try #require(try harness.cache.store.variants(url: url).first)
            #expect(entry.etag == #""v2""#)
            let part = try await harness.get("/video", headers: ["Range": "bytes=0-99"])
            #expect(part.servedAs == "hit")
            #expect(part.body == changed.subdata(in: 0..<100))
        }
    }

    @Test func aStalePartialEntryIsRevalidatedBeforeUse() async throws {
        let handler: OriginServer.Handler = { request in
            .ranged(Self.content, headers: ["ETag": #""v1""#, "Cache-Control": "max-age=0"], request: request)
        }
        try await GatewayHarness.run(origin: handler) { harness in
            _ = try await harness.get("/video", headers: ["Range": "bytes=0-999"])
            // The part is stale at once: the same range goes to the origin again, under If-Range.
            let again = try await harness.get("/video", headers: ["Range": "bytes=0-99"])
            #expect(again.status == 206)
            #expect(again.body == Self.bytes(0...99))
            #expect(harness.origin.requestCount == 2)
            #expect(harness.origin.requests.last?.headers["If-Range"] == #""v1""#)
            #expect(harness.origin.requests.last?.headers["Range"] == "bytes=0-99")
        }
    }

    /// Whether the origin of ``aStalePartialEntryStandsInWhenTheOriginFails()`` fails.
    final class Failing: Sendable {
        let on = Atomic<Bool>(false)
    }

    /// RFC 5861 §4: a stale partial entry that holds the bytes asked for stands in when the origin
    /// answers with an error or cannot be reached, as a complete entry does.
    @Test func aStalePartialEntryStandsInWhenTheOriginFails() async throws {
        let failing = Failing()
        let handler: OriginServer.Handler = { request in
            if failing.on.load(ordering: .relaxed) { return .text("down for maintenance", status: 503) }
            let headers: HTTPHeaders = [
                "ETag": #""v1""#, "Cache-Control": "max-age=0, stale-if-error=86400",
                "Content-Type": "application/octet-stream",
            ]
            return .ranged(Self.content, headers: headers, request: request)
        }
        try await GatewayHarness.run(origin: handler) { harness in
            _ = try await harness.get("/video", headers: ["Range": "bytes=0-999"])
            failing.on.store(true, ordering: .relaxed)

            // The origin answers 503: the stale parts answer instead, one range or several
            let one = try await harness.get("/video", headers: ["Range": "bytes=100-199"])
            #expect(one.status == 206)
            #expect(one.body == Self.bytes(100...199))
            #expect(one.servedAs == "stale")
            let several = try await harness.get("/video", headers: ["Range": "bytes=0-9,500-509"])
            try Self.expectMultipart(several, of: [0...9, 500...509])
            // Bytes the parts do not hold get the origin's answer
            let beyond = try await harness.get("/video", headers: ["Range": "bytes=900-1100"])
            #expect(beyond.status == 503)

            // The origin cannot be reached at all: the same
            harness.origin.stop()
            let unreachable = try await harness.get("/video", headers: ["Range": "bytes=100-199"])
            #expect(unreachable.status == 206)
            #expect(unreachable.body == Self.bytes(100...199))
        }
    }

    @Test func offlineAPartialEntryServesWhatItHoldsAndNothingElse() async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "gateway-parts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = OriginServer(handler: Self.origin())
        try origin.start()
        defer { origin.stop() }
        let cache = try GatewayHarness.makeCache(folder: folder)
        try await GatewayHarness.serve(cache: cache, origin: origin) { harness in
            _ = try await harness.get("/video", headers: ["Range": "bytes=0-999"])
        }
        try await GatewayHarness.serve(cache: cache, origin: origin, configure: { configuration, _ in
            configuration.offline = true
        }) { harness in
            let held = try await harness.get("/video", headers: ["Range": "bytes=0-99"])
            #expect(held.status == 206)
            #expect(held.body == Self.bytes(0...99))
            // Never served as a complete response
            let whole = try await harness.get("/video")
            #expect(whole.status == 504)
            let beyond = try await harness.get("/video", headers: ["Range": "bytes=500-1500"])
            #expect(beyond.status == 504)
            // Several ranges it holds are served; several it does not all hold are not in the store
            let several = try await harness.get("/video", headers: ["Range": "bytes=0-9,500-509"])
            try Self.expectMultipart(several, of: [0...9, 500...509])
            let partly = try await harness.get("/video", headers: ["Range": "bytes=0-9,5000-5009"])
            #expect(partly.status == 504)
        }
        #expect(origin.requestCount == 1)
        await cache.close()
    }

    // MARK: - Framing and stored fields (RFC 9110 §7.6.1, RFC 9111 §3.1, §3.2)

    @Test func hopByHopFieldsAreNeitherStoredNorForwarded() async throws {
        let handler: OriginServer.Handler = { request in
            OriginResponse(
                headers: ["Cache-Control": "max-age=60", "Connection": "X-Hop", "X-Hop": "1", "Keep-Alive": "timeout=5",
                          "Proxy-Authenticate": "Basic", "X-Kept": "yes"],
                body: .stream { writer in try writer.write("chunked "); try writer.write("body") })
        }
        try await GatewayHarness.run(origin: handler) { harness in
            let network = try await harness.get("/hop")
            let hit = try await harness.get("/hop")
            for reply in [network, hit] {
                #expect(reply.body == Data("chunked body".utf8))
                #expect(reply.headers["X-Kept"] == "yes")
                for name in ["X-Hop", "Keep-Alive", "Proxy-Authenticate"] {
                    #expect(reply.headers[name] == nil, "\(name) crossed the gateway")
                }
            }
            #expect(hit.servedAs == "hit")
            #expect(hit.headers["Content-Length"] == "12", "the gateway frames a stored response itself")
            let url = harness.origin.url("/hop").absoluteString
            let stored = try #require(try harness.cache.store.variants(url: url).first)
            for name in ["Connection", "X-Hop", "Keep-Alive", "Proxy-Authenticate", "Transfer-Encoding"] {
                #expect(stored.headers[name] == nil, "\(name) was stored")
            }
            #expect(stored.headers["X-Kept"] == "yes")
        }
    }

    @Test func a304UpdatesTheStoredContentType() async throws {
        let handler: OriginServer.Handler = { request in
            if request.headers["If-None-Match"] == #""t""# {
                return OriginResponse(status: 304, headers: ["ETag": #""t""#, "Cache-Control": "max-age=0",
                                                             "Content-Type": "text/html; charset=utf-8"])
            }
            return .text("<p>hi</p>", headers: ["ETag": #""t""#, "Cache-Control": "max-age=0"])
        }
        try await GatewayHarness.run(origin: handler) { harness in
            let first = try await harness.get("/page")
            #expect(first.headers["Content-Type"] == "text/plain; charset=utf-8")
            let revalidated = try await harness.get("/page")
            #expect(revalidated.servedAs == "revalidated")
            #expect(revalidated.headers["Content-Type"] == "text/html; charset=utf-8")
            let url = harness.origin.url("/page").absoluteString
            let stored = try #require(try harness.cache.store.variants(url: url).first)
            #expect(stored.contentType == "text/html; charset=utf-8")
            #expect(stored.headers["Content-Length"] == "9")
        }
    }

    @Test func aHeadThatConfirmsTheStoredResponseUpdatesItsFields() async throws {
        // RFC 9111 §4.3.5: a 200 to HEAD with the stored validators updates the stored GET response (§3.2).
        let state = Mutex((etag: #""h1""#, type: "text/plain"))
        let handler: OriginServer.Handler = { request in
            let (etag, type) = state.withLock { $0 }
            if request.method == .get, request.headers["If-None-Match"] == etag {
                return OriginResponse(status: 304, headers: ["ETag": etag, "Cache-Control": "max-age=0"])
            }
            return .text("document", contentType: type, headers: ["ETag": etag, "Cache-Control": "max-age=0"])
        }
        try await GatewayHarness.run(origin: handler) { harness in
            let url = harness.origin.url("/doc").absoluteString
            _ = try await harness.get("/doc")
            state.withLock { $0.type = "text/markdown" }
            let head = try await harness.get("/doc", method: .head)
            #expect(head.status == 200)
            #expect(head.headers["Content-Type"] == "text/markdown")
            let stored = try #require(try harness.cache.store.variants(url: url).first)
            #expect(stored.contentType == "text/markdown")
            #expect(try harness.cache.store.bodyData(bodyID: try #require(stored.bodyID)) == Data("document".utf8))

            // A HEAD with another validator shows the stored response outdated: it goes.
            state.withLock { $0.etag = #""h2""# }
            _ = try await harness.get("/doc", method: .head)
            #expect(try harness.cache.store.variants(url: url).isEmpty)
        }
    }
}
