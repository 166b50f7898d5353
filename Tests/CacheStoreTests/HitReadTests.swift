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

    /// `lookup` reads an entry and its body in one statement's snapshot: an entry replaced again and
    /// again while it is looked up is found every time, with the body it names. (Read one after the
    /// other, the entry could be found and its body then be gone with the entry that replaced it.)
    @Test func lookupFindsAnEntryReplacedWhileItReadsWithTheBodyItNames() async throws {
        let url = "https://example.test/replaced"
        let bodies = [makeBody(size: CacheStore.chunkSize + 1_000, seed: 1), makeBody(size: 5_000, seed: 2)]
        try await store.save(makeEntry(url), body: bodies[0])
        let store = store
        async let replaced: Void = {
            for round in 1...300 { try await store.save(makeEntry(url), body: bodies[round % 2]) }
        }()
        for _ in 0..<1_000 {
            let hit = try #require(try await store.lookup(url: url, at: referenceDate))
            #expect(bodies.contains(hit.body))
            #expect(hit.entry.bodySize == Int64(hit.body.count))
            #expect(hit.entry.bodyHash == SHA256.hash(hit.body))
        }
        try await replaced
        #expect(try await store.lookup(url: url, at: referenceDate)?.body == bodies[0])
    }

    /// `lookup` reads the entry's own columns, as the other hit paths do: its hit count is what was
    /// folded into the row, and `entry(id:)` adds the hits recorded since.
    @Test func lookupGivesTheHitsFoldedIntoTheEntryAndEntryByIDAddsTheRest() async throws {
        let url = "https://example.test/counted"
        let saved = try await store.save(makeEntry(url), body: makeBody(size: 100, seed: 3))
        _ = try await store.lookup(url: url, at: referenceDate)
        let second = try #require(try await store.lookup(url: url, at: referenceDate))
        try await store.flushAccessLog()
        #expect(second.entry.hitCount == 0)
        #expect(try store.entry(id: try #require(saved.id))?.hitCount == 2)
    }

    /// The body's record comes with the entry's row; its chunks are read after it, in order and checked.
    @Test func readsEmptyAndSeveralChunkBodiesWhole() async throws {
        let empty = "https://example.test/empty"
        try await store.save(makeEntry(empty), body: Data())
        #expect(try hitRead(empty).body == Data())
        let large = "https://example.test/large"
        let body = makeBody(size: CacheStore.chunkSize * 2 + 100, seed: 3)
        try await store.save(makeEntry(large), body: body)
        #expect(try hitRead(large, upTo: Int64(body.count)).body == body)
    }

    /// A chunk gone, or one more than the record counts: the body is not sound, and not read.
    @Test func readsNoBodyWhoseChunksAreNotTheRecordedOnes() async throws {
        let other = try Connection(path: store.path, flags: SQLITE_OPEN_READWRITE)
        let body = makeBody(size: CacheStore.chunkSize * 2 + 100, seed: 4)
        let gone = try #require(try await store.save(makeEntry("https://example.test/gone"), body: body).bodyID)
        try other.execute(sql: "DELETE FROM body_chunk WHERE body_id = \(gone) AND seq = 1")
        #expect(try hitRead("https://example.test/gone", upTo: Int64(body.count)).body == nil)
        let extra = try #require(try await store.save(makeEntry("https://example.test/extra"), body: body).bodyID)
        try other.execute(sql: "UPDATE body SET chunk_count = 2, size = \(CacheStore.chunkSize * 2) WHERE id = \(extra)")
        #expect(try hitRead("https://example.test/extra", upTo: Int64(body.count)).body == nil)
        #expect(try hitRead("https://example.test/extra", upTo: Int64(body.count)).entries.count == 1)
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
