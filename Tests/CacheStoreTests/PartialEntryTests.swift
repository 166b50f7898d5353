import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// Partial entries (RFC 9111 §3.3, §3.4) and ranges of stored bodies, in a real store file.
@Suite(.timeLimit(.minutes(1)))
struct PartialEntryTests {
    let folder: TemporaryFolder
    let store: CacheStore
    static let url = "https://example.test/video.webm"
    /// Over two chunks and a bit, so that parts and ranges cross chunk boundaries.
    static let full = makeBody(size: CacheStore.chunkSize * 2 + 1_000, seed: 9)

    init() throws {
        folder = try TemporaryFolder()
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
    }

    /// Saves bytes `range` of `content` as a part with `etag`.
    @discardableResult
    func savePart(
        _ range: Range<Int>, of content: Data = full, etag: String = #""v1""#
    ) async throws -> CacheEntry {
        let headers: HTTPHeaders = [
            "ETag": etag, "Content-Type": "video/webm",
            "Content-Range": "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(content.count)",
        ]
        var complete = headers
        complete.remove("Content-Range")
        complete["Content-Length"] = String(content.count)
        var writer = store.makeBodyWriter()
        try await writer.write(content.subdata(in: range))
        return try await store.savePart(
            makeEntry(Self.url, headers: headers), first: Int64(range.lowerBound), completeLength: Int64(content.count),
            completeHeaders: complete, body: writer)
    }

    // MARK: - Combining (§3.4)

    @Test func partsUnderOneStrongTagBecomeACompleteEntry() async throws {
        // Given a first part
        let first = try await savePart(0..<300_000)
        #expect(first.isPartial)
        #expect(first.status == 206)
        #expect(first.bodySize == 300_000)
        #expect(try store.variants(url: Self.url).isEmpty)
        // When a second part overlapping it reaches the end
        let second = try await savePart(200_000..<Self.full.count)
        // Then the entry is complete, with the whole body and the complete fields
        #expect(!second.isPartial)
        #expect(second.id == first.id)
        #expect(second.status == 200)
        #expect(second.bodySize == Int64(Self.full.count))
        #expect(second.bodyHash == SHA256.hash(Self.full))
        #expect(second.headers["Content-Range"] == nil)
        #expect(second.headers["Content-Length"] == String(Self.full.count))
        #expect(try store.bodyData(bodyID: try #require(second.bodyID)) == Self.full)
        #expect(try store.partialVariants(url: Self.url).isEmpty)
        #expect(try store.variants(url: Self.url).map(\.id) == [first.id])
        #expect(try rowCount(store, "entry_part") == 0)
        #expect(try store.totals() == scannedTotals(store))
        #expect(try await store.verify().problems.isEmpty)
    }

    @Test func partsInsideOthersAreDroppedAndOthersKept() async throws {
        try await savePart(1_000..<2_000)
        try await savePart(5_000..<6_000)
        try await savePart(1_200..<1_300)  // inside the first: dropped
        try await savePart(0..<3_000)  // holds the first: it goes
        let partial = try #require(try store.partialVariants(url: Self.url).first)
        #expect(partial.parts.map(\.span) == [0...2_999, 5_000...5_999])
        #expect(partial.entry.bodySize == 4_000)
        #expect(try store.totals() == scannedTotals(store))
        #expect(try await store.verify().problems.isEmpty)
    }

    @Test(arguments: [
        ("§3.4 another strong tag", #""v1""#, #""v2""#),
        ("§3.4 weak tags are never combined", #"W/"v1""#, #"W/"v1""#),
    ])
    func partsOfAnotherValidatorAreDiscarded(rule: String, firstTag: String, secondTag: String) async throws {
        try await savePart(0..<100, etag: firstTag)
        let other = Data(Self.full.reversed())
        try await savePart(200..<300, of: other, etag: secondTag)
        let partial = try #require(try store.partialVariants(url: Self.url).first, "\(rule)")
        #expect(partial.parts.map(\.span) == [200...299], "\(rule)")
        #expect(partial.entry.etag == secondTag, "\(rule)")
        #expect(try rowCount(store, "body") == 2, "\(rule): the empty body and the one part")
        #expect(try store.totals() == scannedTotals(store), "\(rule)")
    }

    @Test func aCompleteEntryWithTheSameTagIsKept() async throws {
        let complete = try await store.save(makeEntry(Self.url, headers: ["ETag": #""v1""#]), body: Self.full)
        let after = try await savePart(0..<100)
        #expect(after.id == complete.id)
        #expect(!after.isPartial)
        #expect(after.bodyHash == complete.bodyHash)
        #expect(try rowCount(store, "body") == 1)
        #expect(try store.totals() == scannedTotals(store))
    }

    @Test func aCompleteEntryWithAnotherTagIsReplacedByThePart() async throws {
        try await store.save(makeEntry(Self.url, headers: ["ETag": #""v0""#]), body: Data("old".utf8))
        try await savePart(0..<100)
        #expect(try store.variants(url: Self.url).isEmpty)
        #expect(try store.partialVariants(url: Self.url).first?.parts.count == 1)
    }

    @Test func aCompleteSaveReplacesThePartsOfTheSameIdentity() async throws {
        try await savePart(0..<100)
        try await store.save(makeEntry(Self.url, headers: ["ETag": #""v1""#]), body: Self.full)
        #expect(try store.partialVariants(url: Self.url).isEmpty)
        #expect(try rowCount(store, "entry_part") == 0)
        #expect(try store.totals() == scannedTotals(store))
        #expect(try await store.verify().problems.isEmpty)
    }

    // MARK: - Never a complete response; counted, pruned, evicted like others

    @Test func aPartialEntryIsNeverReadAsAResponse() async throws {
        try await savePart(0..<100)
        try await store.setEdges([PageEdge(resourceURL: Self.url, kind: "media")], forPage: "https://example.test/")
        #expect(try store.variants(url: Self.url).isEmpty)
        #expect(try store.entry(url: Self.url) == nil)
        #expect(try await store.lookup(url: Self.url) == nil)
        #expect(try store.pageStatus(forPage: "https://example.test/").missing == [Self.url])
        let listed = try store.entries(url: Self.url)
        #expect(listed.map(\.completeLength) == [Int64(Self.full.count)])
        let statistics = try await store.statistics(at: referenceDate)
        #expect(statistics.partialCount == 1)
        #expect(statistics.totals.entryCount == 1)
    }

    @Test func aPartialEntryIsNeverTheFirstEntryOfTheEmptyBody() async throws {
        let partial = try await savePart(0..<100)
        let empty = try await store.save(makeEntry("https://example.test/empty"), body: Data())
        let emptyBody = try #require(empty.bodyID)
        #expect(partial.bodyID == emptyBody)

        let first = try store.firstEntry(withBodyID: emptyBody)

        #expect(first?.id == empty.id)
    }

    @Test func pruningAPartialEntryFreesItsParts() async throws {
        try await savePart(0..<100_000)
        try await savePart(200_000..<300_000)
        let result = try await store.prune(PruneCriteria(host: "example.test"))
        #expect(result.entryCount == 1)
        #expect(result.freedBytes == 200_000)
        for table in ["entry", "entry_part", "body", "body_chunk"] {
            #expect(try rowCount(store, table) == 0, "\(table)")
        }
        #expect(try store.totals() == scannedTotals(store))
    }

    @Test func evictionTakesPartialEntriesLikeOthers() async throws {
        try await savePart(0..<300_000)
        let evicted = try await store.evict(toFit: 0)
        #expect(evicted.urls == [Self.url])
        #expect(try rowCount(store, "body") == 0)
    }

    // MARK: - Cover (which part holds which bytes)

    @Test(arguments: [
        ("one part holds it", [(0, 100)], 10...19, [(0, 10...19)], [] as [ClosedRange<Int64>]),
        ("a gap between parts", [(0, 100), (200, 100)], 50...249, [(0, 50...99), (200, 0...49)], [100...199]),
        ("nothing held", [(500, 10)], 0...9, [], [0...9]),
        ("before and after", [(10, 10)], 0...29, [(10, 0...9)], [0...9, 20...29]),
        ("the part reaching furthest is read", [(0, 50), (10, 100)], 0...99, [(0, 0...49), (10, 40...89)], []),
    ] as [(String, [(Int64, Int64)], ClosedRange<Int64>, [(Int64, ClosedRange<Int64>)], [ClosedRange<Int64>])])
    func cover(
        rule: String, parts: [(Int64, Int64)], range: ClosedRange<Int64>, pieces: [(Int64, ClosedRange<Int64>)],
        missing: [ClosedRange<Int64>]
    ) {
        let held = parts.enumerated().map { EntryPart(first: $1.0, length: $1.1, bodyID: Int64($0)) }
        let cover = EntryPart.cover(range, with: held)
        #expect(cover.pieces.map { $0.part.first } == pieces.map(\.0), "\(rule)")
        #expect(cover.pieces.map(\.range) == pieces.map(\.1), "\(rule)")
        #expect(cover.missing == missing, "\(rule)")
    }

    @Test(arguments: [
        ("one part", [(0, 100)], [0...99] as [ClosedRange<Int64>], 100 as Int64),
        ("overlapping parts count each byte once", [(0, 3_000), (1_000, 3_194)], [0...4_193], 4_194),
        ("adjoining parts join", [(0, 10), (10, 10)], [0...19], 20),
        ("a part inside another", [(0, 100), (10, 5)], [0...99], 100),
        ("a gap stays", [(200, 100), (0, 100)], [0...99, 200...299], 200),
    ] as [(String, [(Int64, Int64)], [ClosedRange<Int64>], Int64)])
    func heldSpans(rule: String, parts: [(Int64, Int64)], spans: [ClosedRange<Int64>], bytes: Int64) {
        let partial = PartialEntry(
            entry: makeEntry(Self.url),
            parts: parts.enumerated().map { EntryPart(first: $1.0, length: $1.1, bodyID: Int64($0)) })
        #expect(partial.heldSpans == spans, "\(rule)")
        #expect(partial.heldByteCount == bytes, "\(rule)")
    }

    // MARK: - Reading ranges of a body

    @Test(arguments: [
        0...0, 0...9, 100...CacheStore.chunkSize + 100, CacheStore.chunkSize - 1...CacheStore.chunkSize,
        CacheStore.chunkSize * 2...CacheStore.chunkSize * 2 + 999, 0...CacheStore.chunkSize * 2 + 999,
    ])
    func readsARangeFromTheChunksThatHoldIt(range: ClosedRange<Int>) async throws {
        let saved = try await store.save(makeEntry(Self.url), body: Self.full)
        var reader = store.bodyRange(bodyID: try #require(saved.bodyID),
                                     range: Int64(range.lowerBound)...Int64(range.upperBound))
        var read = Data()
        while let piece = try reader.next() {
            #expect(piece.count <= CacheStore.chunkSize)
            read.append(piece)
        }
        #expect(read == Self.full.subdata(in: range.lowerBound..<range.upperBound + 1))
    }

    @Test func aDamagedChunkInTheRangeIsNeverReturned() async throws {
        let saved = try await store.save(makeEntry(Self.url), body: Self.full)
        let bodyID = try #require(saved.bodyID)
        try await store.write("damage") { connection in
            try connection.run(
                "UPDATE body_chunk SET data = zeroblob(length(data)) WHERE body_id = ? AND seq = 1",
                [.integer(bodyID)])
        }
        // The first chunk is sound and read; the second is refused.
        var before = store.bodyRange(bodyID: bodyID, range: 0...99)
        #expect(try before.next()?.count == 100)
        let boundary = Int64(CacheStore.chunkSize)
        var across = store.bodyRange(bodyID: bodyID, range: boundary - 10...boundary + 10)
        #expect(try across.next()?.count == 10)
        let error = #expect(throws: CacheStore.Error.self) { try across.next() }
        #expect(error?.code == .damagedBody)
    }

    @Test func aBodyWithoutChunkChecksumsIsReadWholeAndCheckedAgainstItsSHA256() async throws {
        // Given a body as schema version 3 wrote it: no chunk checksums
        let saved = try await store.save(makeEntry(Self.url), body: Self.full)
        let bodyID = try #require(saved.bodyID)
        try await store.write("drop the checksums") { connection in
            try connection.run("UPDATE body_chunk SET checksum = NULL WHERE body_id = ?", [.integer(bodyID)])
        }
        let range: ClosedRange<Int64> = Int64(CacheStore.chunkSize) + 5...Int64(CacheStore.chunkSize) + 14
        var reader = store.bodyRange(bodyID: bodyID, range: range)
        var read = Data()
        while let piece = try reader.next() { read.append(piece) }
        #expect(read == Self.full.subdata(in: CacheStore.chunkSize + 5..<CacheStore.chunkSize + 15))
        // When a chunk after the range is damaged, the end of the read says so
        try await store.write("damage") { connection in
            try connection.run(
                "UPDATE body_chunk SET data = zeroblob(length(data)) WHERE body_id = ? AND seq = 2", [.integer(bodyID)])
        }
        var damaged = store.bodyRange(bodyID: bodyID, range: range)
        #expect(try damaged.next()?.count == 10)
        let error = #expect(throws: CacheStore.Error.self) { try damaged.next() }
        #expect(error?.code == .damagedBody)
    }

    @Test func aRangePastTheBodyIsRefused() async throws {
        let saved = try await store.save(makeEntry(Self.url), body: Data("short".utf8))
        var reader = store.bodyRange(bodyID: try #require(saved.bodyID), range: 0...99)
        #expect(throws: CacheStore.Error.self) { try reader.next() }
    }
}
