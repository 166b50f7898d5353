import CSQLite
import Foundation
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// A full disk and read-only stores: real small tmpfs mounts and read-only bind mounts when running
/// as root (root ignores file modes, so a read-only mount is the only way to refuse it writes).
@Suite(.timeLimit(.minutes(5)))
struct FileSystemFaultTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    static let isRoot = Mounts.areAvailable

    /// A tmpfs of `size` mounted at a new folder for `body`, unmounted afterwards with what was
    /// mounted on top of it.
    private func withTmpfs(size: String, _ body: (String, Mounts) async throws -> Void) async throws {
        let mountPoint = folder.path("mnt")
        try await Mounts.with { mounts in
            try await mounts.tmpfs(at: mountPoint, size: size)
            try await body(mountPoint, mounts)
        }
    }

    // MARK: - Full disk

    @Test func aFullDiskIsReportedAsSuchNamingTheStore() async throws {
        let path = folder.path("store.sqlite")
        let store = try CacheStore(path: path)
        let error = store.storeError(
            SQLiteError(extendedCode: SQLITE_FULL, message: "database or disk is full", sql: "COMMIT"),
            action: "save the entry for https://example.test/"
        )
        #expect(error.code == .diskFull)
        #expect(error.message.contains(path))
        #expect(error.message.contains("is full"))
        try await store.close()
    }

    @Test func aFileSizeLimitOrAQuotaIsReportedAsSuchAndOtherIOErrorsAreNot() async throws {
        let path = folder.path("store.sqlite")
        let store = try CacheStore(path: path)
        // SQLITE_IOERR_WRITE, a macro Swift does not import.
        func error(_ systemErrno: Int32) -> CacheStore.Error {
            store.storeError(
                SQLiteError(
                    extendedCode: SQLITE_IOERR | (3 << 8), message: "disk I/O error", sql: "COMMIT", systemErrno: systemErrno),
                action: "save the entry for https://example.test/")
        }
        let limit = error(EFBIG)
        #expect(limit.code == .diskFull)
        #expect(limit.message.contains(path))
        #expect(limit.message.contains("file size limit"))
        let quota = error(EDQUOT)
        #expect(quota.code == .diskFull)
        #expect(quota.message.contains(path))
        #expect(quota.message.contains("disk quota"))
        let other = error(EIO)
        #expect(other.code == .database)
        #expect(other.message.contains(path))
        try await store.close()
    }

    @Test(.enabled(if: isRoot, "mounting a small file system needs root"))
    func savingOnAFullDiskFailsClearlyAndKeepsWhatWasStored() async throws {
        try await withTmpfs(size: "512k") { mountPoint, mounts in
            // Given: a store with one entry on a small file system
            let path = mountPoint + "/store.sqlite"
            let store = try CacheStore(path: path, configuration: configuration())
            try await store.save(makeEntry("https://example.test/first"), body: makeBody(size: 1_000, seed: 1))

            // When: more is saved than fits
            var failure: CacheStore.Error?
            for index in 0..<64 where failure == nil {
                do {
                    try await store.save(makeEntry("https://example.test/\(index)"),
                                         body: makeBody(size: 32_000, seed: UInt8(index)))
                } catch let error as CacheStore.Error {
                    failure = error
                }
            }

            // Then: the error says so and names the store; once there is room, the store is sound
            let error = try #require(failure)
            #expect(error.code == .diskFull, "\(error)")
            #expect(error.message.contains(path))
            try await mounts.remount(mountPoint, options: "remount,size=16m")
            #expect(try store.entry(url: "https://example.test/first") != nil)
            #expect(try await store.verify().isSound)
            try await store.close()
        }
    }

    @Test(.enabled(if: isRoot, "mounting a small file system needs root"))
    func aCheckpointThatCannotGrowTheStoreFileKeepsTheLog() async throws {
        try await withTmpfs(size: "4m") { mountPoint, _ in
            // Given: entries whose pages are still in the log only, fewer than fill one of the
            // store's runs of writes (the store file has to grow to take them back)
            let path = mountPoint + "/store.sqlite"
            let store = try CacheStore(path: path, configuration: configuration())
            let urls = (0..<8).map { "https://example.test/\($0)" }
            for (index, url) in urls.enumerated() {
                try await store.save(makeEntry(url), body: makeBody(size: 6_000, seed: UInt8(index)))
            }
            // And a disk with no room left
            let filler = mountPoint + "/filler"
            try #require(FileManager.default.createFile(atPath: filler, contents: nil))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: filler))
            while (try? handle.write(contentsOf: Data(count: 4_096))) != nil {}
            try handle.close()

            // When: a checkpoint copies the log back into the store file
            let checkpoint = Result { () throws(SQLiteError) in
                let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE)
                try connection.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }

            // Then: it fails, and once there is room every entry reads back from a sound store
            #expect(throws: SQLiteError.self) { try checkpoint.get() }
            try FileManager.default.removeItem(atPath: filler)
            try await store.close()
            let reopened = try CacheStore(path: path, configuration: configuration())
            for url in urls { #expect(try reopened.entry(url: url) != nil, "\(url)") }
            #expect(try await reopened.verify().isSound)
            try await reopened.close()
        }
    }

    @Test(.enabled(if: isRoot, "mounting a small file system needs root"))
    func aStoreWithAbandonedStagingStillOpensOnAFullDisk() async throws {
        try await withTmpfs(size: "1m") { mountPoint, _ in
            // Given: a stored entry, and a streamed body whose writer died before saving it
            let path = mountPoint + "/store.sqlite"
            let store = try CacheStore(path: path, configuration: configuration())
            try await store.save(makeEntry("https://example.test/first"), body: makeBody(size: 1_000, seed: 1))
            var abandoned = store.makeBodyWriter()
            try await abandoned.write(makeBody(size: CacheStore.chunkSize + 1, seed: 2))
            try await store.write("plant") { connection in
                // A process id above the kernel's maximum: certainly not running.
                try connection.run("UPDATE staging SET pid = 2147483000")
            }
            try await store.close()
            // And a disk with room for the store's shared-memory index, not for deleting the chunk
            let filler = mountPoint + "/filler"
            try #require(FileManager.default.createFile(atPath: filler, contents: nil))
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: filler))
            let block = Data(count: 4_096)
            while (try? handle.write(contentsOf: block)) != nil {}
            try handle.truncate(atOffset: try handle.offset() - 96 * 1_024)
            try handle.close()

            // When: the store opens on the full disk
            let reopened = try CacheStore(path: path, configuration: configuration())

            // Then: what was stored reads back; the abandoned chunk waits until there is room
            #expect(try reopened.entry(url: "https://example.test/first") != nil)
            #expect(try rowCount(reopened, "staging") == 1)
            try await reopened.close()
            try FileManager.default.removeItem(atPath: filler)
            let roomy = try CacheStore(path: path, configuration: configuration())
            #expect(try rowCount(roomy, "staging") == 0)
            #expect(try rowCount(roomy, "body_chunk") == 1)
            try await roomy.close()
        }
    }

    // MARK: - Read-only stores

    /// A closed store with one entry at `path`; returns the entry's body.
    @discardableResult
    private func makeStore(at path: String) async throws -> Data {
        let body = makeBody(size: 5_000, seed: 2)
        _ = try await withCacheStore(at: path) { store in
            try await store.save(makeEntry("https://example.test/"), body: body)
        }
        return body
    }

    /// A configuration that opens the store for reading only.
    private var readingOnly: CacheStore.Configuration {
        var configuration = configuration()
        configuration.readOnly = true
        return configuration
    }

    /// Reads the entry and body of ``makeStore(at:)`` from a store opened for reading only, checks
    /// that writes are refused, and closes it.
    private func expectReadable(_ path: String, body: Data) async throws {
        let store = try CacheStore(path: path, configuration: readingOnly)
        let entry = try #require(try store.entry(url: "https://example.test/"))
        #expect(try store.bodyData(bodyID: try #require(entry.bodyID)) == body)
        #expect(try await store.lookup(url: "https://example.test/")?.body == body)
        #expect(try await store.statistics().totals.entryCount == 1)
        #expect(try await store.verify().isSound)
        let error = await #expect(throws: CacheStore.Error.self) {
            try await store.setPinned(true, url: "https://example.test/")
        }
        #expect(error?.code == .readOnly)
        try await store.close()
    }

    @Test(.enabled(if: isRoot, "mounting a read-only file system needs root"))
    func aStoreOnAReadOnlyFileSystemIsReadWithoutWritingAndRefusedForWriting() async throws {
        try await withTmpfs(size: "8m") { mountPoint, mounts in
            // Given: a closed store on a file system then made read-only
            let path = mountPoint + "/store.sqlite"
            let body = try await makeStore(at: path)
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            try await mounts.remount(mountPoint, options: "remount,ro")

            // When opened for writing, it is refused at once with one sentence
            let error = #expect(throws: CacheStore.Error.self) { try CacheStore(path: path) }
            #expect(error?.code == .readOnly, "\(String(describing: error))")
            #expect(error?.description == "The cache store '\(path)' is read-only: it is on a read-only file system.")

            // And opened for reading only, it is read
            try await expectReadable(path, body: body)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint) == ["store.sqlite"])
        }
    }

    @Test(.enabled(if: isRoot, "mounting a read-only folder needs root"))
    func aWritableStoreInAReadOnlyFolderIsReadWithoutWritingAndRefusedForWriting() async throws {
        try await withTmpfs(size: "8m") { mountPoint, mounts in
            // Given: the store's folder seen read-only, and the store file itself writable there
            let storeFolder = mountPoint + "/folder"
            try FileManager.default.createDirectory(atPath: storeFolder, withIntermediateDirectories: false)
            try await makeStore(at: storeFolder + "/store.sqlite")
            let readOnlyFolder = folder.path("read-only")
            try FileManager.default.createDirectory(atPath: readOnlyFolder, withIntermediateDirectories: false)
            try await mounts.bind(storeFolder, at: readOnlyFolder, readOnly: true)
            let path = readOnlyFolder + "/store.sqlite"
            try await mounts.bind(storeFolder + "/store.sqlite", at: path, readOnly: false)
            #expect(FileManager.default.isWritableFile(atPath: path))

            // When / Then
            let error = #expect(throws: CacheStore.Error.self) { try CacheStore(path: path) }
            #expect(error?.code == .readOnly)
            #expect(error?.message == "The cache store '\(path)' is read-only: its folder is on a read-only file "
                + "system, and SQLite keeps the store's -wal and -shm files there.")
            try await expectReadable(path, body: makeBody(size: 5_000, seed: 2))
            #expect(try FileManager.default.contentsOfDirectory(atPath: storeFolder) == ["store.sqlite"])
        }
    }

    @Test(.enabled(if: isRoot, "mounting a read-only file needs root"))
    func aReadOnlyStoreFileInAWritableFolderIsReadAndRefusedForWriting() async throws {
        try await withTmpfs(size: "8m") { mountPoint, mounts in
            // Given: the store file seen read-only in a folder that can be written
            let path = mountPoint + "/store.sqlite"
            let body = try await makeStore(at: path)
            try await mounts.bind(path, at: path, readOnly: true)

            // When / Then
            let error = #expect(throws: CacheStore.Error.self) { try CacheStore(path: path) }
            #expect(error?.code == .readOnly)
            #expect(error?.message == "The cache store '\(path)' is read-only: it is on a read-only file system.")
            try await expectReadable(path, body: body)
        }
    }

    @Test(.enabled(if: isRoot, "mounting a read-only file system needs root"))
    func aStoreWhoseLogWasNotCopiedCannotBeReadInAReadOnlyFolderAndSaysWhy() async throws {
        try await withTmpfs(size: "8m") { mountPoint, mounts in
            // Given: a store and its write-ahead log as a killed process leaves them (no -shm index),
            // on a file system then made read-only
            let source = folder.path("live.sqlite")
            try await makeStore(at: source)
            let live = try Connection(path: source, flags: SQLITE_OPEN_READWRITE)
            try live.execute(sql: "PRAGMA wal_autocheckpoint = 0; UPDATE entry SET hit_count = 7")
            let path = mountPoint + "/store.sqlite"
            try FileManager.default.copyItem(atPath: source, toPath: path)
            try FileManager.default.copyItem(atPath: source + "-wal", toPath: path + "-wal")
            try await mounts.remount(mountPoint, options: "remount,ro")

            // When
            let error = #expect(throws: CacheStore.Error.self) {
                try CacheStore(path: path, configuration: readingOnly)
            }

            // Then
            #expect(error?.code == .readOnly)
            #expect(error?.message.hasPrefix("The cache store '\(path)' cannot be read without writing: its "
                + "write-ahead log '\(path)-wal' may hold changes not yet copied into the store") == true)

            // And salvage copies what the store file holds, saying that the log was left out
            let report = try await CacheStore.salvage(from: path, into: folder.path("saved.sqlite"))
            #expect(report.savedEntries == 1)
            #expect(!report.isComplete)
            #expect(report.problems == [
                "The write-ahead log '\(path)-wal' was not read: SQLite cannot read it without making its index "
                    + "beside the store, in a folder that cannot be written, so the changes in it were not salvaged."
            ])
        }
    }
}
