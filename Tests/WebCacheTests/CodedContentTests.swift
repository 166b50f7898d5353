import Foundation
import HTTPCore
import LocalOrigin
import Testing

@testable import WebCache

/// Content codings between the store and its callers: a body stored decoded is served with the
/// origin's tag made weak, and never handed to a proxy for a `no-transform` response while the origin
/// can answer; a body stored as its origin coded it is decoded for callers that decode.
@Suite(.timeLimit(.minutes(5)))
struct CodedContentTests {
    static let gzipBytes = ContentDecoderTests.gzipBytes
    static let gzipText = ContentDecoderTests.gzipText

    /// Loads `path` as a proxy does, taking the content as the origin codes it, so that it is stored so.
    private func storeAsCoded(_ path: String, in cache: WebCache) async throws -> LoadedResponse {
        var coded = WebRequest(path)
        coded.decodesContent = false
        return try await cache.data(for: coded)
    }

    // MARK: - Stored decoded

    @Test func aDecodedBodyIsServedWithAWeakTagAndRevalidatedWithTheOrigins() async throws {
        try await withCache(origin: { request in
            if request.headers["If-None-Match"] == "\"gz\"" {
                return OriginResponse(status: 304, headers: ["Cache-Control": "max-age=0", "ETag": "\"gz\""])
            }
            return OriginResponse(
                headers: ["Cache-Control": "max-age=0", "ETag": "\"gz\"", "Content-Encoding": "gzip"],
                body: .bytes(Self.gzipBytes))
        }) { (origin, cache) async throws in
            let first = try await cache.data(for: WebRequest("coded"))
            #expect(first.text == Self.gzipText)
            // The origin's strong tag names the gzip bytes, not these.
            #expect(first.headers["ETag"] == #"W/"gz""#)
            // The store keeps the origin's tag, which revalidation sends, and which a 304 with that
            // strong tag matches (RFC 9111 §4.3.4).
            #expect(try cache.storedVariants(origin.url("coded")).map { $0.headers["ETag"] } == ["\"gz\""])
            let second = try await cache.data(for: WebRequest("coded"))
            #expect(second.source == .revalidated)
            #expect(origin.requests.map { $0.headers["If-None-Match"] } == [nil, "\"gz\""])
            #expect(second.headers["ETag"] == #"W/"gz""#)
            #expect(second.text == first.text)
        }
    }

    @Test func aDecodedCopysLastModifiedDateDoesNotHoldForARange() async throws {
        let modified = HTTPDate.format(Date().addingTimeInterval(-3_600))
        try await withCache(origin: { _ in
            OriginResponse(
                headers: ["Cache-Control": "max-age=600", "ETag": "\"gz\"", "Last-Modified": modified,
                          "Content-Encoding": "gzip"],
                body: .bytes(Self.gzipBytes))
        }) { (_, cache) async throws in
            // Stored decoded; the coded bytes the origin sends share its date
            #expect(try await cache.data(for: WebRequest("coded")).text == Self.gzipText)
            // A client holding some of the coded bytes asks for the rest under the date
            let ranged = WebRequest("coded", headers: ["Range": "bytes=5-", "If-Range": modified])
            let answer = try await cache.data(for: ranged)
            #expect(answer.source == .hit)
            #expect(answer.status == 200, "the decoded bytes are another representation: all of them")
            #expect(answer.text == Self.gzipText)
        }
    }

    @Test func aCallerThatTakesCodedContentGetsADecodedNoTransformCopyOnlyFromTheCacheAlone() async throws {
        try await withCache(origin: { _ in
            OriginResponse(headers: ["Cache-Control": "max-age=600, no-transform", "Content-Encoding": "gzip"],
                           body: .bytes(Self.gzipBytes))
        }) { (origin, cache) async throws in
            // Stored decoded by a caller that decodes
            #expect(try await cache.data(for: WebRequest("coded")).source == .network)
            var coded = WebRequest("coded", headers: ["Cache-Control": "only-if-cached"])
            coded.decodesContent = false
            // A caller that asks the cache alone gets the copy it has
            #expect(try await cache.data(for: coded).source == .hit)
            #expect(origin.requestCount == 1)
            // Otherwise the origin is asked for the response as it codes it
            coded.headers.remove("Cache-Control")
            let fetched = try await cache.data(for: coded)
            #expect(fetched.source == .network)
            #expect(fetched.headers["Content-Encoding"] == "gzip")
            #expect(fetched.body == Self.gzipBytes)
            #expect(origin.requestCount == 2)
        }
    }

    // MARK: - Stored coded

    @Test func anEntryStoredCodedIsServedDecodedToACallerThatDecodes() async throws {
        // An origin that codes with gzip unasked
        try await withCache(origin: { _ in
            OriginResponse(headers: ["Cache-Control": "max-age=600", "Content-Encoding": "gzip", "ETag": "\"gz\""],
                           body: .bytes(Self.gzipBytes))
        }) { (origin, cache) async throws in
            #expect(try await storeAsCoded("coded", in: cache).body == Self.gzipBytes)

            for method in [HTTPMethod.get, .head] {
                let served = try await cache.data(for: WebRequest("coded", method: method))
                #expect(served.source == .hit)
                #expect(served.text == (method == .get ? Self.gzipText : ""))
                #expect(served.headers["Content-Encoding"] == nil)
                #expect(served.headers["Content-Length"] == nil)
                #expect(served.headers["ETag"] == #"W/"gz""#)
            }
            // The caller that takes content as coded still gets it so
            #expect(try await storeAsCoded("coded", in: cache).body == Self.gzipBytes)
            #expect(origin.requestCount == 1)
        }
    }

    @Test func anEntryStoredCodedThatDoesNotDecodeIsFetchedAgain() async throws {
        // The origin first claims gzip for plain text, then answers properly
        let answers = Shared(0)
        try await withCache(origin: { _ in
            answers.update { count -> Int in
                count += 1
                return count
            } == 1
                ? OriginResponse(headers: ["Cache-Control": "max-age=600", "Content-Encoding": "gzip"],
                                 body: .bytes(Data("not gzip".utf8)))
                : .text("plain", headers: ["Cache-Control": "max-age=600"])
        }) { (origin, cache) async throws in
            _ = try await storeAsCoded("claimed", in: cache)

            let served = try await cache.data(for: WebRequest("claimed"))
            #expect(served.source == .network)
            #expect(served.text == "plain")
            #expect(origin.requestCount == 2)
        }
    }

    /// An object stored compressed, whose origin answers a range with a slice of its coded bytes
    /// whatever the request accepts: the slice is passed on as coded, with its coding named.
    @Test func aCodedRangeFromTheOriginIsPassedOnAsCoded() async throws {
        try await withCache(origin: { request in
            .ranged(Self.gzipBytes, headers: ["Content-Encoding": "gzip", "ETag": "\"gz\"",
                                              "Cache-Control": "max-age=600"], request: request)
        }) { (origin, cache) async throws in
            let slice = try await cache.data(for: WebRequest("object", headers: ["Range": "bytes=10-19"]))

            #expect(slice.status == 206)
            #expect(slice.body == Self.gzipBytes.subdata(in: 10..<20))
            #expect(slice.headers["Content-Encoding"] == "gzip")
            #expect(slice.headers["Content-Range"] == "bytes 10-19/\(Self.gzipBytes.count)")
            // A range is asked for without inviting a coding that could not be decoded
            #expect(origin.requests.first?.headers["Accept-Encoding"] == nil)
        }
    }

    @Test func aBodyDecodedFromTheStorePastTheCallersLimitFails() async throws {
        try await withCache(origin: { _ in
            OriginResponse(headers: ["Cache-Control": "max-age=600", "Content-Encoding": "gzip"],
                           body: .bytes(Self.gzipBytes))
        }) { (_, cache) async throws in
            _ = try await storeAsCoded("coded", in: cache)
            // 41 coded bytes, 1,100 decoded
            var limited = WebRequest("coded")
            limited.maximumBodySize = 1_000
            let error = await #expect(throws: WebCacheError.self) { try await cache.data(for: limited) }
            #expect(error?.code == .tooLarge)
        }
    }
}
