import CSQLite
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// ``CacheStore/merge(from:)`` of partial entries (RFC 9111 §3.3), between real store files: a partial
/// entry comes with its parts and their bodies.
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

    /// Saves bytes `range` of ``full`` as a part in `store`.
    @discardableResult
    private func savePart(_ range: Range<Int>, in store: CacheStore) async throws -> CacheEntry {
        let headers: HTTPHeaders = [
            "ETag": #""v1""#, "Content-Type": "video/webm",
            "Content-Range": "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(Self.full.count)",
        ]
        var complete = headers
        complete.remove("Content-Range")
        complete["Content-Length"] = String(Self.full.count)
        var writer = store.makeBodyWriter()
        try await writer.write(Self.full.subdata(in: range))
        return try await store.savePart(
            makeEntry(Self.url, headers: headers), first: Int64(range.lowerBound),
            completeLength: Int64(Self.full.count), completeHeaders: complete, body: writer)
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
}
