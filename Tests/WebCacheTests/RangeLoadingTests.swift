import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

@testable import WebCache

/// A `WebRequest` with `Range` is answered from the store (RFC 9110 §14), whatever the policy.
@Suite(.timeLimit(.minutes(1)))
struct RangeLoadingTests {
    static let content = Data((0..<600_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 10) })

    static let origin: OriginServer.Handler = { request in
        .ranged(content, headers: ["ETag": #""c1""#, "Cache-Control": "max-age=600", "Content-Type": "audio/ogg"],
                request: request)
    }

    @Test(arguments: [CachePolicy.useProtocolCachePolicy, .returnCacheDataElseLoad, .returnCacheDataDontLoad])
    func aRangeOfAStoredResponseComesFromTheStore(policy: CachePolicy) async throws {
        try await withCache(origin: Self.origin) { origin, cache in
            _ = try await cache.data(for: WebRequest("clip.ogg"))
            let ranged = try await cache.data(
                for: WebRequest("clip.ogg", headers: ["Range": "bytes=262000-262299"]), policy: policy)
            #expect(ranged.status == 206)
            #expect(ranged.source == .hit)
            #expect(ranged.headers["Content-Range"] == "bytes 262000-262299/600000")
            #expect(ranged.headers["Content-Type"] == "audio/ogg")
            #expect(ranged.body == Self.content.subdata(in: 262_000..<262_300))
            let unsatisfiable = try await cache.data(
                for: WebRequest("clip.ogg", headers: ["Range": "bytes=600000-"]), policy: policy)
            #expect(unsatisfiable.status == 416)
            #expect(unsatisfiable.headers["Content-Range"] == "bytes */600000")
            #expect(origin.requestCount == 1)
        }
    }

    @Test func aRangeOverTheBodyLimitIsRefusedAndOneUnderItServed() async throws {
        try await withCache(origin: Self.origin) { _, cache in
            _ = try await cache.data(for: WebRequest("clip.ogg"))
            var small = WebRequest("clip.ogg", headers: ["Range": "bytes=0-999"])
            small.maximumBodySize = 1_000
            #expect(try await cache.data(for: small).body.count == 1_000)
            var large = WebRequest("clip.ogg", headers: ["Range": "bytes=0-1000"])
            large.maximumBodySize = 1_000
            let error = await #expect(throws: WebCacheError.self) { try await cache.data(for: large) }
            #expect(error?.code == .tooLarge)
        }
    }
}
