import CSQLite
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// A store opened for reading only, in a folder that can be written (the read-only file systems
/// and folders, which need root to mount, are in ``FileSystemFaultTests``): it reads, and changes
/// nothing.
@Suite(.timeLimit(.minutes(5)))
struct ReadOnlyOpeningTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    private var readingOnly: CacheStore.Configuration {
        var configuration = configuration()
        configuration.readOnly = true
        return configuration
    }

    @Test func readsRecordsNoHitAndRefusesEveryWrite() async throws {
        // Given
        let path = folder.path("store.sqlite")
        _ = try await withCacheStore(at: path, configuration: configuration()) { store in
            try await store.save(makeEntry("https://example.test/"), body: makeBody(size: 900, seed: 1))
        }

        // When
        let store = try CacheStore(path: path, configuration: readingOnly)
        let hit = try await store.lookup(url: "https://example.test/")
        // (a prune's dry run only reads, so it plans on a store opened so; the prune itself is refused)
        let plan = try await store.prune(PruneCriteria(urlPattern: "*"), dryRun: true)
        let prune = await #expect(throws: CacheStore.Error.self) {
            try await store.prune(PruneCriteria(urlPattern: "*"))
        }
        let pin = await #expect(throws: CacheStore.Error.self) {
            try await store.setPinned(true, url: "https://example.test/")
        }
        let save = await #expect(throws: CacheStore.Error.self) {
            try await store.save(makeEntry("https://example.test/new"), body: Data("new".utf8))
        }
        try await store.close()

        // Then
        #expect(hit?.body == makeBody(size: 900, seed: 1))
        #expect(plan.urls == ["https://example.test/"])
        #expect(prune?.code == .readOnly)
        #expect(pin?.code == .readOnly)
        #expect(pin?.message == "The cache store '\(path)' was opened for reading only; it cannot be changed.")
        #expect(save?.code == .readOnly)
        try await withCacheStore(at: path) { store in
            let entry = try #require(try store.entry(url: "https://example.test/"))
            #expect(entry.hitCount == 0)
            #expect(!entry.pinned)
            #expect(try store.totals().entryCount == 1)
        }
    }

    @Test func waitsForTheLockOfAnotherConnectionAsReadsDo() async throws {
        // Given: a store that another connection holds locked for a moment
        let path = folder.path("locked.sqlite")
        _ = try await withCacheStore(at: path, configuration: configuration()) { store in
            try await store.save(makeEntry("https://example.test/"), body: makeBody(size: 900, seed: 1))
        }
        var locker: Connection? = try Connection(path: path, flags: SQLITE_OPEN_READWRITE)
        try locker?.execute(sql: "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT")

        // When it is opened for reading only meanwhile
        let configuration = readingOnly
        let opening = Task.detached { try CacheStore(path: path, configuration: configuration) }
        try await Task.sleep(for: .milliseconds(300))
        locker = nil

        // Then it opens once the lock is gone
        let store = try await opening.value
        #expect(try store.entry(url: "https://example.test/") != nil)
        try await store.close()
    }

    @Test func doesNotCreateAMissingStore() throws {
        let path = folder.path("missing.sqlite")

        let error = #expect(throws: CacheStore.Error.self) { try CacheStore(path: path, configuration: readingOnly) }

        #expect(error?.code == .fileSystem)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func refusesAStoreOfAnOlderSchemaVersionRatherThanUpgradeIt() throws {
        // Given a store of schema version 2
        let path = folder.path("version2.sqlite")
        do {
            let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            try connection.execute(sql: "PRAGMA journal_mode = WAL")
            try Migration.migrate(connection, with: Array(Schema.migrations[0..<2]), retryingFor: 1, path: path)
        }

        // When
        let error = #expect(throws: CacheStore.Error.self) { try CacheStore(path: path, configuration: readingOnly) }

        // Then
        #expect(error?.code == .readOnly)
        #expect(error?.message.contains("schema version 2, older than version \(Schema.oldestReadableVersion)") == true)
        let connection = try Connection(path: path, flags: SQLITE_OPEN_READONLY)
        #expect(try connection.int64("PRAGMA user_version") == 2)
    }

    @Test(arguments: [3, 4, 9])
    func readsAndVerifiesAnOlderStoreWithoutUpgradingIt(version: Int) async throws {
        // Given a store of schema version 3 (no chunk checksums), 4 (no entry.decoded_from) or 9 (no
        // entry_access), with a sound body of two chunks and a damaged one, written without checksums
        let path = folder.path("version\(version).sqlite")
        let sound = makeBody(size: CacheStore.chunkSize + 100, seed: 1)
        let damaged = makeBody(size: 500, seed: 2)
        do {
            let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            try connection.execute(sql: "PRAGMA journal_mode = WAL")
            try Migration.migrate(connection, with: Array(Schema.migrations[0..<version]), retryingFor: 1, path: path)
            for (index, body) in [sound, damaged].enumerated() {
                let chunks = stride(from: 0, to: body.count, by: CacheStore.chunkSize).map {
                    body.subdata(in: $0..<min($0 + CacheStore.chunkSize, body.count))
                }
                try connection.run(
                    "INSERT INTO body (hash, size, chunk_count, created_at) VALUES (?, ?, ?, 0)",
                    [.blob(SHA256.hash(body)), .integer(Int64(body.count)), .integer(Int64(chunks.count))])
                let bodyID = connection.lastInsertedRowID
                for (seq, chunk) in chunks.enumerated() {
                    try connection.run(
                        "INSERT INTO body_chunk (body_id, seq, data) VALUES (?, ?, ?)", [.integer(bodyID), .integer(Int64(seq)), .blob(chunk)])
                }
                try connection.run(
                    """
                    INSERT INTO entry (method, url, host, status, headers, request_time, response_time, \
                    fresh_until, stored_at, last_access, body_id, body_size) \
                    VALUES ('GET', ?, 'v3.test', 200, '', 0, 0, 0, 0, 0, ?, ?)
                    """,
                    [.text("https://v3.test/\(index)"), .integer(bodyID), .integer(Int64(body.count))])
            }
            try connection.run("UPDATE body_chunk SET data = zeroblob(length(data)) WHERE body_id = 2")
        }

        // When it is opened for reading only
        let (whole, streamed, lookupError, report) = try await withCacheStore(at: path, configuration: readingOnly) {
            store in
            let whole = try await store.lookup(url: "https://v3.test/0")
            #expect(whole?.entry.decodedFrom == nil)
            // (entries read with their own hit columns, and ordered by them for an eviction's plan)
            #expect(try store.entries(url: "https://v3.test/0").map(\.hitCount) == [0])
            #expect(try store.evictionPlan(toFit: 0).urls.count == 2)
            var reader = store.bodyChunks(bodyID: 1)
            var streamed = Data()
            while let chunk = try reader.next() { streamed.append(chunk) }
            let lookupError = await #expect(throws: CacheStore.Error.self) {
                try await store.lookup(url: "https://v3.test/1")
            }
            return (whole, streamed, lookupError, try await store.verify())
        }

        // Then the sound body reads whole and streamed, the damaged one is refused, verify names it,
        // and the store is still at its version
        #expect(whole?.body == sound)
        #expect(streamed == sound)
        #expect(lookupError?.code == .damagedBody)
        #expect(report.problems.map(\.kind) == [.bodyHash])
        #expect(report.problems.first?.urls == ["https://v3.test/1"])
        let connection = try Connection(path: path, flags: SQLITE_OPEN_READONLY)
        #expect(try connection.int64("PRAGMA user_version") == Int64(version))
    }
}
