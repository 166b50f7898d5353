import CSQLite
import Foundation
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// A store opened for reading only, in a folder that can be written (the read-only file systems
/// and folders, which need root to mount, are in ``FileSystemFaultTests``): it reads, and changes
/// nothing.
@Suite(.timeLimit(.minutes(1)))
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
        let pin = await #expect(throws: CacheStore.Error.self) {
            try await store.setPinned(true, url: "https://example.test/")
        }
        let save = await #expect(throws: CacheStore.Error.self) {
            try await store.save(makeEntry("https://example.test/new"), body: Data("new".utf8))
        }
        try await store.close()

        // Then
        #expect(hit?.body == makeBody(size: 900, seed: 1))
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
        #expect(error?.message.contains("schema version 2, older than version \(Schema.latestVersion)") == true)
        let connection = try Connection(path: path, flags: SQLITE_OPEN_READONLY)
        #expect(try connection.int64("PRAGMA user_version") == 2)
    }
}
