import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// What a save returns is built from what it bound and what the row kept, not read back: it must be
/// the entry as any later read gives it, whichever way the body came in. And a save that fails leaves
/// nothing of itself visible.
@Suite(.timeLimit(.minutes(5)))
struct SavedEntryTests {
    let folder: TemporaryFolder
    let store: CacheStore
    /// Instants with fractions of a second, which a column of seconds since 1970 may round.
    static let now = Date(timeIntervalSinceReferenceDate: 820_000_000.123_456_789)

    init() throws {
        folder = try TemporaryFolder()
        var settings = configuration()
        settings.clock = { Self.now }
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: settings)
    }

    /// An entry whose every instant has a fraction of a second, and every optional field set.
    private func entry(_ url: String) -> CacheEntry {
        let received = Self.now.addingTimeInterval(-0.333_333_333)
        var entry = CacheEntry(
            url: url, varyKey: "accept-encoding=gzip", status: 200,
            headers: HTTPHeaders([
                HTTPField(name: "Content-Type", value: "text/html"), HTTPField(name: "ETag", value: "\"e\""),
                HTTPField(name: "X-Empty", value: ""), HTTPField(name: "X-Spaced", value: "  two spaces"),
                HTTPField(name: "X-Repeated", value: "1"), HTTPField(name: "X-Repeated", value: "2"),
            ]),
            requestTime: received.addingTimeInterval(-0.111_111_111), responseTime: received,
            freshUntil: received.addingTimeInterval(600.987_654_321),
            staleUntil: received.addingTimeInterval(900.000_000_1), decodedFrom: "gzip")
        entry.partition = "user-1"
        return entry
    }

    private func readBack(_ saved: CacheEntry) throws -> CacheEntry? {
        try store.entry(id: try #require(saved.id))
    }

    @Test(arguments: [0, 1, 27_000, CacheStore.chunkSize, CacheStore.chunkSize * 2 + 17])
    func aSaveOfABodyInMemoryReturnsTheEntryAsReadBack(size: Int) async throws {
        let saved = try await store.save(entry("https://example.test/m"), body: makeBody(size: size, seed: 1))
        #expect(try readBack(saved) == saved)
        #expect(saved.bodyHash == SHA256.hash(makeBody(size: size, seed: 1)))
        #expect(saved.bodySize == Int64(size))
    }

    @Test(arguments: [0, 27_000, CacheStore.chunkSize + 1, CacheStore.chunkSize * 3])
    func aSaveOfAStreamedBodyReturnsTheEntryAsReadBack(size: Int) async throws {
        let body = makeBody(size: size, seed: 2)
        var writer = store.makeBodyWriter()
        var offset = 0
        while offset < body.count {
            let end = min(offset + 16_384, body.count)
            try await writer.write(body.subdata(in: offset..<end))
            offset = end
        }
        let saved = try await store.save(entry("https://example.test/s"), body: writer)
        #expect(try readBack(saved) == saved)
        #expect(try store.bodyData(bodyID: try #require(saved.bodyID)) == body)
        #expect(try rowCount(store, "staging") == 0)
        #expect(try await store.verify().isSound)
    }

    @Test func aReplacingSaveReturnsTheHitsAndPinTheRowKept() async throws {
        let url = "https://example.test/r"
        let first = try await store.save(entry(url), body: makeBody(size: 100, seed: 3))
        try await store.setPinned(true, url: url, partition: "user-1")
        store.recordHit(entryID: try #require(first.id), at: Self.now)
        store.recordHit(entryID: try #require(first.id), at: Self.now)
        try await store.flushAccessLog()
        // When the entry is saved again, unpinned, with a body another entry already has
        let shared = try await store.save(makeEntry("https://example.test/other"), body: makeBody(size: 200, seed: 4))
        let second = try await store.save(entry(url), body: makeBody(size: 200, seed: 4))
        // Then it keeps its id, pin and hits, shares the body, and is what a read gives
        #expect(second.id == first.id)
        #expect(second.pinned)
        #expect(second.hitCount == 2)
        #expect(second.bodyID == shared.bodyID)
        #expect(try readBack(second) == second)
    }

    /// A save that inserts a row builds what it returns without reading the row back; one that
    /// replaces a row reads it. Saved at once, new and replacing saves share transactions, and a new
    /// row's id may equal by chance a body id inserted just before it.
    @Test func newAndReplacingSavesAtOnceEachReturnTheRowAsReadBack() async throws {
        var stored: [CacheEntry] = []
        for index in 0..<3 {
            var old = entry("https://example.test/n\(index)")
            old.pinned = index == 0
            stored.append(try await store.save(old, body: makeBody(size: 5 + index, seed: 5)))
        }
        store.recordHit(entryID: try #require(stored[1].id), at: Self.now)
        try await store.flushAccessLog()
        // When those three and three new URLs are saved at once, unpinned, with new bodies
        let saved = try await withThrowingTaskGroup(of: CacheEntry.self) { group in
            for index in 0..<6 {
                let next = entry("https://example.test/n\(index)")
                group.addTask { try await self.store.save(next, body: makeBody(size: 10 + index, seed: 6)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Then every save returned the row as a read gives it: the old rows kept their ids, pin and hit
        for entry in saved {
            #expect(try readBack(entry) == entry)
        }
        let byURL = Dictionary(uniqueKeysWithValues: saved.map { ($0.url, $0) })
        #expect(stored.map(\.id) == stored.map { byURL[$0.url]?.id })
        #expect(byURL["https://example.test/n0"]?.pinned == true)
        #expect(byURL["https://example.test/n1"]?.hitCount == 1)
        #expect(saved.filter { $0.hitCount == 0 && !$0.pinned }.count == 4)
        #expect(try await store.verify().isSound)
    }

    /// The row a save returns is found by the whole identity: variants of one URL (another Vary key,
    /// partition or method) saved in one transaction are each their own row.
    @Test func savesOfVariantsOfOneURLEachReturnTheirOwnRow() async throws {
        let url = "https://example.test/v"
        var variants: [CacheEntry] = []
        for (index, (partition, varyKey, method)) in [
            ("user-1", "accept-encoding=gzip", HTTPMethod.get), ("user-1", "", .get), ("user-2", "", .get),
            ("user-1", "", .head),
        ].enumerated() {
            var variant = entry(url)
            variant.partition = partition
            variant.varyKey = varyKey
            variant.method = method
            variant.status = 200 + index
            variants.append(variant)
        }
        // When they are saved at once, so that they share the writer's transactions
        let saved = try await withThrowingTaskGroup(of: CacheEntry.self) { group in
            for (index, variant) in variants.enumerated() {
                group.addTask { try await self.store.save(variant, body: makeBody(size: 10 + index, seed: 9)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Then each save returned its own row, with its own body, as a read gives it
        #expect(Set(saved.compactMap(\.id)).count == variants.count)
        for entry in saved {
            #expect(try readBack(entry) == entry)
            #expect(entry.bodyHash == SHA256.hash(makeBody(size: entry.status - 200 + 10, seed: 9)))
        }
    }

    @Test func hitsRecordedFromManyThreadsAtOnceAreAllCounted() async throws {
        // Given two entries, hit 1,000 times each from eight threads at once, with different times
        let first = try #require(try await store.save(entry("https://example.test/a"), body: makeBody(size: 10, seed: 1)).id)
        let second = try #require(try await store.save(entry("https://example.test/b"), body: makeBody(size: 10, seed: 2)).id)
        let store = store
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for hit in 0..<250 {
                let at = Self.now.addingTimeInterval(Double(thread * 1_000 + hit))
                store.recordHit(entryID: first, at: at)
                store.recordHit(entryID: first, at: at)
                store.recordHit(entryID: second, at: at)
                store.recordHit(entryID: second, at: at)
            }
        }
        // When they are written
        try await store.flushAccessLog()
        // Then every hit is counted, with the latest time, and nothing is left waiting
        for id in [first, second] {
            let stored = try #require(try store.entry(id: id))
            #expect(stored.hitCount == 4_000)
            #expect(abs(stored.lastAccess.timeIntervalSince(Self.now.addingTimeInterval(7_249))) < 0.001)
        }
        try await store.flushAccessLog()
        #expect(try store.entry(id: first)?.hitCount == 4_000)
    }

    @Test func aSaveThatFailsAfterItsChunksWereStagedLeavesNothingVisible() async throws {
        // Given a body streamed past several chunks, and a stored entry beside it
        let kept = try await store.save(entry("https://example.test/kept"), body: makeBody(size: 5_000, seed: 5))
        let totals = try store.totals()
        var writer = store.makeBodyWriter()
        try await writer.write(makeBody(size: CacheStore.chunkSize * 2 + 999, seed: 6))
        #expect(try rowCount(store, "body_chunk WHERE body_id != \(try #require(kept.bodyID))") == 2)
        // When its entry cannot be saved (a field that cannot be stored)
        var broken = entry("https://example.test/broken")
        broken.headers.append(name: "X-Bad", value: "a\r\nInjected: yes")
        await #expect(throws: CacheStore.Error.self) { try await store.save(broken, body: writer) }
        // Then no entry, body or total shows any of it, and discarding the writer removes its chunks
        #expect(try store.entry(partition: "user-1", url: "https://example.test/broken", varyKey: "accept-encoding=gzip")
            == nil)
        #expect(try store.totals() == totals)
        #expect(try rowCount(store, "body WHERE hash IS NOT NULL") == 1)
        try await writer.discard()
        #expect(try rowCount(store, "body_chunk") == 1)
        #expect(try rowCount(store, "staging") == 0)
        #expect(try store.bodyData(bodyID: try #require(kept.bodyID)) == makeBody(size: 5_000, seed: 5))
        #expect(try await store.verify().isSound)
    }
}
