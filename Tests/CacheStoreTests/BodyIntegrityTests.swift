import CSQLite
import CZlib
import Foundation
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// Bodies are checked as they are read (each chunk against its CRC-32, or a body stored without them
/// against its SHA-256): bytes changed in the file, as another program or a failing disk might
/// change them, are never handed out as the stored body.
@Suite(.timeLimit(.minutes(5)))
struct BodyIntegrityTests {
    let folder: TemporaryFolder
    let store: CacheStore

    init() throws {
        folder = try TemporaryFolder()
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
    }

    /// The stored checksum is a file format: its values must not change between versions. These were
    /// computed with another implementation of CRC-32 (Python's `zlib.crc32`) over the bytes followed
    /// by the body id and sequence number as 8-byte little-endian integers.
    @Test func chunkChecksumsAreTheCRC32OfTheBytesFollowedByTheirPlace() {
        let digits = Data("123456789".utf8)
        #expect(ChunkChecksum(of: digits).value(bodyID: 5, seq: 2) == 2_686_643_642)
        #expect(ChunkChecksum(of: digits).value(bodyID: 5, seq: 3) == 1_820_912_932)
        #expect(ChunkChecksum(of: Data()).value(bodyID: 1, seq: 0) == 1_121_180_356)
    }

    /// The checksums are computed with libdeflate; they must be zlib's, which stores written before
    /// carry: compared over random bytes of many lengths (around the vector widths libdeflate works
    /// in, and a whole chunk), in many places.
    @Test func chunkChecksumsAreZlibsCRC32OverAnyBytes() {
        var generator = SystemRandomNumberGenerator()
        let lengths = Array(0...130) + [255, 256, 257, 1_023, 4_096, 10_240, 65_537, CacheStore.chunkSize]
        for length in lengths {
            let bytes = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
            let bodyID = Int64.random(in: 1...Int64.max, using: &generator)
            let seq = Int64.random(in: 0...1_000_000, using: &generator)
            var zlib = bytes.withUnsafeBytes { crc32(0, $0.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt($0.count)) }
            let place = [bodyID.littleEndian, seq.littleEndian]
            zlib = place.withUnsafeBytes { crc32(zlib, $0.baseAddress?.assumingMemoryBound(to: Bytef.self), uInt($0.count)) }
            #expect(ChunkChecksum(of: bytes).value(bodyID: bodyID, seq: seq) == Int64(zlib), "length \(length)")
        }
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
            + "longer match their checksums.")
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

    @Test func aStreamedBodyStopsAtTheDamagedChunkWithoutHandingItOver() async throws {
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

        // Then: the sound first chunk was handed over, the damaged one was not, and asking again fails again
        #expect(chunks == [body.prefix(CacheStore.chunkSize)])
        #expect(error.code == .damagedBody)
        #expect(throws: CacheStore.Error.self) { try reader.next() }
        var streamed = 0
        let streamError = await #expect(throws: CacheStore.Error.self) {
            for try await chunk in store.bodyStream(bodyID: bodyID) { streamed += chunk.count }
        }
        #expect(streamed == CacheStore.chunkSize)
        #expect(streamError?.code == .damagedBody)
    }

    @Test(arguments: [
        ("a wrong checksum", "UPDATE body_chunk SET checksum = (checksum + 1) % 4294967296 WHERE seq = 1"),
        ("two chunks swapped", "UPDATE body_chunk SET seq = seq + 10 WHERE seq IN (1, 2); UPDATE body_chunk SET seq = 13 - seq WHERE seq > 10"),
        ("a checksum on some chunks only", "UPDATE body_chunk SET checksum = NULL WHERE seq = 2"),
    ])
    func chunksOutOfPlaceOrWithoutTheirChecksumAreDamage(name: String, sql: String) async throws {
        // Given: a body of three chunks, damaged without changing the bytes of any chunk
        let body = makeBody(size: CacheStore.chunkSize * 2 + 100, seed: 8)
        let saved = try await store.save(makeEntry("https://example.test/big"), body: body)
        let bodyID = try #require(saved.bodyID)
        try damage(sql)

        // When / Then: both reads refuse it, and verify names it
        let error = try #require(throws: CacheStore.Error.self, "\(name)") { try store.bodyData(bodyID: bodyID) }
        #expect(error.code == .damagedBody, "\(name)")
        var reader = store.bodyChunks(bodyID: bodyID)
        let streamError = try #require(throws: CacheStore.Error.self, "\(name)") {
            while try reader.next() != nil {}
        }
        #expect(streamError.code == .damagedBody, "\(name)")
        #expect(try await !store.verify().isSound, "\(name)")
    }

    /// Bodies written before schema version 4 have no chunk checksums; reads check them against the
    /// body's SHA-256, so damage shows at the end of a streamed read.
    @Test func aBodyStoredWithoutChunkChecksumsIsCheckedAgainstItsSHA256() async throws {
        // Given: two bodies of three chunks as an older version stored them, one of them damaged
        let body = makeBody(size: CacheStore.chunkSize * 2 + 100, seed: 9)
        let sound = try #require(try await store.save(makeEntry("https://example.test/sound"), body: body).bodyID)
        let other = makeBody(size: CacheStore.chunkSize * 2 + 100, seed: 10)
        let damaged = try #require(try await store.save(makeEntry("https://example.test/damaged"), body: other).bodyID)
        try damage("UPDATE body_chunk SET checksum = NULL")
        try damage("UPDATE body_chunk SET data = zeroblob(length(data)) WHERE body_id = \(damaged) AND seq = 1")

        // Then: the sound one reads whole and streamed, and verify finds it sound
        #expect(try store.bodyData(bodyID: sound) == body)
        var reader = store.bodyChunks(bodyID: sound)
        var streamed = Data()
        while let chunk = try reader.next() { streamed.append(chunk) }
        #expect(streamed == body)
        // And the damaged one is refused: whole, and streamed after its last chunk
        #expect(throws: CacheStore.Error.self) { try store.bodyData(bodyID: damaged) }
        var damagedReader = store.bodyChunks(bodyID: damaged)
        var chunks = 0
        let error = try #require(throws: CacheStore.Error.self) {
            while try damagedReader.next() != nil { chunks += 1 }
        }
        #expect(error.code == .damagedBody)
        #expect(chunks == 3)
        let report = try await store.verify()
        #expect(report.problems.map(\.kind) == [.bodyHash])
        #expect(report.problems.first?.urls == ["https://example.test/damaged"])
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
