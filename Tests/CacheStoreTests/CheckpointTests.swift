import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// Background checkpoints copy the write-ahead log into the store file while the writer goes on.
@Suite struct CheckpointTests {
    /// Saves `count` streamed bodies of 1 MiB, each in chunks of 100,000 bytes.
    private static func saveBodies(_ count: Int, into store: CacheStore) async throws {
        for index in 0..<count {
            var writer = store.makeBodyWriter()
            let body = makeBody(size: 1 << 20, seed: UInt8(index))
            var offset = 0
            while offset < body.count {
                try await writer.write(body.subdata(in: offset..<min(offset + 100_000, body.count)))
                offset += 100_000
            }
            try await store.save(makeEntry("https://example.com/\(index).bin"), body: writer)
        }
    }

    private static func fileSize(_ path: String) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    @Test func largeSavesAreCheckpointedIntoTheStoreFileBeforeTheWriterWould() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("store.sqlite")
        let store = try CacheStore(path: path, configuration: configuration())
        let before = try Self.fileSize(path)
        let megabytes = CacheStore.checkpointStep / (1 << 20) + 2
        #expect(Int64(megabytes) << 20 < CacheStore.walSizeLimit, "below the writer's own checkpoint size")

        try await Self.saveBodies(megabytes, into: store)
        store.checkpointer.wait()

        let after = try Self.fileSize(path)
        // Most of the first step at least: some of its pages may fill pages the file already had free.
        #expect(
            after - before >= Int64(CacheStore.checkpointStep) * 3 / 4, "store file grew from \(before) to \(after)")
        try await store.close()
    }

    /// The writer goes on saving after background checkpoints: the log starts over from its
    /// beginning, so its file stays about a step long instead of growing to the writer's own
    /// checkpoint size.
    @Test func theLogStartsOverWhileTheWriterKeepsSaving() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("store.sqlite")
        let step = CacheStore.checkpointStep / (1 << 20)
        let megabytes = 3 * step
        #expect(Int64(megabytes) << 20 < CacheStore.walSizeLimit, "below the writer's own checkpoint size")
        let store = try CacheStore(path: path, configuration: configuration())
        var largestLog: Int64 = 0
        for index in 0..<megabytes {
            var writer = store.makeBodyWriter()
            try await writer.write(makeBody(size: 1 << 20, seed: UInt8(index % 256)))
            try await store.save(makeEntry("https://example.com/\(index).bin"), body: writer)
            largestLog = max(largestLog, try Self.fileSize(path + "-wal"))
            // The checkpoint a step's saves started is let finish, however long the machine makes
            // it wait for a thread: the saves after it find the log copied and start it over.
            if (index + 1).isMultiple(of: step) { store.checkpointer.wait() }
        }

        #expect(
            largestLog < Int64(2 * step) << 20, "log file reached \(largestLog) bytes for \(megabytes) MiB saved")
        try await store.close()
    }

    /// Small entries fill the log with table and index pages as bodies do: their log starts
    /// background checkpoints too, rather than growing to the writer's own checkpoint size.
    @Test func smallSavesAreCheckpointedIntoTheStoreFileWhenTheirLogAddsUp() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("store.sqlite")
        let store = try CacheStore(path: path, configuration: configuration())
        let before = try Self.fileSize(path)
        // Each save commits on its own: a 3-byte body and 2 KB of header text, about 60 KB of log
        // (the entry's row, its indexes' pages, the body's, the totals'): some three steps' worth,
        // well below the writer's own checkpoint.
        let count = 3 * CacheStore.checkpointStep / 60_000
        let padding = String(repeating: "x", count: 2_000)
        for index in 0..<count {
            var headers = makeEntry("https://example.com/").headers
            headers.append(name: "X-Padding", value: padding)
            let entry = makeEntry("https://example.com/\(index)", headers: headers)
            try await store.save(entry, body: Data("\(index % 1000)".utf8))
        }
        store.checkpointer.wait()

        let after = try Self.fileSize(path)
        // The entries' rows alone are 2 KB each; the checkpoints copied at least the first half of them.
        #expect(after - before >= Int64(count) * 1_000, "store file grew from \(before) to \(after)")
        #expect(try store.totals().entryCount == Int64(count))
        try await store.close()
    }

    @Test func closingRightAfterLargeSavesKeepsEveryBodyAndRemovesTheLog() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("store.sqlite")
        let count = CacheStore.checkpointStep / (1 << 20) + 2
        let store = try CacheStore(path: path, configuration: configuration())
        try await Self.saveBodies(count, into: store)
        try await store.close()

        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "the last connection checkpointed the log")
        let reopened = try CacheStore(path: path, configuration: configuration())
        for index in 0..<count {
            let hit = try #require(try await reopened.lookup(url: "https://example.com/\(index).bin"))
            #expect(hit.body == makeBody(size: 1 << 20, seed: UInt8(index)))
        }
        try await reopened.close()
    }
}
