import CSQLite
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// A hit's one read (`variants(partition:method:url:withBodyIfFreshAt:upTo:)`) gives the variants as
/// `variants` does, and the body only of a lone fresh variant within the limit, and only when sound.
@Suite(.timeLimit(.minutes(5)))
struct HitReadTests {
    let folder: TemporaryFolder
    let store: CacheStore

    init() throws {
        folder = try TemporaryFolder()
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
    }

    private func hitRead(_ url: String, at now: Date = referenceDate, upTo limit: Int64 = 100_000) throws
        -> (entries: [CacheEntry], body: Data?)
    {
        try store.variants(url: url, withBodyIfFreshAt: now, upTo: limit)
    }

    @Test func readsTheBodyOfALoneFreshVariantWithinTheLimit() async throws {
        let url = "https://example.test/a"
        let body = makeBody(size: 10_240, seed: 1)
        try await store.save(makeEntry(url, freshFor: 600), body: body)
        let read = try hitRead(url)
        #expect(read.entries == (try store.variants(url: url)))
        #expect(read.body == body)
        // Not when stale, over the limit, or absent
        #expect(try hitRead(url, at: referenceDate.addingTimeInterval(600)).body == nil)
        #expect(try hitRead(url, upTo: 10_239).body == nil)
        #expect(try hitRead(url, upTo: 10_240).body == body)
        #expect(try hitRead("https://example.test/none").entries.isEmpty)
    }

    @Test func readsNoBodyForSeveralVariants() async throws {
        let url = "https://example.test/v"
        try await store.save(makeEntry(url, varyKey: "accept-encoding=gzip"), body: Data("gzip".utf8))
        try await store.save(makeEntry(url, varyKey: "accept-encoding=br"), body: Data("br".utf8))
        let read = try hitRead(url)
        #expect(read.entries.count == 2)
        #expect(read.body == nil)
        // In the order stored, which is not the order of their Vary keys (the order of the index).
        let stored = ["accept-encoding=gzip", "accept-encoding=br"]
        #expect(read.entries.map(\.varyKey) == stored)
        #expect(try store.variants(url: url).map(\.varyKey) == stored)
    }

    @Test func readsNoBodyWhenItIsDamagedAndLeavesTheErrorToTheBodyRead() async throws {
        let url = "https://example.test/d"
        let saved = try await store.save(makeEntry(url), body: makeBody(size: 5_000, seed: 2))
        let bodyID = try #require(saved.bodyID)
        let other = try Connection(path: store.path, flags: SQLITE_OPEN_READWRITE)
        try other.execute(sql: "UPDATE body_chunk SET data = zeroblob(length(data)) WHERE body_id = \(bodyID)")
        let read = try hitRead(url)
        #expect(read.entries.map(\.id) == [saved.id])
        #expect(read.body == nil)
        let error = try #require(throws: CacheStore.Error.self) { try store.bodyData(bodyID: bodyID) }
        #expect(error.code == .damagedBody)
    }
}
