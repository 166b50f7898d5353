import CSQLite
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// `verify` on stores damaged through a connection of their own, as another program might damage
/// them: each kind of problem is reported, and names the body, entry or row that is wrong.
@Suite(.timeLimit(.minutes(5)))
struct VerificationTests {
    typealias Kind = VerifyReport.Problem.Kind

    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    /// A sound store was damaged: what `verify` reported, and the entry the damage aimed at.
    private struct Damaged {
        let report: VerifyReport
        /// The entry whose body has three chunks.
        let big: CacheEntry

        var bigBodyID: Int64 { big.bodyID ?? -1 }
        var bigEntryID: Int64 { big.id ?? -1 }
        var kinds: [VerifyReport.Problem.Kind] { report.problems.map(\.kind) }
        var messages: [String] { report.problems.map(\.message) }
    }

    /// Saves an entry with a three-chunk body and a small one beside it, checks that the store verifies
    /// clean, runs `damage(big)` as raw SQL with foreign keys off, then reopens the store and verifies it.
    private func verify(afterDamage damage: (_ big: CacheEntry) -> String) async throws -> Damaged {
        let path = folder.path("damaged.sqlite")
        let store = try CacheStore(path: path, configuration: configuration())
        let big = try await store.save(
            makeEntry("https://a.test/big"), body: makeBody(size: 2 * CacheStore.chunkSize + 10, seed: 1))
        try await store.save(makeEntry("https://a.test/small"), body: makeBody(size: 100, seed: 2))
        let sound = try await store.verify()
        #expect(sound.isSound, "\(sound.problems)")
        #expect(sound.checkedBodies == 2)
        #expect(sound.checkedEntries == 2)
        try await store.close()

        let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE)
        try connection.execute(sql: damage(big))
        let reopened = try CacheStore(path: path)
        let report = try await reopened.verify()
        try await reopened.close()
        return Damaged(report: report, big: big)
    }

    /// A closed store with `count` entries whose bodies of about two pages start with a marker naming
    /// the entry; returns its path.
    private func makeStore(_ name: String, count: Int) async throws -> String {
        let path = folder.path(name)
        let store = try CacheStore(path: path, configuration: configuration())
        for index in 0..<count {
            let body = Data("marker-\(index)-".utf8) + makeBody(size: 6_000, seed: UInt8(index))
            try await store.save(makeEntry("https://a.test/r\(index)"), body: body)
        }
        try await store.close()
        return path
    }

    @Test func aDamagedPageCostsOnlyTheBodiesOnItAndTheirEntriesAreNamed() async throws {
        // Given: the page holding the start of the body of r3 destroyed
        let path = try await makeStore("page.sqlite", count: 8)
        try DamagedPage.destroy(containing: "marker-3-", in: path)

        // When
        let report = try await withCacheStore(at: path) { store in try await store.verify() }

        // Then: r3's body is reported unreadable, naming its URL, and the other bodies were all checked
        let unreadable = report.problems.filter { $0.kind == .unreadable && !$0.urls.isEmpty }
        let r3 = try #require(unreadable.first { $0.urls == ["https://a.test/r3"] }, "\(report.problems)")
        #expect(r3.message.hasPrefix("The body of https://a.test/r3 (body "))
        #expect(r3.message.contains(") cannot be read: the store file is damaged there ("))
        #expect(report.checkedBodies == 8 - unreadable.count)
        #expect(report.checkedBodies >= 6)
        #expect(report.checkedEntries == 8)
        #expect(report.problems.contains { $0.kind == .integrity })
        #expect(!report.problems.contains { $0.kind == .bodyHash })
    }

    @Test func aDamagedEntryTableIsReportedAndTheBodiesAreStillChecked() async throws {
        // Given: the entry table's page destroyed (its rows alone hold the header lines)
        let path = try await makeStore("entries.sqlite", count: 4)
        try DamagedPage.destroy(containing: "ETag: \"v1\"", in: path)

        // When
        let report = try await withCacheStore(at: path) { store in try await store.verify() }

        // Then
        let unreadable = report.problems.filter { $0.kind == .unreadable }.map(\.message)
        #expect(unreadable.contains { $0.hasPrefix("The entries cannot be read: the store file is damaged there") },
                "\(report.problems)")
        #expect(report.checkedEntries == 0)
        #expect(report.checkedBodies == 4)
        #expect(!report.problems.contains { $0.kind == .bodyHash || $0.kind == .missingBody })
    }

    @Test func aBodysEntriesAreNamedInTheirOrderAcrossADamagedPartOfTheEntryTable() async throws {
        // Given: 400 entries, the even ones sharing one body, whose recorded size is then made wrong, and
        // the page of the entry table holding entry 200 destroyed
        let path = folder.path("shared.sqlite")
        let store = try CacheStore(path: path, configuration: configuration())
        for index in 0..<400 {
            let body = index.isMultiple(of: 2) ? Data("shared".utf8) : Data("own \(index)".utf8)
            try await store.save(makeEntry(String(format: "https://a.test/p%04d", index)), body: body)
        }
        try await store.close()
        let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE)
        try connection.execute(sql: "UPDATE body SET size = size + 1 WHERE id = (SELECT body_id FROM entry WHERE id = 1)")
        try DamagedPage.destroy(containing: "https://a.test/p0200", in: path)

        // When
        let report = try await withCacheStore(at: path) { store in try await store.verify() }

        // Then the entries before and after the damage are named in the order of their rows
        #expect(report.problems.contains { $0.kind == .unreadable }, "\(report.problems)")
        let size = try #require(report.problems.first { $0.kind == .bodySize && $0.message.hasPrefix("The body of") })
        #expect(size.urls.count > 100 && size.urls.count < 200, "\(size.urls.count)")
        #expect(size.urls == size.urls.sorted(), "\(size.urls)")
        #expect(size.urls.first == "https://a.test/p0000" && size.urls.last == "https://a.test/p0398")
        #expect(size.message.hasPrefix("The body of https://a.test/p0000, https://a.test/p0002, https://a.test/p0004 and "))
    }

    @Test func cancellingTheCallerStopsVerification() async throws {
        let store = try CacheStore(path: folder.path("cancel.sqlite"), configuration: configuration())
        try await store.save(makeEntry("https://a.test/x"), body: makeBody(size: 1_000, seed: 1))
        let outcome = await withTaskGroup(of: Result<VerifyReport, any Error>.self) { group in
            group.cancelAll()
            group.addTask {
                do {
                    return .success(try await store.verify())
                } catch {
                    return .failure(error)
                }
            }
            return await group.next()!
        }
        #expect(throws: CancellationError.self) { try outcome.get() }
        // The reader connection is free again
        #expect(try await store.verify().isSound)
        try await store.close()
    }

    @Test func aTamperedChunkAndWrongTotalsAreFound() async throws {
        let damaged = try await verify { big in
            """
            UPDATE body_chunk SET data = zeroblob(length(data)) WHERE body_id = \(big.bodyID ?? -1) AND seq = 1;
            UPDATE store_totals SET entry_count = 7
            """
        }
        #expect(damaged.kinds == [.bodyHash, .chunkChecksum, .totals])
        let body = "The body of https://a.test/big (body \(damaged.bigBodyID))"
        #expect(Array(damaged.messages.prefix(2)) == [
            "\(body) does not hash to its SHA-256.",
            "\(body) has chunks that do not match their CRC-32 (1).",
        ])
        #expect(damaged.report.problems.first?.urls == ["https://a.test/big"])
        #expect(damaged.report.checkedBodies == 2)
        #expect(damaged.messages.last == "The running totals disagree with the rows: entries 7 (the rows hold 2).")
    }

    /// The running totals are only ever wrong in a damaged store: the figures `inspect` shows are
    /// counted from the rows, with the totals beside them, and recomputing the totals puts them right
    /// in one transaction, a missing row of them included.
    @Test(arguments: [
        ("UPDATE store_totals SET entry_count = 0, body_bytes = 1", "The running totals disagree with the rows: "
            + "entries 0 (the rows hold 2), body bytes 1 (the rows hold \(2 * CacheStore.chunkSize + 110))."),
        ("DELETE FROM store_totals", "The running totals are missing from the store."),
    ])
    func runningTotalsThatDisagreeWithTheRowsAreNamedAndRecomputed(damage: String, message: String) async throws {
        let damaged = try await verify { _ in damage }
        #expect(damaged.kinds == [.totals])
        #expect(damaged.messages == [message])
        let bytes = Int64(2 * CacheStore.chunkSize + 110)
        let counted = StoreTotals(entryCount: 2, entryBytes: bytes, bodyCount: 2, bodyBytes: bytes)

        let store = try CacheStore(path: folder.path("damaged.sqlite"), configuration: configuration())
        let before = try await store.statistics()
        let recomputed = try await store.recomputeTotals()
        let after = try await store.statistics()
        let report = try await store.verify()
        try await store.close()

        #expect(before.totals == counted)
        #expect(before.runningTotals != counted)
        #expect(before.hosts.map(\.entryCount) == [2])
        #expect(recomputed == counted)
        #expect(after.runningTotals == counted)
        #expect(report.isSound, "\(report.problems)")
    }

    @Test func aDeletedChunkRowIsFoundWithTheBytesItTookAway() async throws {
        let damaged = try await verify { big in
            "DELETE FROM body_chunk WHERE body_id = \(big.bodyID ?? -1) AND seq = 1"
        }
        // The lost bytes also change the body's size and hash; each check names the same body.
        #expect(damaged.kinds == [.bodyChunks, .bodySize, .bodyHash])
        let id = damaged.bigBodyID
        let remaining = damaged.big.bodySize - Int64(CacheStore.chunkSize)
        let body = "The body of https://a.test/big (body \(id))"
        #expect(damaged.messages == [
            "\(body) has 2 chunks, not 0..<3 in order.",
            "\(body) has \(remaining) bytes, not the \(damaged.big.bodySize) recorded.",
            "\(body) does not hash to its SHA-256.",
        ])
    }

    @Test func aChecksumLostOrChangedIsFoundThoughTheBytesAreSound() async throws {
        let damaged = try await verify { big in
            """
            UPDATE body_chunk SET checksum = NULL WHERE body_id = \(big.bodyID ?? -1) AND seq = 0;
            UPDATE body_chunk SET checksum = 0 WHERE body_id = \(big.bodyID ?? -1) AND seq = 2
            """
        }
        let body = "The body of https://a.test/big (body \(damaged.bigBodyID))"
        #expect(damaged.kinds == [.chunkChecksum, .chunkChecksum])
        #expect(damaged.messages == [
            "\(body) has chunks that do not match their CRC-32 (2).",
            "\(body) has a CRC-32 on 2 of its 3 chunks, not on all or none.",
        ])
    }

    @Test func aLongListOfDamagedChunksNamesTheFirstTen() async throws {
        let path = folder.path("long.sqlite")
        let store = try CacheStore(path: path, configuration: configuration())
        try await store.save(makeEntry("https://a.test/long"), body: makeBody(size: 12 * CacheStore.chunkSize + 1, seed: 3))
        try await store.close()
        try Connection(path: path, flags: SQLITE_OPEN_READWRITE)
            .execute(sql: "UPDATE body_chunk SET checksum = (checksum + 1) % 4294967296")

        let report = try await withCacheStore(at: path) { try await $0.verify() }

        #expect(report.problems.map(\.message) == [
            "The body of https://a.test/long (body 1) has chunks that do not match their CRC-32 "
                + "(0, 1, 2, 3, 4, 5, 6, 7, 8, 9 and 3 more)."
        ])
    }

    @Test func chunksOutOfOrderAreFoundThoughTheBytesAreAllThere() async throws {
        let damaged = try await verify { big in
            "UPDATE body_chunk SET seq = 7 WHERE body_id = \(big.bodyID ?? -1) AND seq = 2"
        }
        // A chunk's checksum covers its place, so the moved chunk fails it too.
        let body = "The body of https://a.test/big (body \(damaged.bigBodyID))"
        #expect(damaged.kinds == [.bodyChunks, .chunkChecksum])
        #expect(damaged.messages == [
            "\(body) has 3 chunks, not 0..<3 in order.",
            "\(body) has chunks that do not match their CRC-32 (7).",
        ])
    }

    @Test func aBodySizeThatDiffersFromItsBytesIsFound() async throws {
        // Every record agrees on the wrong size (the body, its entry, the totals); only the bytes differ.
        let damaged = try await verify { big in
            let id = big.bodyID ?? -1
            return """
                UPDATE body SET size = size + 1 WHERE id = \(id);
                UPDATE entry SET body_size = body_size + 1 WHERE body_id = \(id);
                UPDATE store_totals SET body_bytes = body_bytes + 1
                """
        }
        let size = damaged.big.bodySize
        #expect(damaged.kinds == [.bodySize])
        #expect(damaged.messages == [
            "The body of https://a.test/big (body \(damaged.bigBodyID)) has \(size) bytes, not the \(size + 1) "
                + "recorded."
        ])
    }

    @Test func anEntryRecordingAnotherSizeThanItsBodyIsFound() async throws {
        // The update trigger keeps the totals in step with the entry's recorded size.
        let damaged = try await verify { big in "UPDATE entry SET body_size = 5 WHERE id = \(big.id ?? -1)" }
        #expect(damaged.kinds == [.bodySize])
        #expect(damaged.messages == [
            "Entry \(damaged.bigEntryID) for https://a.test/big records a body size that differs from its body."
        ])
    }

    @Test(arguments: [
        ("every part gone", "", Kind.missingBody, "records 2000 bytes in parts, but has no parts."),
        ("a part gone", " AND first = 5000", Kind.bodySize, "records 2000 bytes in parts, but its parts hold 1000."),
    ])
    func aPartialEntryWhosePartsAreGoneIsFound(case: String, which: String, kind: Kind, says: String) async throws {
        // Given a partial entry of two parts, whose parts went (with their bodies) as another program took them
        let path = folder.path("partial.sqlite")
        let url = "https://a.test/video.webm"
        let store = try CacheStore(path: path, configuration: configuration())
        var entryID: Int64 = -1
        for first in [1_000, 5_000] {
            let headers: HTTPHeaders = ["ETag": #""v1""#, "Content-Range": "bytes \(first)-\(first + 999)/10000"]
            var writer = store.makeBodyWriter()
            try await writer.write(makeBody(size: 1_000, seed: UInt8(first / 1_000)))
            let saved = try await store.savePart(
                makeEntry(url, headers: headers), first: Int64(first), completeLength: 10_000,
                completeHeaders: PartialEntry.completeHeaders(headers, completeLength: 10_000), body: writer)
            entryID = saved.id ?? -1
        }
        #expect(try await store.verify().isSound)
        try await store.close()
        try Connection(path: path, flags: SQLITE_OPEN_READWRITE)
            .execute(sql: "PRAGMA foreign_keys = ON; DELETE FROM entry_part WHERE entry_id = \(entryID)\(which)")

        // When
        let report = try await withCacheStore(at: path) { try await $0.verify() }

        // Then
        #expect(report.problems.map(\.kind) == [kind], "\(`case`)")
        #expect(report.problems.map(\.message) == ["Partial entry \(entryID) for \(url) \(says)"], "\(`case`)")
        #expect(report.problems.first?.urls == [url], "\(`case`)")
    }

    @Test func aWrongReferenceCountIsFound() async throws {
        let damaged = try await verify { big in "UPDATE body SET ref_count = 2 WHERE id = \(big.bodyID ?? -1)" }
        #expect(damaged.kinds == [.referenceCount])
        #expect(damaged.messages == [
            "The body of https://a.test/big (body \(damaged.bigBodyID)) records 2 references but 1 entries use it."
        ])
    }

    @Test func anEntryPointingAtAMissingBodyIsFound() async throws {
        // The delete trigger keeps the totals in step; the entry's foreign key is broken too.
        let damaged = try await verify { big in
            let id = big.bodyID ?? -1
            return "DELETE FROM body_chunk WHERE body_id = \(id); DELETE FROM body WHERE id = \(id)"
        }
        let entry = damaged.bigEntryID
        #expect(damaged.kinds == [.integrity, .missingBody])
        #expect(damaged.messages == [
            "Row \(entry) of table entry breaks a foreign key to body.",
            "Entry \(entry) for https://a.test/big points at a missing body.",
        ])
        #expect(damaged.report.checkedBodies == 1)
    }

    @Test func aChunkOfNoBodyBreaksAForeignKey() async throws {
        let damaged = try await verify { _ in "INSERT INTO body_chunk (body_id, seq, data) VALUES (999, 0, x'00')" }
        #expect(damaged.kinds == [.integrity])
        let message = try #require(damaged.messages.first)
        #expect(message.hasPrefix("Row ") && message.hasSuffix(" of table body_chunk breaks a foreign key to body."))
    }

    @Test func anIndexThatNoLongerMatchesItsTableFailsSQLitesIntegrityCheck() async throws {
        // The index is declared over another column than the one it was built from.
        let damaged = try await verify { _ in
            """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = 'CREATE INDEX entry_by_host ON entry(url)' WHERE name = 'entry_by_host';
            PRAGMA writable_schema = OFF
            """
        }
        #expect(Set(damaged.kinds) == [.integrity])
        #expect(damaged.messages.contains { $0.hasPrefix("SQLite integrity check: ") && $0.contains("entry_by_host") })
    }
}
