/// A write waiting for the writer's next transaction (group commit).
///
/// Writes that arrive while the writer is busy are committed together; one that fails is left out of
/// the transaction, and each caller hears of its outcome only once the transaction has ended. Writes
/// in the same transaction share the pages they all touch (the tables' last leaves, the running
/// totals, the file header), which are then logged once instead of once per write.
final class QueuedWrite: Sendable {
    /// What the write does, for error messages: "save the entry for …".
    let action: String
    /// Whether the store's byte limit is enforced after it commits.
    let evicts: Bool
    private let perform: @Sendable (Connection) throws -> Outcome
    private let fail: @Sendable (CacheStore.Error) -> Void

    /// What a write that ran gives: what it changed that a kept answer is read from
    /// (``CommitLedger``), and a closure that hands its value to the caller.
    struct Outcome {
        var touched: CommitLedger.Touched
        var deliver: @Sendable () -> Void
    }

    /// A write that runs `body` and hands its value or error to `continuation`; `touched` tells what
    /// it changed from its value.
    init<T: Sendable>(
        action: String, evicts: Bool, touched: @escaping @Sendable (T) -> CommitLedger.Touched,
        body: @escaping @Sendable (Connection) throws -> T,
        continuation: CheckedContinuation<T, any Error>
    ) {
        self.action = action
        self.evicts = evicts
        self.perform = { connection in
            let value = try body(connection)
            return Outcome(touched: touched(value), deliver: { continuation.resume(returning: value) })
        }
        self.fail = { continuation.resume(throwing: $0) }
    }

    /// Runs the write on `connection`; the outcome's closure is to be called once the transaction
    /// has committed.
    func run(on connection: Connection) throws -> Outcome {
        try perform(connection)
    }

    /// Hands `error` to the caller instead of a value.
    func finish(throwing error: CacheStore.Error) {
        fail(error)
    }
}

/// The writes waiting for the writer (``QueuedWrite``), and whether a commit of them is scheduled.
///
/// One commit at a time is scheduled: writes queued while it is pending or running join it or the
/// one it schedules at its end, instead of each scheduling a commit that would find them taken.
struct WriteQueue: Sendable {
    var writes: [QueuedWrite] = []
    /// Whether a commit is pending or running: set by the write that finds none, cleared by a commit
    /// that ends with the queue empty.
    var hasCommitScheduled = false
}
