import FoundationEssentials
import HTTPCore

extension Connection {
    /// Runs `body` in a `BEGIN IMMEDIATE` transaction and starts over after a lock conflict.
    ///
    /// The busy timeout already waits for the write lock; this loop covers what the busy handler does
    /// not: `SQLITE_BUSY` from a WAL snapshot that another process moved on (`SQLITE_BUSY_SNAPSHOT`),
    /// from WAL recovery, or a timeout under heavy contention between processes. `body` must
    /// therefore be safe to run more than once.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/rescode.html#busy>
    func writeTransaction<T>(retryingFor limit: Double, _ body: () throws -> T) throws -> T {
        try retryingBusy(for: limit) { try immediateTransaction(body) }
    }

    /// Runs `body` and starts over after a lock conflict (`SQLITE_BUSY`), backing off exponentially,
    /// with jitter, from 1 ms to 100 ms, until `limit` seconds have passed; only then does the last
    /// error escape. For a transaction, or a statement that takes the write lock itself (`VACUUM`).
    func retryingBusy<T>(for limit: Double, _ body: () throws -> T) throws -> T {
        let deadline = Date().addingTimeInterval(limit)
        var delay = 0.001
        while true {
            do {
                return try body()
            } catch let error as SQLiteError where error.isBusy && Date() < deadline {
                POSIXThread.sleep(seconds: delay * Double.random(in: 0.5...1.5))
                delay = min(delay * 2, 0.1)
            }
        }
    }
}
