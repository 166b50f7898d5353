import CSQLite
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

@Suite(.timeLimit(.minutes(5)))
struct SalvageTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    /// A closed store with `count` entries whose bodies start with a marker naming the entry, and edges
    /// for one page; returns its path.
    private func makeStore(_ name: String, count: Int, bodySize: Int = 6_000) async throws -> String {
        let path = folder.path(name)
        let store = try CacheStore(path: path, configuration: configuration())
        for index in 0..<count {
            let body = Data("marker-\(index)-".utf8) + makeBody(size: bodySize, seed: UInt8(truncatingIfNeeded: index))
            try await store.save(makeEntry("https://example.test/r\(index)"), body: body)
        }
        try await store.setEdges(
            [PageEdge(resourceURL: "https://example.test/r0", kind: "page"),
             PageEdge(resourceURL: "https://example.test/r1", kind: "img"),
             PageEdge(resourceURL: "https://example.test/gone.png", kind: "img", failure: "HTTP 404")],
            forPage: "https://example.test/r0")
        try await store.close()
        return path
    }

    private func fileDigest(_ path: String) throws -> Data {
        SHA256.hash(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    // MARK: - Sound and damaged stores

    @Test func copiesEverySoundEntryWithItsBodyPinMetadataAndEdges() async throws {
        // Given: entries of one and several chunks, two sharing a body, one pinned
        let path = folder.path("sound.sqlite")
        let store = try CacheStore(path: path, configuration: configuration())
        let large = makeBody(size: CacheStore.chunkSize * 2 + 17, seed: 9)
        try await store.save(makeEntry("https://example.test/large"), body: large)
        try await store.save(makeEntry("https://example.test/a"), body: Data("shared".utf8))
        try await store.save(makeEntry("https://example.test/b", partition: "user-1"), body: Data("shared".utf8))
        try await store.save(makeEntry("https://example.test/empty"), body: Data())
        _ = try await store.setPinned(true, url: "https://example.test/a")
        try await store.setEdges([PageEdge(resourceURL: "https://example.test/a", kind: "page")],
                                 forPage: "https://example.test/a")
        try await store.close()

        // When
        let destination = folder.path("copy.sqlite")
        let report = try await CacheStore.salvage(from: path, into: destination)

        // Then
        #expect(report.savedEntries == 4)
        #expect(report.lostEntries == 0)
        #expect(report.savedEdges == 1)
        #expect(report.problems.isEmpty)
        try await withCacheStore(at: destination) { (copy: CacheStore) async throws in
            #expect(try await copy.verify().isSound)
            let entry = try #require(try copy.entry(url: "https://example.test/large"))
            #expect(try copy.bodyData(bodyID: try #require(entry.bodyID)) == large)
            #expect(entry.headers["ETag"] == "\"v1\"")
            #expect(entry.freshUntil == referenceDate.addingTimeInterval(600))
            #expect(try copy.entry(url: "https://example.test/a")?.pinned == true)
            #expect(try copy.entry(partition: "user-1", url: "https://example.test/b") != nil)
            #expect(try copy.totals().bodyCount == 3)
            #expect(try copy.pageStatus(forPage: "https://example.test/a").isComplete)
        }
    }

    /// Running totals that count more entries than the table holds, when every row could be read,
    /// are wrong, not a sign of rows lost: nothing is reported lost.
    @Test func totalsThatSayMoreThanTheRowsReadAreNoLoss() async throws {
        let path = try await makeStore("inflated.sqlite", count: 3)
        do {
            let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE)
            try connection.run("UPDATE store_totals SET entry_count = entry_count + 5 WHERE id = 1")
        }

        let report = try await CacheStore.salvage(from: path, into: folder.path("copy.sqlite"))

        #expect(report.savedEntries == 3)
        #expect(report.lostEntries == 0)
        #expect(report.isComplete, "\(report.problems)")
    }

    @Test func losesOnlyTheEntryWhoseBodyWasDamagedAndNeverWritesTheDamagedFile() async throws {
        // Given: bytes flipped inside the body of entry 3
        let path = try await makeStore("flipped.sqlite", count: 8)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let marker = try #require(bytes.firstRange(of: Data("marker-3-".utf8)))
        for offset in (marker.upperBound + 100)..<(marker.upperBound + 116) { bytes[offset] ^= 0xFF }
        try bytes.write(to: URL(fileURLWithPath: path))
        let digest = try fileDigest(path)

        // When
        let destination = folder.path("recovered.sqlite")
        let report = try await CacheStore.salvage(from: path, into: destination)

        // Then
        #expect(report.savedEntries == 7)
        #expect(report.lostEntries == 1)
        #expect(report.problems.count == 1)
        #expect(report.problems.first?.contains("https://example.test/r3") == true)
        #expect(report.savedEdges == 3)
        #expect(try fileDigest(path) == digest)
        try await withCacheStore(at: destination) { (copy: CacheStore) async throws in
            #expect(try await copy.verify().isSound)
            #expect(try copy.entry(url: "https://example.test/r3") == nil)
            #expect(try copy.entry(url: "https://example.test/r4") != nil)
            let status = try copy.pageStatus(forPage: "https://example.test/r0")
            #expect(status.resourceCount == 3)
            #expect(status.failures.count == 1)
        }
    }

    @Test func savesTheEntriesWhoseRowsAndBodiesPrecedeTheCutOfATruncatedStore() async throws {
        // Given: six entries with bodies of several pages each, in a file cut to 60% of its size, which the
        // store itself refuses to open. The body size makes SQLite keep only the minimum local payload of
        // each chunk row (https://www.sqlite.org/fileformat2.html#overflow_pages), so all six rows stay in
        // the table's first page, and their overflow pages follow in the order of saving.
        let path = try await makeStore("truncated.sqlite", count: 6, bodySize: 20_640)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(size * 6 / 10))
        try handle.close()
        #expect(throws: CacheStore.Error.self) { try CacheStore(path: path) }

        // When
        let destination = folder.path("recovered.sqlite")
        let report = try await CacheStore.salvage(from: path, into: destination)

        // Then: the first entries are saved, the last ones (bodies past the cut) are counted as lost
        #expect(report.savedEntries > 0, "\(report.problems)")
        #expect(report.lostEntries > 0)
        #expect(report.savedEntries + report.lostEntries == 6)
        #expect(report.problems.count == report.lostEntries)
        try await withCacheStore(at: destination) { (copy: CacheStore) async throws in
            #expect(try await copy.verify().isSound)
            #expect(try copy.entry(url: "https://example.test/r0") != nil)
            #expect(try copy.entry(url: "https://example.test/r5") == nil)
            #expect(try copy.totals().entryCount == Int64(report.savedEntries))
        }
    }

    @Test func savesThePageEdgesOnBothSidesOfADamagedPartOfTheirTable() async throws {
        // Given: 400 pages of two edges each (their table takes many file pages), one page of the
        // table overwritten in its middle
        let path = folder.path("edges.sqlite")
        let store = try CacheStore(path: path, configuration: configuration())
        try await store.save(makeEntry("https://example.test/app.css"), body: Data("p{}".utf8))
        let pages = (0..<400).map { String(format: "https://example.test/section/page-%03d-of-the-site.html", $0) }
        for page in pages {
            try await store.setEdges(
                [PageEdge(resourceURL: page, kind: "page"), PageEdge(resourceURL: "https://example.test/app.css", kind: "stylesheet")],
                forPage: page)
        }
        try await store.close()
        try DamagedPage.destroy(containing: "page-200-of-the-site", in: path)

        // When
        let destination = folder.path("recovered.sqlite")
        let report = try await CacheStore.salvage(from: path, into: destination)

        // Then: the edges before the damage and after it are saved, each once; the scan that stopped
        // is named
        #expect(report.problems.contains { $0.hasPrefix("Reading the page edges of '\(path)' in order stopped early: ") },
                "\(report.problems)")
        #expect(report.savedEdges > 0 && report.savedEdges < 800, "\(report.savedEdges)")
        try await withCacheStore(at: destination) { (copy: CacheStore) async throws in
            let saved = try copy.pages().map(\.url)
            #expect(saved.first == pages.first && saved.last == pages.last, "\(saved.count) pages")
            #expect(!saved.contains(pages[200]))
            #expect(Set(saved).count == saved.count)
            #expect(try copy.pageStatus(forPage: pages[399], partition: "guest").resourceCount == 2)
        }
    }

    @Test func namesEachEntryLostToADamagedPageAndSaysWhyInWords() async throws {
        // Given: the page holding the start of the body of r3 overwritten
        let path = try await makeStore("page.sqlite", count: 8)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        let marker = try #require(bytes.firstRange(of: Data("marker-3-".utf8)))
        let pageSize = Int(bytes[16]) << 8 | Int(bytes[17])
        let start = marker.lowerBound / pageSize * pageSize
        bytes.replaceSubrange(start..<(start + pageSize), with: Data(repeating: 0xFF, count: pageSize))
        try bytes.write(to: URL(fileURLWithPath: path))

        // When
        let report = try await CacheStore.salvage(from: path, into: folder.path("recovered.sqlite"))

        // Then: each loss names the entry's URL and the reason, without SQL
        #expect(report.lostEntries > 0)
        #expect(!report.isComplete)
        let r3 = try #require(report.problems.first { $0.hasPrefix("https://example.test/r3 was lost: ") })
        #expect(r3.hasSuffix(" cannot be read because the file is damaged there (database disk image is malformed)."))
        #expect(report.problems.count == report.lostEntries)
        for problem in report.problems {
            #expect(problem.hasPrefix("https://example.test/r"), "\(problem)")
            #expect(!problem.contains("SELECT") && !problem.contains("SQLite error"), "\(problem)")
        }
    }

    @Test func createsTheFolderOfTheNewStore() async throws {
        let path = try await makeStore("source.sqlite", count: 2)
        let destination = folder.path("new/folder/recovered.sqlite")

        let report = try await CacheStore.salvage(from: path, into: destination)

        #expect(report.savedEntries == 2)
        #expect(report.isComplete)
        let attributes = try FileManager.default.attributesOfItem(atPath: folder.path("new/folder"))
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o077 } == 0)
        try await withCacheStore(at: destination) { (copy: CacheStore) async throws in
            #expect(try copy.totals().entryCount == 2)
        }
    }

    // MARK: - Refusals

    @Test(arguments: [("empty", Data(), "is empty"), ("text", Data("not a store\n".utf8), "not an SQLite database")])
    func refusesAFileWithNothingToSalvage(name: String, contents: Data, phrase: String) async throws {
        let path = folder.path("\(name).sqlite")
        try contents.write(to: URL(fileURLWithPath: path))
        let destination = folder.path("\(name)-recovered.sqlite")

        let error = await #expect(throws: CacheStore.Error.self) {
            try await CacheStore.salvage(from: path, into: destination)
        }

        #expect(error?.code == .notADatabase)
        #expect(error?.message.contains(path) == true)
        #expect(error?.message.contains(phrase) == true)
        #expect(!FileManager.default.fileExists(atPath: destination))
    }

    @Test func refusesAForeignSQLiteDatabaseAndRemovesTheNewStore() async throws {
        let path = folder.path("foreign.sqlite")
        let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try connection.execute(sql: "CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('x')")
        let destination = folder.path("foreign-recovered.sqlite")

        let error = await #expect(throws: CacheStore.Error.self) {
            try await CacheStore.salvage(from: path, into: destination)
        }

        #expect(error?.code == .notAStore)
        #expect(!FileManager.default.fileExists(atPath: destination))
    }

    @Test func aSalvageStoppedPartWayLeavesNoStoreAtItsPath() async throws {
        // Given a store of many entries, and a salvage whose task is cancelled (as a signal cancels it)
        let path = try await makeStore("many.sqlite", count: 20)
        let destination = folder.path("stopped.sqlite")
        let outcome = await Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await CacheStore.salvage(from: path, into: destination)
        }.result
        // Then it stops, and neither a store nor the private files it was made in are left
        #expect(throws: CancellationError.self) { try outcome.get() }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
            .filter { $0.hasPrefix("stopped.sqlite") }
        #expect(left.isEmpty, "\(left)")
    }

    @Test func aCompleteSalvageIsGivenItsPathOnlyAtTheEndAndReportsIt() async throws {
        let path = try await makeStore("whole.sqlite", count: 3)
        let destination = folder.path("whole-saved.sqlite")
        let report = try await CacheStore.salvage(from: path, into: destination)
        #expect(report.destinationPath == destination)
        #expect(report.savedEntries == 3)
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(names.filter { $0.hasPrefix("whole-saved.sqlite") } == ["whole-saved.sqlite"])
        let reopened = try CacheStore(path: destination)
        #expect(try reopened.totals().entryCount == 3)
        try await reopened.close()
    }

    @Test func aStoreOfANewerVersionIsSalvagedAsFarAsThisVersionKnowsItAndSaysSo() async throws {
        let path = try await makeStore("newer.sqlite", count: 2)
        let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE)
        try connection.execute(sql: "PRAGMA user_version = 99")
        let report = try await CacheStore.salvage(from: path, into: folder.path("newer-saved.sqlite"))
        #expect(report.savedEntries == 2)
        #expect(!report.isComplete)
        #expect(report.problems.contains { $0.contains("newer version") && $0.contains("99") }, "\(report.problems)")
    }

    @Test func refusesADestinationThatExists() async throws {
        let path = try await makeStore("source.sqlite", count: 2)
        let destination = folder.path("taken.sqlite")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: destination))

        let error = await #expect(throws: CacheStore.Error.self) {
            try await CacheStore.salvage(from: path, into: destination)
        }

        #expect(error?.code == .fileSystem)
        #expect(error?.message.contains(destination) == true)
        #expect(try Data(contentsOf: URL(fileURLWithPath: destination)) == Data("keep me".utf8))
    }
}
