import CSQLite
import Synchronization

/// How much the write-ahead log has grown through a connection's commits, as SQLite's WAL hook
/// reports it after each one (<https://www.sqlite.org/c3ref/wal_hook.html>).
///
/// The store starts a background checkpoint for every ``stepFrames`` frames added (``takeStep()``),
/// whatever was written: counting body bytes instead missed the log written by many small entries,
/// whose index and table pages fill it as much as a body does.
///
/// The hook takes the place of SQLite's automatic checkpoint (setting one replaces the other), so it
/// also does that one's job: a commit that leaves ``checkpointFrames`` or more in the log checkpoints
/// it on the committing connection, as `PRAGMA wal_autocheckpoint` would.
final class LogGrowth: Sendable {
    /// The frames in the log at which a commit checkpoints it on its own connection.
    let checkpointFrames: Int32
    /// The frames added between two background checkpoints.
    let stepFrames: Int32
    /// Told of each commit, which it confirms as the writer's (``CommitLedger/confirm(framesInLog:)``).
    let ledger: CommitLedger
    /// The frames in the log after the last commit, and those added since ``takeStep()`` last took them.
    private let state = Mutex<(inLog: Int32, added: Int32)>((0, 0))

    /// Counts the log of pages of `pageSize` bytes: a step every `stepBytes`, a checkpoint by the
    /// committing connection at `checkpointBytes`; each commit is also told to `ledger`.
    init(pageSize: Int64, stepBytes: Int64, checkpointBytes: Int64, ledger: CommitLedger) {
        self.ledger = ledger
        stepFrames = Int32(clamping: max(1, stepBytes / pageSize))
        checkpointFrames = Int32(clamping: max(1, checkpointBytes / pageSize))
    }

    /// Installs the hook on `connection`, which keeps `self` for as long as it is open.
    func observe(_ connection: Connection) {
        connection.keep(self)
        sqlite3_wal_hook(connection.handle, { context, database, name, frames in
            guard let context else { return SQLITE_OK }
            let growth = Unmanaged<LogGrowth>.fromOpaque(context).takeUnretainedValue()
            growth.committed(framesInLog: frames)
            growth.ledger.confirm(framesInLog: frames)
            if frames >= growth.checkpointFrames {
                // As SQLite's own hook does; a failure leaves the frames for the next commit's checkpoint.
                sqlite3_wal_checkpoint(database, name)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Counts a commit that left `framesInLog` frames in the log: fewer than before means the log
    /// started over from its beginning, and all of them are new.
    private func committed(framesInLog: Int32) {
        state.withLock { state in
            state.added &+= framesInLog >= state.inLog ? framesInLog - state.inLog : framesInLog
            state.inLog = framesInLog
        }
    }

    /// Whether ``stepFrames`` or more were added since the last time this returned `true`.
    func takeStep() -> Bool {
        state.withLock { state in
            guard state.added >= stepFrames else { return false }
            state.added = 0
            return true
        }
    }
}
