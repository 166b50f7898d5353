import Foundation
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// ``CacheStore/changeCount()``: the same while nothing is committed, different after any commit,
/// whoever makes it.
@Suite(.timeLimit(.minutes(2)))
struct ChangeCountTests {
    let folder: TemporaryFolder
    let store: CacheStore

    init() throws {
        folder = try TemporaryFolder()
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
    }

    @Test func aStoreOpenForWritingWatchesItsLogIndexAndOneOpenForReadingAsksSQLite() async throws {
        try await store.save(makeEntry("https://example.test/a"), body: Data("a".utf8))
        #expect(store.logIndexWatch != nil)
        var readOnly = configuration()
        readOnly.readOnly = true
        let reading = try CacheStore(path: store.path, configuration: readOnly)
        #expect(reading.logIndexWatch == nil)
        let count = try reading.changeCount()
        #expect(try reading.changeCount() == count)
        try await store.save(makeEntry("https://example.test/b"), body: Data("b".utf8))
        #expect(try reading.changeCount() != count)
        try await reading.close()
    }

    @Test func theCountChangesWithEveryCommitOfThisStoreAndOnlyThen() async throws {
        var count = try store.changeCount()
        #expect(try store.changeCount() == count)
        for index in 0..<20 {
            try await store.save(makeEntry("https://example.test/\(index)"), body: Data("\(index)".utf8))
            let next = try store.changeCount()
            #expect(next != count, "after commit \(index)")
            #expect(try store.changeCount() == next, "nothing committed since commit \(index)")
            count = next
        }
        // Compacting empties the log; a commit after the log started over (new salts) is seen too.
        _ = try await store.compact()
        _ = try store.changeCount()
        let afterCheckpoint = try store.changeCount()
        try await store.save(makeEntry("https://example.test/after"), body: Data("after".utf8))
        #expect(try store.changeCount() != afterCheckpoint)
    }

    @Test func aCommitByAnotherProcessChangesTheCount() async throws {
        try await store.save(makeEntry("https://example.test/a"), body: Data("a".utf8))
        let count = try store.changeCount()
        // Another process writes to the store file with its own SQLite.
        let python = Process()
        python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        python.arguments = [
            "python3", "-c",
            "import sqlite3, sys; db = sqlite3.connect(sys.argv[1]); "
                + "db.execute(\"UPDATE entry SET hit_count = hit_count + 1\"); db.commit(); db.close()",
            store.path,
        ]
        try python.run()
        python.waitUntilExit()
        #expect(python.terminationStatus == 0)
        #expect(try store.changeCount() != count)
        #expect(try store.entry(url: "https://example.test/a")?.hitCount == 1)
    }

    @Test func aClosedStoreRefusesToCount() async throws {
        _ = try store.changeCount()
        try await store.close()
        #expect(throws: CacheStore.Error.self) { try store.changeCount() }
    }
}
