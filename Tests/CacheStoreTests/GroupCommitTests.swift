import CSQLite
import Dispatch
import Foundation
import Synchronization
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// Writes that wait for the writer together share one transaction; one that fails is left out and
/// leaves nothing behind, and the others commit.
@Suite(.timeLimit(.minutes(5)))
struct GroupCommitTests {
    let folder: TemporaryFolder
    let store: CacheStore
    let commits = CommitCounter()

    init() async throws {
        folder = try TemporaryFolder()
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
        try await commits.install(on: store)
    }

    /// A failure a test write throws on purpose.
    struct PlannedFailure: Error {}

    @Test func writesWaitingTogetherShareOneTransaction() async throws {
        // Given: eight saves that wait while the writer is busy
        let before = commits.count
        try await whileTheWriterIsHeld(until: 8) { group in
            for index in 0..<8 {
                group.addTask {
                    try await store.save(
                        makeEntry("https://example.test/\(index)"), body: makeBody(size: 3_000, seed: UInt8(index)))
                }
            }
        }

        // Then: one commit holds them all, and every one is stored
        #expect(commits.count - before == 1)
        #expect(try store.totals().entryCount == 8)
        for index in 0..<8 {
            let stored = try await store.lookup(url: "https://example.test/\(index)", at: referenceDate)
            #expect(stored?.body == makeBody(size: 3_000, seed: UInt8(index)))
        }
        #expect(try await store.verify().isSound)
        try await store.close()
    }

    @Test func aFailingWriteIsUndoneAloneAndItsCallerToldWhy() async throws {
        // Given: two saves and, between them, a write that changes the store and then fails
        let before = commits.count
        let outcomes = Recorder()
        try await whileTheWriterIsHeld(until: 3) { group in
            group.addTask {
                try await store.save(makeEntry("https://example.test/a"), body: makeBody(size: 100, seed: 1))
                outcomes.add("saved", to: "a")
            }
            group.addTask {
                do {
                    try await store.queuedWrite("plant a staging row") { connection in
                        try connection.run("INSERT INTO staging VALUES ('planted', 1, 0)")
                        throw PlannedFailure()
                    }
                } catch let error as CacheStore.Error {
                    outcomes.add(error.message, to: "planted")
                }
            }
            group.addTask {
                try await store.save(makeEntry("https://example.test/b"), body: makeBody(size: 100, seed: 2))
                outcomes.add("saved", to: "b")
            }
        }

        // Then: the failing write left nothing, its caller got an error naming what it did, the
        // others committed, in one transaction
        #expect(outcomes.values(of: "a") == ["saved"])
        #expect(outcomes.values(of: "b") == ["saved"])
        let planted = outcomes.values(of: "planted")
        #expect(planted.count == 1 && planted[0].contains("plant a staging row"), "\(planted)")
        #expect(try rowCount(store, "staging") == 0)
        #expect(try store.totals().entryCount == 2)
        #expect(commits.count - before == 1)
        try await store.close()
    }

    @Test func aWriteThatEndsTheTransactionIsLeftOutAndTheOthersStillCommit() async throws {
        // Given: saves queued around a write whose failure ends the transaction, as SQLite does by
        // itself after some errors (a full disk, an I/O error)
        let runs = Recorder()
        try await whileTheWriterIsHeld(until: 5) { group in
            for index in 0..<4 {
                group.addTask {
                    try await store.save(
                        makeEntry("https://example.test/\(index)"), body: makeBody(size: 500, seed: UInt8(index)))
                }
            }
            group.addTask {
                await #expect(throws: CacheStore.Error.self) {
                    try await store.queuedWrite("end the transaction") { connection in
                        runs.add("ran", to: "ending")
                        try connection.execute(sql: "ROLLBACK")
                        throw PlannedFailure()
                    }
                }
            }
        }

        // Then: the failing write ran once; the four saves are stored and the store is sound
        #expect(runs.values(of: "ending").count == 1)
        #expect(try store.totals().entryCount == 4)
        #expect(try await store.verify().isSound)
        try await store.close()
    }

    @Test func aWriteQueuedWhileATransactionRunsJoinsItBeforeTheCommit() async throws {
        // Given: a write that holds the writer, inside its transaction, until a save has been queued
        let before = commits.count
        let saveQueued = DispatchSemaphore(value: 0)
        let started = Recorder()
        let store = store
        async let first: Void = store.queuedWrite("wait for a save") { connection in
            try connection.run("INSERT INTO staging VALUES ('first', 1, 0)")
            started.add("started", to: "first")
            saveQueued.wait()
        }
        var waited = 0
        while started.values(of: "first").isEmpty {
            waited += 1
            try #require(waited < 10_000, "the first write never started")
            try await Task.sleep(for: .milliseconds(1))
        }
        async let saved = store.save(makeEntry("https://example.test/late"), body: makeBody(size: 100, seed: 5))
        waited = 0
        while store.queuedWrites.withLock({ $0.writes.isEmpty }) {
            waited += 1
            try #require(waited < 10_000, "the save was never queued")
            try await Task.sleep(for: .milliseconds(1))
        }
        saveQueued.signal()

        // When both are done
        try await first
        let entry = try await saved

        // Then: the save was committed with the first write, in one transaction
        #expect(commits.count - before == 1)
        #expect(try rowCount(store, "staging") == 1)
        #expect(try store.entry(id: try #require(entry.id)) == entry)
        #expect(store.queuedWrites.withLock { $0.writes.isEmpty && !$0.hasCommitScheduled })
        try await store.close()
    }

    @Test func aWriteQueuedWhileATransactionCommitsIsCommittedByTheNextOne() async throws {
        // Given: a save whose commit, before it ends, waits until another save has been queued; that
        // one finds a commit running, so schedules none of its own
        let store = store
        let late = LateSave()
        commits.onNextCommit {
            late.task.withLock { task in
                task = Task {
                    try await store.save(makeEntry("https://example.test/late"), body: makeBody(size: 100, seed: 6))
                }
            }
            var waited = 0
            while store.queuedWrites.withLock({ $0.writes.isEmpty }) && waited < 10_000 {
                waited += 1
                usleep(1_000)
            }
        }

        // When the first save is done
        try await store.save(makeEntry("https://example.test/first"), body: makeBody(size: 100, seed: 5))

        // Then: the late save is committed too, by the commit the first one's scheduled at its end
        let queued = try #require(late.task.withLock { $0 }, "the commit hook never ran")
        var waited = 0
        while try await store.lookup(url: "https://example.test/late", at: referenceDate) == nil {
            waited += 1
            try #require(waited < 10_000, "the save queued during a commit was never committed")
            try await Task.sleep(for: .milliseconds(1))
        }
        let entry = try await queued.value
        #expect(try store.entry(id: try #require(entry.id)) == entry)
        #expect(store.queuedWrites.withLock { $0.writes.isEmpty && !$0.hasCommitScheduled })
        try await store.close()
    }

    @Test func writesQueuedAfterCloseFailAsClosed() async throws {
        try await store.close()
        let error = await #expect(throws: CacheStore.Error.self) {
            try await store.save(makeEntry("https://example.test/late"), body: Data("late".utf8))
        }
        #expect(error?.code == .closed)
    }

    /// Blocks the writer's queue, adds the writes of `body` to a task group, and releases the writer
    /// once `count` writes are queued, so that they meet in one batch; returns when all are done.
    private func whileTheWriterIsHeld(
        until count: Int, _ body: (inout ThrowingTaskGroup<Void, any Error>) -> Void
    ) async throws {
        let release = DispatchSemaphore(value: 0)
        store.executor.queue.async { release.wait() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            body(&group)
            var waited = 0
            while store.queuedWrites.withLock({ $0.writes.count }) < count {
                waited += 1
                try #require(waited < 10_000, "the writes were never queued")
                try await Task.sleep(for: .milliseconds(1))
            }
            release.signal()
            try await group.waitForAll()
        }
    }
}

/// The task of a save started from inside a commit.
private final class LateSave: Sendable {
    let task = Mutex<Task<CacheEntry, any Error>?>(nil)
}

/// What concurrent test writes report, by key.
final class Recorder: Sendable {
    private let recorded = Mutex<[String: [String]]>([:])

    func add(_ value: String, to key: String) {
        recorded.withLock { $0[key, default: []].append(value) }
    }

    func values(of key: String) -> [String] {
        recorded.withLock { $0[key] ?? [] }
    }
}

/// Counts the commits of a store's writer connection through an SQLite commit hook.
final class CommitCounter: Sendable {
    private let commits = Atomic<Int>(0)

    private let nextCommitAction = Mutex<(@Sendable () -> Void)?>(nil)

    var count: Int { commits.load(ordering: .relaxed) }

    /// Has the next commit run `action` on the writer's thread before it ends.
    func onNextCommit(_ action: @escaping @Sendable () -> Void) {
        nextCommitAction.withLock { $0 = action }
    }

    func install(on store: CacheStore) async throws {
        let context = Unmanaged.passUnretained(self).toOpaque()
        try await store.write("install a commit hook") { connection in
            _ = sqlite3_commit_hook(
                connection.handle,
                { context in
                    guard let context else { return 0 }
                    let counter = Unmanaged<CommitCounter>.fromOpaque(context).takeUnretainedValue()
                    counter.commits.add(1, ordering: .relaxed)
                    counter.nextCommitAction.withLock { action in
                        defer { action = nil }
                        return action
                    }?()
                    return 0
                },
                context
            )
        }
    }
}
