import CSQLite
import Foundation
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// Bodies are checked against their SHA-256 as they are read: bytes changed in the file, as another
/// program or a failing disk might change them, are never handed out as the stored body.
@Suite(.timeLimit(.minutes(1)))
struct BodyIntegrityTests {
    let folder: TemporaryFolder
    let store: CacheStore

    init() throws {
        folder = try TemporaryFolder()
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
    }

    /// Runs `sql` on a connection of its own, as another program would.
    private func damage(_ sql: String) throws {
        let connection = try Connection(path: store.path, flags: SQLITE_OPEN_READWRITE)
        try connection.execute(sql: sql)
    }

    @Test func aWholeBodyWhoseBytesChangedIsRefusedAsDamaged() async throws {
        // Given: a body whose bytes were zeroed in the file, and a sound one beside it
        let damaged = try await store.save(makeEntry("https://example.test/a"), body: makeBody(size: 5_000, seed: 1))
        let sound = try await store.save(makeEntry("https://example.test/b"), body: makeBody(size: 5_000, seed: 2))
        let bodyID = try #require(damaged.bodyID)
        try damage("UPDATE body_chunk SET data = zeroblob(length(data)) WHERE body_id = \(bodyID)")

        // When / Then
        let error = try #require(throws: CacheStore.Error.self) { try store.bodyData(bodyID: bodyID) }
        #expect(error.code == .damagedBody)
        #expect(error.message == "Body \(bodyID) in the cache store '\(store.path)' is damaged: its bytes no "
            + "longer match its SHA-256.")
        let lookupError = try await #require(throws: CacheStore.Error.self) {
            try await store.lookup(url: "https://example.test/a")
        }
        #expect(lookupError.code == .damagedBody)
        #expect(lookupError.message.contains("https://example.test/a"))
        #expect(try store.bodyData(bodyID: try #require(sound.bodyID)) == makeBody(size: 5_000, seed: 2))
        #expect(try await store.lookup(url: "https://example.test/b")?.body == makeBody(size: 5_000, seed: 2))
    }

    @Test func aWholeBodyWithBytesMissingIsRefusedAsDamaged() async throws {
        let saved = try await store.save(makeEntry("https://example.test/a"), body: makeBody(size: 5_000, seed: 1))
        let bodyID = try #require(saved.bodyID)
        try damage("UPDATE body_chunk SET data = substr(data, 1, 4000) WHERE body_id = \(bodyID)")

        let error = try #require(throws: CacheStore.Error.self) { try store.bodyData(bodyID: bodyID) }
        #expect(error.code == .damagedBody)
    }

    @Test func aStreamedBodyWhoseBytesChangedFailsAfterItsLastChunk() async throws {
        // Given: a body of three chunks whose middle chunk was zeroed
        let body = makeBody(size: CacheStore.chunkSize * 2 + 100, seed: 3)
        let saved = try await store.save(makeEntry("https://example.test/big"), body: body)
        let bodyID = try #require(saved.bodyID)
        try damage("UPDATE body_chunk SET data = zeroblob(length(data)) WHERE body_id = \(bodyID) AND seq = 1")

        // When: it is read chunk by chunk
        var reader = store.bodyChunks(bodyID: bodyID)
        var chunks: [Data] = []
        let error = try #require(throws: CacheStore.Error.self) {
            while let chunk = try reader.next() { chunks.append(chunk) }
        }

        // Then: every chunk was handed over, and the end is an error, not the end of the body
        #expect(chunks.count == 3)
        #expect(chunks[0] == body.prefix(CacheStore.chunkSize))
        #expect(error.code == .damagedBody)
        var streamed = 0
        let streamError = await #expect(throws: CacheStore.Error.self) {
            for try await chunk in store.bodyStream(bodyID: bodyID) { streamed += chunk.count }
        }
        #expect(streamed == body.count)
        #expect(streamError?.code == .damagedBody)
    }

    @Test func aChunkMissingFromAStoredBodyIsDamageNotAReplacedEntry() async throws {
        let saved = try await store.save(
            makeEntry("https://example.test/big"), body: makeBody(size: CacheStore.chunkSize * 2 + 100, seed: 4))
        let bodyID = try #require(saved.bodyID)
        try damage("DELETE FROM body_chunk WHERE body_id = \(bodyID) AND seq = 1")

        var reader = store.bodyChunks(bodyID: bodyID)
        _ = try reader.next()
        let error = try #require(throws: CacheStore.Error.self) { try reader.next() }

        #expect(error.code == .damagedBody)
    }

    @Test func discardingABodyRemovesItWithEveryEntryThatUsesIt() async throws {
        // Given: two entries sharing a body, and another entry
        let shared = try await store.save(makeEntry("https://example.test/a"), body: makeBody(size: 900, seed: 6))
        try await store.save(
            makeEntry("https://example.test/b", partition: "user-1"), body: makeBody(size: 900, seed: 6))
        try await store.save(makeEntry("https://example.test/c"), body: makeBody(size: 700, seed: 7))

        // When
        let removed = try await store.discardBody(id: try #require(shared.bodyID))

        // Then: a save of the same bytes gets a body of its own
        #expect(removed.urls.sorted() == ["https://example.test/a", "https://example.test/b"])
        #expect(try rowCount(store, "body") == 1)
        #expect(try store.totals() == (try scannedTotals(store)))
        let saved = try await store.save(makeEntry("https://example.test/a"), body: makeBody(size: 900, seed: 6))
        #expect(saved.bodyID != shared.bodyID)
        #expect(try await store.verify().isSound)
    }
}
