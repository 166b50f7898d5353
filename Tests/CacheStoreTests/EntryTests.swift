import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

@Suite(.timeLimit(.minutes(5)))
struct EntryTests {
    let folder: TemporaryFolder
    let store: CacheStore

    init() throws {
        folder = try TemporaryFolder()
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
    }

    // MARK: - Saving and reading

    @Test(arguments: [0, 1, 10_240, CacheStore.chunkSize, CacheStore.chunkSize * 3 + 17])
    func savesAndReadsABodyHeldInMemory(size: Int) async throws {
        // Given
        let body = makeBody(size: size, seed: 1)
        // When
        let saved = try await store.save(makeEntry("https://example.test/a"), body: body)
        // Then
        #expect(saved.id != nil)
        #expect(saved.bodySize == Int64(size))
        #expect(saved.bodyHash == SHA256.hash(body))
        let bodyID = try #require(saved.bodyID)
        #expect(try store.bodyData(bodyID: bodyID) == body)
        let chunkCount = try store.read("chunks") { try $0.int64("SELECT count(*) FROM body_chunk") }
        #expect(chunkCount == Int64((size + CacheStore.chunkSize - 1) / CacheStore.chunkSize))
        var reader = store.bodyChunks(bodyID: bodyID)
        var streamed = Data()
        while let chunk = try reader.next() {
            #expect(chunk.count <= CacheStore.chunkSize)
            streamed.append(chunk)
        }
        #expect(streamed == body)
        var asynchronous = Data()
        for try await chunk in store.bodyStream(bodyID: bodyID) {
            asynchronous.append(chunk)
        }
        #expect(asynchronous == body)
    }

    @Test func keepsTheCodingABodyWasDecodedFromUntilAResponseReplacesIt() async throws {
        // Given an entry whose body was decoded from gzip
        var decoded = makeEntry("https://example.test/coded")
        decoded.decodedFrom = "gzip"
        // When it is saved, then replaced by one stored as received
        let saved = try await store.save(decoded, body: Data("text".utf8))
        let read = try store.entry(url: "https://example.test/coded")
        let replaced = try await store.save(makeEntry("https://example.test/coded"), body: Data("text".utf8))
        // Then each reads back as saved
        #expect(saved.decodedFrom == "gzip")
        #expect(read?.decodedFrom == "gzip")
        #expect(replaced.decodedFrom == nil)
        #expect(try store.entry(url: "https://example.test/coded")?.decodedFrom == nil)
    }

    @Test(arguments: [0, 100, CacheStore.chunkSize, CacheStore.chunkSize * 2 + 5_000])
    func savesAStreamedBody(size: Int) async throws {
        // Given a body arriving in uneven pieces
        let body = makeBody(size: size, seed: 2)
        var writer = store.makeBodyWriter()
        var offset = 0
        var piece = 1
        while offset < body.count {
            let end = min(offset + piece * 7_919, body.count)
            try await writer.write(body.subdata(in: offset..<end))
            offset = end
            piece += 1
        }
        // Staged chunks are not entries
        #expect(try store.totals().entryCount == 0)
        // When
        let saved = try await store.save(makeEntry("https://example.test/stream"), body: writer)
        // Then
        #expect(try store.bodyData(bodyID: try #require(saved.bodyID)) == body)
        #expect(saved.bodyHash == SHA256.hash(body))
        #expect(try rowCount(store, "staging") == 0)
        #expect(try rowCount(store, "body WHERE hash IS NULL") == 0)
    }

    /// Pieces that end inside a chunk, hold whole chunks, or overflow the writer's small first buffer.
    static let piecePatterns: [[Int]] = [
        [CacheStore.chunkSize * 3],
        [100, CacheStore.chunkSize * 2 + 50, 10, CacheStore.chunkSize - 160, CacheStore.chunkSize],
        [10_000, 10_000, 20_000, 300_000, 1, CacheStore.chunkSize - 1],
        [1, 1, CacheStore.chunkSize, 30_000, 5_000],
    ]

    @Test(arguments: piecePatterns)
    func cutsAStreamedBodyIntoWholeChunksWhateverItsPieces(pieces: [Int]) async throws {
        // Given a body written in pieces of these sizes
        let body = makeBody(size: pieces.reduce(0, +), seed: 11)
        var writer = store.makeBodyWriter()
        var offset = 0
        for length in pieces {
            try await writer.write(body.subdata(in: offset..<offset + length))
            offset += length
        }
        let saved = try await store.save(makeEntry("https://example.test/pieces"), body: writer)
        // Then every chunk but the last is whole, each holds its own part of the body, and the body
        // reads back as written
        let bodyID = try #require(saved.bodyID)
        let chunks = try store.read("chunks") { connection in
            var chunks: [Data] = []
            let query = "SELECT data FROM body_chunk WHERE body_id = ? ORDER BY seq"
            try connection.forEachRow(query, [.integer(bodyID)]) { chunks.append($0.blob(0)) }
            return chunks
        }
        // (Compared as Booleans: a failed comparison of two large `Data` values would diff them bytewise.)
        #expect(chunks.count == (body.count + CacheStore.chunkSize - 1) / CacheStore.chunkSize)
        for (index, chunk) in chunks.enumerated() {
            let start = index * CacheStore.chunkSize
            let isItsPart = chunk == body.subdata(in: start..<min(start + CacheStore.chunkSize, body.count))
            #expect(isItsPart, "chunk \(index) holds \(chunk.count) bytes")
        }
        let readBack = try store.bodyData(bodyID: bodyID) == body
        #expect(readBack)
        #expect(saved.bodyHash == SHA256.hash(body))
        #expect(try await store.verify().isSound)
    }

    @Test func writesAStreamedBodyOnceAsItsFinalChunks() async throws {
        // Given two full chunks and a part of a third streamed in
        let body = makeBody(size: CacheStore.chunkSize * 2 + 100, seed: 5)
        var writer = store.makeBodyWriter()
        try await writer.write(body)
        // Then the full chunks are already the chunks of a provisional body that counts for nothing yet
        let provisional = try store.read("provisional") { try $0.int64("SELECT id FROM body WHERE hash IS NULL") }
        #expect(provisional != nil)
        #expect(try rowCount(store, "body_chunk") == 2)
        #expect(try store.totals().bodyCount == 0)
        #expect(try await store.statistics().stagedBytes == Int64(CacheStore.chunkSize * 2))
        // When the entry is saved
        let saved = try await store.save(makeEntry("https://example.test/once"), body: writer)
        // Then that body row was completed in place, with the last chunk added: nothing was copied
        #expect(saved.bodyID == provisional)
        #expect(try rowCount(store, "body_chunk") == 3)
        #expect(try rowCount(store, "body WHERE hash IS NULL") == 0)
        #expect(try store.bodyData(bodyID: try #require(saved.bodyID)) == body)
        let size = Int64(body.count)
        #expect(try store.totals() == StoreTotals(entryCount: 1, entryBytes: size, bodyCount: 1, bodyBytes: size))
        #expect(try await store.verify().isSound)
    }

    @Test func discardingAWriterDeletesItsProvisionalBody() async throws {
        var writer = store.makeBodyWriter()
        try await writer.write(makeBody(size: CacheStore.chunkSize * 3, seed: 8))
        #expect(try rowCount(store, "body_chunk") == 3)
        try await writer.discard()
        #expect(try rowCount(store, "body") == 0)
        #expect(try rowCount(store, "body_chunk") == 0)
        #expect(try rowCount(store, "staging") == 0)
        #expect(try await store.verify().isSound)
    }

    @Test func refusesToSaveABodyThatLostAChunkItCouldNotStage() async throws {
        // Given a writer whose second chunk could not be staged (a trigger refuses it), then can be again
        let refuse = "CREATE TEMP TRIGGER refuse_chunk BEFORE INSERT ON body_chunk WHEN NEW.seq = 1 "
            + "BEGIN SELECT RAISE(ABORT, 'refused for the test'); END"
        try await store.write("refuse") { try $0.run(refuse) }
        var writer = store.makeBodyWriter()
        try await writer.write(makeBody(size: CacheStore.chunkSize + 10, seed: 12))
        await #expect(throws: CacheStore.Error.self) {
            try await writer.write(makeBody(size: CacheStore.chunkSize, seed: 13))
        }
        try await store.write("allow") { try $0.run("DROP TRIGGER temp.refuse_chunk") }
        // Then saving it is refused, naming the URL, rather than storing a body with a chunk missing
        let url = "https://example.test/lost-chunk"
        let error = try await #require(throws: CacheStore.Error.self) {
            try await store.save(makeEntry(url), body: writer)
        }
        #expect(error.code == .bodyMissing)
        #expect(error.message.contains(url))
        #expect(try store.totals().entryCount == 0)
        try await writer.discard()
        #expect(try rowCount(store, "body") == 0)
        #expect(try await store.verify().isSound)
    }

    @Test func refusesToSaveABodyWhoseStagingWasCollected() async throws {
        // Given a writer whose staging was removed, as the collection of abandoned staging does
        var writer = store.makeBodyWriter()
        try await writer.write(makeBody(size: CacheStore.chunkSize + 10, seed: 9))
        try await store.write("collect") { try $0.run("DELETE FROM staging") }
        // Then writing on and saving both report the body missing, naming the URL, and nothing is stored
        await #expect(throws: CacheStore.Error.self) {
            try await writer.write(makeBody(size: CacheStore.chunkSize, seed: 10))
        }
        let error = try await #require(throws: CacheStore.Error.self) {
            try await store.save(makeEntry("https://example.test/collected"), body: writer)
        }
        #expect(error.code == .bodyMissing)
        #expect(error.message.contains("https://example.test/collected"))
        #expect(try rowCount(store, "body") == 0)
        #expect(try store.totals().entryCount == 0)
    }

    @Test func keepsHeaderOrderAndRepeatedFields() async throws {
        let headers = HTTPHeaders([
            HTTPField(name: "Set-Cookie", value: "a=1"),
            HTTPField(name: "Content-Type", value: "text/html"),
            HTTPField(name: "Set-Cookie", value: "b=2"),
            HTTPField(name: "X-Empty", value: ""),
            HTTPField(name: "ETag", value: "W/\"x: y\""),
            HTTPField(name: "Date", value: "Sun, 06 Nov 1994 08:49:37 GMT"),
            HTTPField(name: "X-Name", value: "café ☕"),
        ])
        try await store.save(makeEntry("https://example.test/h", headers: headers), body: Data())
        let read = try #require(try store.entry(url: "https://example.test/h"))
        #expect(read.headers == headers)
        #expect(read.etag == "W/\"x: y\"")
        #expect(read.date == HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
        let columns = try store.read("columns") { connection in
            try connection.text("SELECT etag || '|' || content_type || '|' || host FROM entry")
        }
        #expect(columns == "W/\"x: y\"|text/html|example.test")
    }

    @Test func refusesAHeaderThatCannotBeStored() async throws {
        let headers = HTTPHeaders([HTTPField(name: "X-Bad", value: "a\r\nInjected: yes")])
        let error = try await #require(throws: CacheStore.Error.self) {
            try await store.save(makeEntry("https://example.test/bad", headers: headers), body: Data())
        }
        #expect(error.code == .invalidEntry)
        #expect(error.message.contains("https://example.test/bad"))
        #expect(try store.totals().entryCount == 0)
    }

    // MARK: - Deduplication

    @Test func dropsAStreamedCopyOfABodyTheStoreHas() async throws {
        let body = makeBody(size: CacheStore.chunkSize * 2 + 1, seed: 6)
        let first = try await store.save(makeEntry("https://example.test/a"), body: body)
        var writer = store.makeBodyWriter()
        try await writer.write(body)
        let second = try await store.save(makeEntry("https://example.test/b"), body: writer)
        #expect(second.bodyID == first.bodyID)
        #expect(try rowCount(store, "body") == 1)
        #expect(try rowCount(store, "body_chunk") == 3)
        #expect(try rowCount(store, "staging") == 0)
        let size = Int64(body.count)
        #expect(try store.totals() == StoreTotals(entryCount: 2, entryBytes: 2 * size, bodyCount: 1, bodyBytes: size))
        #expect(try await store.verify().isSound)
    }

    @Test func sharesIdenticalBodiesAndDeletesTheLastReference() async throws {
        let body = makeBody(size: 50_000, seed: 3)
        let first = try await store.save(makeEntry("https://example.test/1"), body: body)
        var writer = store.makeBodyWriter()
        try await writer.write(body)
        let second = try await store.save(makeEntry("https://example.test/2"), body: writer)
        #expect(first.bodyID == second.bodyID)
        #expect(try rowCount(store, "body") == 1)
        #expect(try rowCount(store, "staging") == 0)
        #expect(try store.totals() == StoreTotals(entryCount: 2, entryBytes: 100_000, bodyCount: 1, bodyBytes: 50_000))

        try await store.invalidate(url: "https://example.test/1")
        #expect(try rowCount(store, "body") == 1)
        let result = try await store.invalidate(url: "https://example.test/2")
        #expect(result.freedBytes == 50_000)
        #expect(try rowCount(store, "body") == 0)
        #expect(try rowCount(store, "body_chunk") == 0)
        #expect(try store.totals() == StoreTotals(entryCount: 0, entryBytes: 0, bodyCount: 0, bodyBytes: 0))
    }

    @Test func replacingAnEntryKeepsItsIdAndReleasesTheOldBody() async throws {
        let first = try await store.save(makeEntry("https://example.test/r"), body: makeBody(size: 1_000, seed: 1))
        try await store.setPinned(true, url: "https://example.test/r")
        let second = try await store.save(makeEntry("https://example.test/r"), body: makeBody(size: 2_000, seed: 2))
        #expect(first.id == second.id)
        #expect(second.pinned)
        #expect(first.bodyID != second.bodyID)
        #expect(try rowCount(store, "body") == 1)
        #expect(try store.totals() == StoreTotals(entryCount: 1, entryBytes: 2_000, bodyCount: 1, bodyBytes: 2_000))
    }

    @Test func neverReusesTheIdOfARemovedEntryOrBody() async throws {
        let first = try await store.save(makeEntry("https://example.test/a"), body: Data("a".utf8))
        try await store.invalidate(url: "https://example.test/a")
        let second = try await store.save(makeEntry("https://example.test/b"), body: Data("b".utf8))
        #expect(second.id != first.id)
        #expect(second.bodyID != first.bodyID)
        // A hit or an update for the removed id touches nothing
        _ = store.recordHit(entryID: try #require(first.id), at: referenceDate)
        try await store.flushAccessLog()
        #expect(try store.entry(id: try #require(second.id))?.hitCount == 0)
    }

    @Test(arguments: [[], [0], [7, 10, 1_000_000_007], [Int64.max, 1], [-42]] as [[Int64]])
    func theIDsOfHitsRecordedTogetherAreWrittenAsAJSONArray(ids: [Int64]) {
        #expect(AccessLog.jsonArray(ids) == "[" + ids.map(String.init).joined(separator: ",") + "]")
    }

    @Test func hitsRecordedTogetherAreWrittenEachToItsEntry() async throws {
        // Given entries, and one removed
        var ids: [String: Int64] = [:]
        // (enough hit alike for one statement to write them together)
        let many = (0..<AccessLog.sharedStatementMinimum).map { "m\($0)" }
        for name in ["a", "b", "c", "d", "e", "f", "gone"] + many {
            let entry = try await store.save(makeEntry("https://example.test/\(name)"), body: Data(name.utf8))
            ids[name] = entry.id
        }
        try await store.invalidate(url: "https://example.test/gone")
        let id = { (name: String) in ids[name] ?? -1 }
        let saved = try #require(try store.entry(id: id("a"))).lastAccess
        let (early, moment, later) = (saved.addingTimeInterval(-10), saved.addingTimeInterval(10), saved.addingTimeInterval(20))

        // When most are hit once at one moment (as a preload's batch is), one twice, one also later,
        // one only at a time before its last access, and the removed one with them
        for name in ["a", "b", "c", "gone", "d", "b", "e"] + many { _ = store.recordHit(entryID: id(name), at: moment) }
        _ = store.recordHit(entryID: id("e"), at: later)
        _ = store.recordHit(entryID: id("f"), at: early)
        try await store.flushAccessLog()

        // Then each entry has its own count and its latest access, never moved back
        var expected: [String: (hits: Int, lastAccess: Date)] = [
            "a": (1, moment), "b": (2, moment), "c": (1, moment), "d": (1, moment), "e": (2, later), "f": (1, saved),
        ]
        for name in many { expected[name] = (1, moment) }
        for (name, want) in expected {
            let entry = try #require(try store.entry(id: id(name)))
            #expect(entry.hitCount == want.hits, "\(name)")
            #expect(abs(entry.lastAccess.timeIntervalSince(want.lastAccess)) < 0.001, "\(name)")
        }
        #expect(try store.entry(id: id("gone")) == nil)
    }

    // MARK: - Variants, methods, invalidation

    @Test func keepsVariantsApartAndInvalidatesThemAllTogether() async throws {
        let url = "https://example.test/v"
        try await store.save(makeEntry(url, varyKey: "accept-encoding=gzip"), body: Data("gzip".utf8))
        try await store.save(makeEntry(url, varyKey: "accept-encoding=br"), body: Data("br".utf8))
        try await store.save(makeEntry(url, method: .head), body: Data())
        try await store.save(makeEntry("https://example.test/other"), body: Data("other".utf8))

        let variants = try store.variants(url: url)
        #expect(Set(variants.map(\.varyKey)) == ["accept-encoding=gzip", "accept-encoding=br"])
        let br = try #require(try store.entry(url: url, varyKey: "accept-encoding=br"))
        #expect(try store.bodyData(bodyID: try #require(br.bodyID)) == Data("br".utf8))
        #expect(try store.entry(url: url) == nil)

        let removed = try await store.invalidate(url: url)
        #expect(removed.entryCount == 3)
        #expect(try store.variants(url: url).isEmpty)
        #expect(try store.variants(method: .head, url: url).isEmpty)
        #expect(try store.entry(url: "https://example.test/other") != nil)
    }

    // MARK: - 304

    @Test func updatesMetadataWithoutTouchingTheBody() async throws {
        let body = makeBody(size: 3_000, seed: 4)
        let saved = try await store.save(makeEntry("https://example.test/304"), body: body)
        let later = referenceDate.addingTimeInterval(1_000)
        let update = MetadataUpdate(
            entryID: try #require(saved.id),
            headers: ["Content-Type": "text/plain", "ETag": "\"v2\"", "Date": HTTPDate.format(later)],
            requestTime: later, responseTime: later.addingTimeInterval(1),
            freshUntil: later.addingTimeInterval(600), staleUntil: later.addingTimeInterval(700)
        )
        let count = try await store.updateMetadata([
            update,
            MetadataUpdate(
                entryID: 999_999, headers: [:], requestTime: later, responseTime: later, freshUntil: later
            ),
        ])
        #expect(count == 1)
        let savedID = try #require(saved.id)
        let read = try #require(try store.entry(id: savedID))
        #expect(read.etag == "\"v2\"")
        #expect(read.responseTime == later.addingTimeInterval(1))
        #expect(read.freshUntil == later.addingTimeInterval(600))
        #expect(read.staleUntil == later.addingTimeInterval(700))
        #expect(read.bodyID == saved.bodyID)
        #expect(try store.bodyData(bodyID: try #require(read.bodyID)) == body)
        let etagColumn = try store.read("etag") { try $0.text("SELECT etag FROM entry") }
        #expect(etagColumn == "\"v2\"")
    }

    // MARK: - Hits

    @Test func recordsHitsInMemoryAndFlushesThemWithTheNextWrite() async throws {
        let saved = try await store.save(makeEntry("https://example.test/hit"), body: Data("x".utf8))
        let id = try #require(saved.id)
        let hitTime = referenceDate.addingTimeInterval(50)
        for _ in 0..<3 {
            let hit = try await store.lookup(url: "https://example.test/hit", at: hitTime)
            #expect(hit?.body == Data("x".utf8))
        }
        #expect(try await store.lookup(url: "https://example.test/missing") == nil)
        // Not written yet
        #expect(try store.entry(id: id)?.hitCount == 0)
        // The next write flushes
        try await store.save(makeEntry("https://example.test/other"), body: Data("y".utf8))
        let read = try #require(try store.entry(id: id))
        #expect(read.hitCount == 3)
        #expect(read.lastAccess == hitTime)
    }

    @Test func flushesHitsWhenTheThresholdIsReachedAndOnClose() async throws {
        var settings = configuration()
        settings.accessFlushThreshold = 2
        let path = folder.path("threshold.sqlite")
        let store = try CacheStore(path: path, configuration: settings)
        let a = try await store.save(makeEntry("https://example.test/a"), body: Data("a".utf8))
        let b = try await store.save(makeEntry("https://example.test/b"), body: Data("b".utf8))
        _ = try await store.lookup(url: "https://example.test/a")
        #expect(try store.entry(id: try #require(a.id))?.hitCount == 0)
        _ = try await store.lookup(url: "https://example.test/b")
        #expect(try store.entry(id: try #require(b.id))?.hitCount == 1)
        #expect(try store.entry(id: try #require(a.id))?.hitCount == 1)
        _ = try await store.lookup(url: "https://example.test/a")
        try await store.close()
        let reopened = try CacheStore(path: path)
        #expect(try reopened.entry(id: try #require(a.id))?.hitCount == 2)
        try await reopened.close()
    }

    @Test func closedStoreRefusesWork() async throws {
        try await store.close()
        let readError = try #require(throws: CacheStore.Error.self) { try store.totals() }
        #expect(readError.code == .closed)
        let writeError = try await #require(throws: CacheStore.Error.self) {
            try await store.save(makeEntry("https://example.test/late"), body: Data())
        }
        #expect(writeError.code == .closed)
    }
}
