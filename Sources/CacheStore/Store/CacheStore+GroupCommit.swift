import Dispatch
import FoundationEssentials
import Synchronization

extension CacheStore {
    /// Runs `body` in the writer's next transaction, together with the other writes queued meanwhile,
    /// and returns its value once that transaction has committed (group commit, ``QueuedWrite``).
    ///
    /// When `body` throws, what it did is undone and only this caller gets the error. Like every write,
    /// `body` must be safe to run more than once. What it changes that a kept answer is read from is
    /// `touched` (anything, unless said).
    nonisolated func queuedWrite<T: Sendable>(
        _ action: String, evicts: Bool = false, touching touched: CommitLedger.Touched = .anything,
        _ body: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        try await queuedWrite(action, evicts: evicts, touchedBy: { _ in touched }, body)
    }

    /// ``queuedWrite(_:evicts:touching:_:)`` for a write that tells what it changed from its value.
    nonisolated func queuedWrite<T: Sendable>(
        _ action: String, evicts: Bool = false, touchedBy touched: @escaping @Sendable (T) -> CommitLedger.Touched,
        _ body: @escaping @Sendable (Connection) throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let write = QueuedWrite(
                action: action, evicts: evicts, touched: touched, body: body, continuation: continuation)
            let needsCommit = queuedWrites.withLock { queue in
                queue.writes.append(write)
                guard !queue.hasCommitScheduled else { return false }
                queue.hasCommitScheduled = true
                return true
            }
            if needsCommit { scheduleCommit() }
        }
    }

    /// Has the writer commit the queued writes behind its current work; what is queued meanwhile
    /// joins that transaction.
    private nonisolated func scheduleCommit() {
        executor.queue.async { [self] in
            assumeIsolated { $0.commitQueuedWrites() }
        }
    }

    /// Commits every queued write in one transaction, then hands each caller its outcome, and has the
    /// writer commit again if more were queued meanwhile.
    private func commitQueuedWrites() {
        defer {
            // Decided under the lock, so that a write queued now either is seen here or schedules a
            // commit of its own.
            let needsCommit = queuedWrites.withLock { queue in
                queue.hasCommitScheduled = !queue.writes.isEmpty
                return queue.hasCommitScheduled
            }
            if needsCommit { scheduleCommit() }
        }
        var batch = takeQueuedWrites(upTo: .max)
        guard !batch.isEmpty else { return }
        let outcomes = writer.map { run(&batch, on: $0) } ?? batch.map { _ in .failure(writeRefusal) }
        var evicts = false
        for (write, outcome) in zip(batch, outcomes) {
            if case .success = outcome { evicts = evicts || write.evicts }
        }
        noteCommitted()
        var evictionFailure: Error?
        if evicts {
            do { try evictIfNeeded() } catch { evictionFailure = storeError(error, action: "evict entries") }
        }
        for (write, outcome) in zip(batch, outcomes) {
            switch outcome {
            case .success(let deliver):
                if write.evicts, let evictionFailure {
                    write.finish(throwing: evictionFailure)
                } else {
                    deliver()
                }
            case .failure(let error):
                write.finish(throwing: error)
            }
        }
    }

    /// The writes queued, oldest first, at most `limit` of them, taken off the queue.
    private func takeQueuedWrites(upTo limit: Int) -> [QueuedWrite] {
        queuedWrites.withLock { queue in
            let taken = Array(queue.writes.prefix(limit))
            queue.writes.removeFirst(taken.count)
            return taken
        }
    }

    /// How many writes a transaction may grow to by taking in those queued while it runs
    /// (``run(_:on:)``), which bounds how long its first write waits for the commit.
    static let groupLimit = 64

    /// Runs `batch` in one transaction. A write that fails is left out: the transaction is rolled
    /// back and starts over without it, so that it leaves nothing behind and the others are kept.
    /// (A savepoint per write would undo a failure alone, but makes SQLite keep a statement journal in
    /// a temporary file for every transaction: that more than tripled the bytes a preload wrote.)
    ///
    /// Writes queued while the batch's own ran join it before the commit (up to ``groupLimit``), and
    /// are added to `batch`: a commit writes every page the transaction changed to the log, whether it
    /// holds one save or twenty, and a preload of tiny responses spent a third of its writer's time
    /// committing groups of two or three saves. No write waits for others to come: a transaction
    /// takes in only what is already queued, with no delay.
    private func run(_ batch: inout [QueuedWrite], on writer: Connection) -> [Result<@Sendable () -> Void, Error>] {
        let hits = accessLog.drain()
        var failures: [Int: Error] = [:]
        while true {
            var outcomes: [Result<@Sendable () -> Void, Error>] = []
            var failedWrite = false
            do {
                try recordedTransaction(on: writer) { changed in
                    outcomes = []
                    try AccessLog.write(hits, to: writer)
                    var index = 0
                    while true {
                        if index == batch.count {
                            let more = takeQueuedWrites(upTo: Self.groupLimit - min(batch.count, Self.groupLimit))
                            guard !more.isEmpty else { break }
                            batch += more
                        }
                        let write = batch[index]
                        defer { index += 1 }
                        if let failure = failures[index] {
                            outcomes.append(.failure(failure))
                            continue
                        }
                        do {
                            let outcome = try write.run(on: writer)
                            outcomes.append(.success(outcome.deliver))
                            CommitLedger.add(outcome.touched, to: &changed)
                        } catch let error as SQLiteError where error.isBusy {
                            throw error
                        } catch {
                            failures[index] = storeError(error, action: write.action)
                            failedWrite = true
                            throw error
                        }
                    }
                }
                return outcomes
            } catch {
                if failedWrite { continue }
                accessLog.restore(hits)
                return batch.indices.map { .failure(failures[$0] ?? storeError(error, action: batch[$0].action)) }
            }
        }
    }
}
