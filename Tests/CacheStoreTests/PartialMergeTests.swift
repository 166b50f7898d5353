import CSQLite
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// ``CacheStore/merge(from:)`` of partial entries (RFC 9111 §3.3, §3.4), between real store files: a
/// partial entry comes with its parts and their bodies, and the store's own rule for parts decides
/// between a partial and a complete entry of the same representation. ``CacheStore/salvage(from:into:configuration:)``
/// copies a partial entry with every part, or loses it whole.
@Suite(.timeLimit(.minutes(1)))
struct PartialMergeTests {
    let folder: TemporaryFolder
    let source: CacheStore
    let target: CacheStore
    static let url = "https://example.test/video.webm"
    /// Over two chunks and a bit, so that parts cross chunk boundaries.
    static let full = makeBody(size: CacheStore.chunkSize * 2 + 1_000, seed: 9)

    init() throws {
        folder = try TemporaryFolder()
        source = try CacheStore(path: folder.path("source.sqlite"), configuration: configuration())
        target = try CacheStore(path: folder.path("target.sqlite"), configuration: configuration())
    }

    /// An entry of ``url`` with `headers`, received `offset` seconds after the reference date.
    private static func entry(headers: HTTPHeaders, at offset: TimeInterval) -> CacheEntry {
        var entry = makeEntry(url, headers: headers)
        entry.requestTime = referenceDate.addingTimeInterval(offset)
        entry.responseTime = entry.requestTime
        entry.freshUntil = entry.requestTime.addingTimeInterval(600)
        return entry
    }

    /// Saves bytes `range` of `content` as a part with `etag` in `store`, received `offset` seconds
    /// after the reference date.
    @discardableResult
    private func savePart(
        _ range: Range<Int>, of content: Data = full, etag: String = #""v1""#, at offset: TimeInterval = 0,
        pinned: Bool = false, in store: CacheStore
    ) async throws -> CacheEntry {
        let headers: HTTPHeaders = [
            "ETag": etag, "Content-Type": "video/webm",
            "Content-Range": "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(content.count)",
        ]
        var entry = Self.entry(headers: headers, at: offset)
        entry.pinned = pinned
        var writer = store.makeBodyWriter()
        try await writer.write(content.subdata(in: range))
        return try await store.savePart(
            entry, first: Int64(range.lowerBound), completeLength: Int64(content.count),
            completeHeaders: PartialEntry.completeHeaders(headers, completeLength: Int64(content.count)),
            body: writer)
    }

    /// Saves `content` whole with `etag` in `store`, received `offset` seconds after the reference date.
    @discardableResult
    private func saveComplete(
        _ content: Data = full, etag: String = #""v1""#, at offset: TimeInterval = 0, in store: CacheStore
    ) async throws -> CacheEntry {
        let headers: HTTPHeaders = ["ETag": etag, "Content-Type": "video/webm", "Content-Length": "\(content.count)"]
        return try await store.save(Self.entry(headers: headers, at: offset), body: content)
    }

    /// The bytes of ``full`` that `part` holds.
    private static func bytes(of part: EntryPart) -> Data {
        full.subdata(in: Int(part.first)..<Int(part.first + part.length))
    }

    @Test func aPartialEntryComesWithItsPartsAndTheirBodies() async throws {
        // Given a partial entry of two parts
        try await savePart(1_000..<2_000, in: source)
        try await savePart(300_000..<Self.full.count, in: source)

        // When
        let report = try await target.merge(from: source)

        // Then its parts are merged with it, their bodies copied
        #expect(report.mergedEntries == 1)
        #expect(report.copiedBodies == 2)
        let merged = try #require(try target.partialVariants(url: Self.url).first)
        #expect(merged.completeLength == Int64(Self.full.count))
        #expect(merged.parts.map(\.span) == [1_000...1_999, 300_000...Int64(Self.full.count - 1)])
        #expect(merged.entry.bodySize == 1_000 + Int64(Self.full.count - 300_000))
        for part in merged.parts {
            #expect(try target.bodyData(bodyID: part.bodyID) == Self.bytes(of: part))
        }
        #expect(try target.totals() == scannedTotals(target))
        #expect(try await target.verify().problems.isEmpty)
    }

    @Test func aPartsBodyAlreadyStoredIsShared() async throws {
        // Given the target holds a response whose body is the bytes of a part
        let same = try await target.save(
            makeEntry("https://example.test/same"), body: Self.full.subdata(in: 1_000..<2_000))
        try await savePart(1_000..<2_000, in: source)
        try await savePart(5_000..<6_000, in: source)

        // When
        let report = try await target.merge(from: source)

        // Then that body is shared, the other copied
        #expect(report.copiedBodies == 1)
        let merged = try #require(try target.partialVariants(url: Self.url).first)
        #expect(merged.parts.map(\.bodyID).first == same.bodyID)
        #expect(try target.totals() == scannedTotals(target))
        #expect(try await target.verify().problems.isEmpty)
    }

    @Test func aDamagedPartRefusesTheSourceWhole() async throws {
        // Given a source whose part's bytes were zeroed in the file, after a sound entry
        try await source.save(makeEntry("https://example.test/sound"), body: Data("sound".utf8))
        try await savePart(1_000..<2_000, in: source)
        let bodyID = try #require(try source.partialVariants(url: Self.url).first?.parts.first?.bodyID)
        try Connection(path: source.path, flags: SQLITE_OPEN_READWRITE)
            .execute(sql: "UPDATE body_chunk SET data = zeroblob(length(data)) WHERE body_id = \(bodyID)")

        // When / Then
        let error = try await #require(throws: CacheStore.Error.self) { try await target.merge(from: source) }
        #expect(error.code == .damagedBody)
        #expect(try rowCount(target, "entry") == 0)
        #expect(try rowCount(target, "body") == 0)
    }

    // MARK: - Salvage

    @Test func salvageCopiesAPartialEntryWithItsParts() async throws {
        // Given a store with a partial entry of two parts, and a sound entry
        try await source.save(makeEntry("https://example.test/sound"), body: Data("sound".utf8))
        try await savePart(1_000..<2_000, in: source)
        try await savePart(300_000..<Self.full.count, in: source)
        try await source.close()

        // When
        let recovered = folder.path("recovered.sqlite")
        let report = try await CacheStore.salvage(from: source.path, into: recovered)

        // Then the partial entry comes with its parts and their bytes
        #expect(report.savedEntries == 2)
        #expect(report.lostEntries == 0)
        let store = try CacheStore(path: recovered, configuration: configuration())
        let salvaged = try #require(try store.partialVariants(url: Self.url).first)
        #expect(salvaged.parts.map(\.span) == [1_000...1_999, 300_000...Int64(Self.full.count - 1)])
        for part in salvaged.parts {
            #expect(try store.bodyData(bodyID: part.bodyID) == Self.bytes(of: part))
        }
        #expect(try store.totals() == scannedTotals(store))
        #expect(try await store.verify().problems.isEmpty)
        try await store.close()
    }

    @Test func salvageLosesAPartialEntryWhosePartIsDamagedAndNothingElse() async throws {
        // Given a store whose partial entry's second part was zeroed in the file, beside a sound entry
        try await source.save(makeEntry("https://example.test/sound"), body: Data("sound".utf8))
        try await savePart(1_000..<2_000, in: source)
        try await savePart(5_000..<6_000, in: source)
        let bodyID = try #require(try source.partialVariants(url: Self.url).first?.parts.last?.bodyID)
        try await source.close()
        try Connection(path: source.path, flags: SQLITE_OPEN_READWRITE)
            .execute(sql: "UPDATE body_chunk SET data = zeroblob(length(data)) WHERE body_id = \(bodyID)")

        // When
        let recovered = folder.path("recovered.sqlite")
        let report = try await CacheStore.salvage(from: source.path, into: recovered)

        // Then the partial entry is lost whole, named, and the sound entry saved
        #expect(report.savedEntries == 1)
        #expect(report.lostEntries == 1)
        #expect(report.problems
            == ["\(Self.url) was lost: the body of its part from byte 5000 no longer hashes to its SHA-256."])
        let store = try CacheStore(path: recovered, configuration: configuration())
        #expect(try store.partialVariants(url: Self.url).isEmpty)
        #expect(try rowCount(store, "entry_part") == 0)
        #expect(try await store.verify().problems.isEmpty)
        try await store.close()
    }

    @Test func aPartialEntryWithoutItsPartsIsLeftOut() async throws {
        // Given a source whose partial entry lost its parts, and the whole response of another tag here
        try await saveComplete(Data("before".utf8), etag: #""v0""#, in: target)
        let entryID = try #require(try await savePart(1_000..<2_000, at: 10, in: source).id)
        try Connection(path: source.path, flags: SQLITE_OPEN_READWRITE)
            .execute(sql: "PRAGMA foreign_keys = ON; DELETE FROM entry_part WHERE entry_id = \(entryID)")

        // When
        let report = try await target.merge(from: source)

        // Then it holds nothing to merge: the response here stays
        #expect(report.mergedEntries == 0)
        #expect(try await target.lookup(url: Self.url)?.body == Data("before".utf8))
        #expect(try target.partialVariants(url: Self.url).isEmpty)
        #expect(try await target.verify().problems.isEmpty)
    }

    // MARK: - The same representation (§3.4)

    @Test func aNewerPartIsLeftOutForTheCompleteEntryOfItsRepresentation() async throws {
        // Given the target holds the whole response, the source a newer part of it, pinned
        let complete = try await saveComplete(in: target)
        try await savePart(0..<100, at: 10, pinned: true, in: source)

        // When
        let report = try await target.merge(from: source)

        // Then the complete entry stays, and takes the pin
        #expect(report.heldWhole == 1)
        #expect(report.mergedEntries == 0)
        #expect(report.copiedBodies == 0)
        let kept = try #require(try target.entry(url: Self.url))
        #expect(kept.id == complete.id)
        #expect(kept.pinned)
        #expect(try await target.lookup(url: Self.url)?.body == Self.full)
        #expect(try target.partialVariants(url: Self.url).isEmpty)
        #expect(try target.totals() == scannedTotals(target))
        #expect(try await target.verify().problems.isEmpty)
    }

    @Test func aCompleteEntryReplacesANewerPartOfItsRepresentation() async throws {
        // Given the target holds a part, the source the whole response, received before it
        try await savePart(0..<100, at: 10, in: target)
        try await saveComplete(at: 0, in: source)

        // When
        let report = try await target.merge(from: source)

        // Then the whole response is stored, the part gone
        #expect(report.mergedEntries == 1)
        #expect(report.olderEntries == 0)
        #expect(try await target.lookup(url: Self.url)?.body == Self.full)
        #expect(try target.partialVariants(url: Self.url).isEmpty)
        #expect(try rowCount(target, "entry_part") == 0)
        #expect(try target.totals() == scannedTotals(target))
        #expect(try await target.verify().problems.isEmpty)
    }

    @Test(arguments: [(target: 10.0, source: 0.0), (target: 0.0, source: 10.0)])
    func partsOfOneRepresentationAreCombinedUnderTheNewerFields(target targetTime: Double, source sourceTime: Double)
        async throws
    {
        // Given a part in each store
        try await savePart(0..<1_000, at: targetTime, in: target)
        try await savePart(5_000..<6_000, at: sourceTime, in: source)

        // When
        let report = try await target.merge(from: source)

        // Then the parts are combined, and the entry has the fields of the newer
        #expect(report.mergedEntries == 1)
        let merged = try #require(try target.partialVariants(url: Self.url).first)
        #expect(merged.parts.map(\.span) == [0...999, 5_000...5_999])
        #expect(merged.entry.bodySize == 2_000)
        #expect(merged.entry.responseTime == referenceDate.addingTimeInterval(10))
        #expect(merged.entry.headers["Content-Range"] == (targetTime > sourceTime ? "bytes 0-999/" : "bytes 5000-5999/")
            + String(Self.full.count))
        #expect(try target.totals() == scannedTotals(target))
        #expect(try await target.verify().problems.isEmpty)
    }

    @Test func partsThatTogetherHoldEveryByteBecomeACompleteEntry() async throws {
        // Given the start in the target, the rest in the source
        try await savePart(0..<300_000, in: target)
        try await savePart(200_000..<Self.full.count, at: 10, in: source)

        // When
        let report = try await target.merge(from: source)

        // Then the entry is complete, with the whole body and the complete fields, as savePart makes it
        #expect(report.mergedEntries == 1)
        let complete = try #require(try target.entry(url: Self.url))
        #expect(complete.status == 200)
        #expect(complete.bodyHash == SHA256.hash(Self.full))
        #expect(complete.headers["Content-Range"] == nil)
        #expect(complete.headers["Content-Length"] == String(Self.full.count))
        #expect(try await target.lookup(url: Self.url)?.body == Self.full)
        #expect(try rowCount(target, "entry_part") == 0)
        #expect(try target.totals() == scannedTotals(target))
        #expect(try await target.verify().problems.isEmpty)
    }

    @Test func mergingTheSamePartsAgainChangesNothing() async throws {
        try await savePart(1_000..<2_000, in: source)
        try await savePart(5_000..<6_000, in: source)
        let first = try await target.merge(from: source)
        let stored = try #require(try target.partialVariants(url: Self.url).first)

        let again = try await target.merge(from: source)

        #expect(first.mergedEntries == 1)
        #expect(again.mergedEntries == 0)
        #expect(again.olderEntries == 1)
        #expect(again.copiedBodies == 0)
        #expect(try target.partialVariants(url: Self.url).first == stored)
    }

    // MARK: - Another representation: the response received last wins

    @Test(arguments: [true, false])
    func aNewerPartOfAnotherRepresentationReplacesTheEntryWhole(completeBefore: Bool) async throws {
        // Given the target holds another representation, whole or in part; the source a newer part
        let other = Data(Self.full.reversed())
        if completeBefore {
            try await saveComplete(other, etag: #""v0""#, in: target)
        } else {
            try await savePart(0..<100, of: other, etag: #""v0""#, in: target)
        }
        try await savePart(1_000..<2_000, at: 10, in: source)

        // When
        let report = try await target.merge(from: source)

        // Then the new part alone is stored, and the old bytes are gone
        #expect(report.mergedEntries == 1)
        #expect(try target.variants(url: Self.url).isEmpty)
        let merged = try #require(try target.partialVariants(url: Self.url).first)
        #expect(merged.entry.etag == #""v1""#)
        #expect(merged.parts.map(\.span) == [1_000...1_999])
        #expect(try rowCount(target, "body") == 2, "the empty body and the one part")
        #expect(try target.totals() == scannedTotals(target))
        #expect(try await target.verify().problems.isEmpty)
    }

    @Test(arguments: [true, false])
    func anOlderPartOfAnotherRepresentationIsLeftOut(completeBefore: Bool) async throws {
        let other = Data(Self.full.reversed())
        if completeBefore {
            try await saveComplete(other, etag: #""v0""#, at: 10, in: target)
        } else {
            try await savePart(0..<100, of: other, etag: #""v0""#, at: 10, in: target)
        }
        let before = try target.entries(url: Self.url)
        try await savePart(1_000..<2_000, at: 0, in: source)

        let report = try await target.merge(from: source)

        #expect(report.olderEntries == 1)
        #expect(report.mergedEntries == 0)
        #expect(try target.entries(url: Self.url) == before)
        #expect(try await target.verify().problems.isEmpty)
    }
}
