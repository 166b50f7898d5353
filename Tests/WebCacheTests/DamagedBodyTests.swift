import Discovery
import Foundation
import HTTPCore
import LocalOrigin
import Testing

@testable import CacheStore
@testable import WebCache

/// A stored body whose bytes were changed in the store file is never served as the stored response:
/// the loader goes to the network when the policy allows it and stores the answer in its place, and
/// otherwise fails naming the URL. A real origin on 127.0.0.1 and a real store file.
@Suite(.timeLimit(.minutes(5)))
struct DamagedBodyTests {
    static let text = "the page as the origin sent it\n"
    /// Three chunks, so that a hit streams it.
    static let large = Data((0..<(CacheStore.chunkSize * 2 + 1_000)).map { UInt8(truncatingIfNeeded: $0 &* 7) })

    /// Zeroes the bytes of the stored body of `path`, or only its chunk `seq`, as a failing disk might.
    private func damage(_ path: String, in cache: WebCache, origin: OriginServer, seq: Int64? = nil) async throws {
        let entry = try #require(try cache.store.entry(url: origin.url(path).cacheKey.absoluteString))
        let bodyID = try #require(entry.bodyID)
        try await cache.store.write("damage \(path)") { connection in
            try connection.run(
                "UPDATE body_chunk SET data = zeroblob(length(data)) WHERE body_id = ?1 AND (?2 IS NULL OR seq = ?2)",
                [.integer(bodyID), seq.map { .integer($0) } ?? .null])
        }
    }

    @Test func aFreshHitWhoseBodyIsDamagedIsFetchedAgainAndReplaced() async throws {
        try await withCache(origin: { _ in
            .text(Self.text, headers: ["Cache-Control": "max-age=600"])
        }) { (origin, cache) async throws in
            // Given
            _ = try await cache.data(for: WebRequest("page"))
            try await damage("page", in: cache, origin: origin)

            // When
            let refetched = try await cache.data(for: WebRequest("page"))

            // Then: the damaged copy was not served, and the network's answer took its place
            #expect(refetched.source == .network)
            #expect(refetched.text == Self.text)
            #expect(origin.requestCount == 2)
            #expect(origin.requests.last?.headers["If-None-Match"] == nil)
            let hit = try await cache.data(for: WebRequest("page"))
            #expect(hit.source == .hit)
            #expect(hit.text == Self.text)
            #expect(try await cache.store.verify().isSound)
        }
    }

    @Test func cacheOnlyRefusesADamagedBodyNamingTheURLAndKeepsIt() async throws {
        try await withCache(origin: { _ in
            .text(Self.text, headers: ["Cache-Control": "max-age=600"])
        }) { (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("page"))
            try await damage("page", in: cache, origin: origin)

            let error = await #expect(throws: WebCacheError.self) {
                try await cache.data(for: WebRequest("page"), policy: .returnCacheDataDontLoad)
            }

            #expect(error?.code == .damaged)
            #expect(error?.message.contains(origin.url("page").absoluteString) == true)
            #expect(error?.message.contains("is damaged") == true)
            #expect(origin.requestCount == 1)
            // Left for verify and salvage to find.
            #expect(try cache.store.entry(url: origin.url("page").absoluteString) != nil)
        }
    }

    @Test func a304DoesNotConfirmADamagedBody() async throws {
        try await withCache(origin: { request in
            if request.headers["If-None-Match"] == "\"v1\"" {
                return OriginResponse(status: 304, headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\""])
            }
            return .text(Self.text, headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\""])
        }) { (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("doc"))
            try await damage("doc", in: cache, origin: origin)

            let response = try await cache.data(for: WebRequest("doc"))

            // The conditional request got its 304, and the body was then fetched without conditions
            #expect(response.source == .network)
            #expect(response.text == Self.text)
            #expect(origin.requests.map { $0.headers["If-None-Match"] } == [nil, "\"v1\"", nil])
            #expect(try cache.storedVariants(origin.url("doc")).map(\.body) == [Data(Self.text.utf8)])
        }
    }

    @Test func aStreamedBodyThatTurnsOutDamagedFailsAtTheDamagedChunkAndIsFetchedNextTime() async throws {
        try await withCache(origin: { _ in
            OriginResponse(headers: ["Cache-Control": "max-age=600"], body: .bytes(Self.large))
        }) { (origin, cache) async throws in
            // Given: a stored body of three chunks whose middle one was zeroed
            _ = try await cache.data(for: WebRequest("big"))
            try await damage("big", in: cache, origin: origin, seq: 1)

            // When: it is served as a hit
            let response = try await cache.load(WebRequest("big"))
            var delivered = 0
            let error = await #expect(throws: WebCacheError.self) {
                for try await chunk in response.body { delivered += chunk.count }
            }

            // Then: the sound first chunk was handed over, and the body ended with the error in place
            // of the damaged one, not normally
            #expect(response.source == .hit)
            #expect(delivered == CacheStore.chunkSize)
            #expect(error?.code == .damaged)
            #expect(error?.message.contains(origin.url("big").absoluteString) == true)
            #expect(error?.message.contains("bytes delivered before this error") == true)
            // And the next load fetches it again
            let next = try await cache.data(for: WebRequest("big"))
            #expect(next.source == .network)
            #expect(next.body == Self.large)
            #expect(origin.requestCount == 2)
        }
    }

    @Test func aStreamedBodyConfirmedByA304ThatTurnsOutDamagedIsNotKept() async throws {
        try await withCache(origin: { request in
            if request.headers["If-None-Match"] == "\"v1\"" {
                return OriginResponse(status: 304, headers: ["Cache-Control": "max-age=600", "ETag": "\"v1\""])
            }
            return OriginResponse(headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\""], body: .bytes(Self.large))
        }) { (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("big"))
            try await damage("big", in: cache, origin: origin, seq: 2)

            let response = try await cache.load(WebRequest("big"))
            let error = await #expect(throws: WebCacheError.self) { try await response.body.collect() }

            #expect(response.source == .revalidated)
            #expect(error?.code == .damaged)
            // The damaged copy did not stay, made fresh or not: the next load asks again, without conditions
            let next = try await cache.data(for: WebRequest("big"))
            #expect(next.source == .network)
            #expect(next.body == Self.large)
            #expect(origin.requests.map { $0.headers["If-None-Match"] } == [nil, "\"v1\"", nil])
        }
    }

    @Test func aDamagedBodyDoesNotStandInWhenTheNetworkFails() async throws {
        try await withCache(origin: { _ in
            .text(Self.text, headers: ["Cache-Control": "max-age=0"])
        }) { (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("page"))
            try await damage("page", in: cache, origin: origin)
            origin.stop()

            let error = await #expect(throws: WebCacheError.self) {
                try await cache.data(for: WebRequest("page"), policy: .offlineFallback(maxStale: nil))
            }

            #expect(error?.code == .damaged)
            #expect(error?.message.contains("cannot stand in") == true)
        }
    }

    // A preload reads a fresh page's body only to scan it (an HTML page whose record does not stand
    // for the run, PreloadRecordTests); a body it need not read is checked by the reads that serve
    // it and by verify (PreloadWarmRunTests). The preloads below are for another device than the
    // first, so that the page's record does not stand and the page is read again.

    /// Default options for a phone: a page recorded for the desktop is read again.
    private static var onAPhone: PreloadOptions {
        var options = PreloadOptions()
        options.device = .phone
        return options
    }

    @Test func aPreloadAgainReplacesADamagedBodyFoundAtTheEndOfItsStream() async throws {
        try await withCache(origin: { _ in
            OriginResponse(headers: ["Cache-Control": "max-age=600", "Content-Type": "text/html"],
                           body: .bytes(Self.large))
        }) { (origin, cache) async throws in
            #expect(await cache.preload(["big"]).succeeded)
            try await damage("big", in: cache, origin: origin, seq: 1)

            let report = await cache.preload(["big"], options: Self.onAPhone)

            // The hit failed at its end and was retried from the network
            #expect(report.succeeded, "\(report.failures)")
            #expect(report.sources[.network] == 1)
            #expect(try cache.storedVariants(origin.url("big")).map(\.body) == [Self.large])
        }
    }

    @Test func aPreloadAgainReplacesADamagedBody() async throws {
        try await withCache(origin: { _ in
            .text(Self.text, contentType: "text/html", headers: ["Cache-Control": "max-age=600"])
        }) { (origin, cache) async throws in
            #expect(await cache.preload(["page"]).succeeded)
            try await damage("page", in: cache, origin: origin)

            let report = await cache.preload(["page"], options: Self.onAPhone)

            #expect(report.succeeded, "\(report.failures)")
            #expect(report.sources[.network] == 1)
            #expect(try cache.storedVariants(origin.url("page")).map(\.body) == [Data(Self.text.utf8)])
            #expect(try await cache.store.verify().isSound)
        }
    }
}
