import CSQLite
import ChildProcess
import Foundation
import Testing
import WebCacheTestSupport

@testable import CacheStore

#if canImport(Glibc)
import Glibc
#endif

/// A full disk and a read-only file system: real small tmpfs mounts when running as root (root ignores
/// file modes, so a read-only mount is the only way to refuse it writes).
@Suite(.timeLimit(.minutes(1)))
struct FileSystemFaultTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    static let isRoot = getuid() == 0

    /// Runs `mount` or `umount` with `arguments`, and requires that it succeeds.
    private func run(_ tool: String, _ arguments: [String]) async throws {
        let result = try await ChildProcess.spawn("/usr/bin/env", [tool] + arguments, output: .null, error: .pipe)
            .finish()
        let errors = String(decoding: result.error, as: UTF8.self)
        try #require(result.termination == .exited(0), "\(tool) \(arguments.joined(separator: " ")) failed: \(errors)")
    }

    /// A tmpfs of `size` mounted at a new folder for `body`, unmounted afterwards.
    private func withTmpfs(size: String, _ body: (String) async throws -> Void) async throws {
        let mountPoint = folder.path("mnt")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        try await run("mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", mountPoint])
        var failure: (any Error)?
        do {
            try await body(mountPoint)
        } catch {
            failure = error
        }
        try? await run("umount", ["-l", mountPoint])
        if let failure { throw failure }
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

    @Test(.enabled(if: isRoot, "mounting a small file system needs root"))
    func savingOnAFullDiskFailsClearlyAndKeepsWhatWasStored() async throws {
        try await withTmpfs(size: "512k") { mountPoint in
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
            try await run("mount", ["-o", "remount,size=16m", mountPoint])
            #expect(try store.entry(url: "https://example.test/first") != nil)
            #expect(try await store.verify().isSound)
            try await store.close()
        }
    }

    @Test(.enabled(if: isRoot, "mounting a small file system needs root"))
    func aStoreWithAbandonedStagingStillOpensOnAFullDisk() async throws {
        try await withTmpfs(size: "1m") { mountPoint in
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

    // MARK: - Read-only file system

    @Test(.enabled(if: isRoot, "mounting a read-only file system needs root"))
    func aStoreOnAReadOnlyFileSystemIsRefusedWithAClearErrorAndLeftUnchanged() async throws {
        try await withTmpfs(size: "8m") { mountPoint in
            // Given: a closed store on a file system then made read-only
            let path = mountPoint + "/store.sqlite"
            _ = try await withCacheStore(at: path) { store in
                try await store.save(makeEntry("https://example.test/"), body: makeBody(size: 5_000, seed: 2))
            }
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            try await run("mount", ["-o", "remount,ro", mountPoint])

            // When
            let error = #expect(throws: CacheStore.Error.self) { try CacheStore(path: path) }

            // Then
            #expect(error?.code == .readOnly, "\(String(describing: error))")
            #expect(error?.message.contains(path) == true)
            #expect(error?.message.contains("read-only file system") == true)
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
            #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint) == ["store.sqlite"])
            // The lazy unmount of withTmpfs cleans up even when a check above throws first.
            try? await run("mount", ["-o", "remount,rw", mountPoint])
        }
    }
}
