import CSQLite
import Dispatch
import Synchronization

/// Copies the write-ahead log into the database file on a connection and a queue of its own, so
/// that the writer keeps committing while a checkpoint runs.
///
/// Checkpoints are passive (<https://www.sqlite.org/c3ref/wal_checkpoint_v2.html>): they copy what
/// no reader still needs and never wait for a lock, so they cannot stall the writer, a reader or
/// another process; one that finds the log busy simply leaves the rest to the next. They change
/// nothing SQLite's crash recovery relies on: an interrupted checkpoint is redone from the log.
final class Checkpointer: Sendable {
    private let connection: Mutex<Connection?>
    private let running = Atomic<Bool>(false)
    private let queue = DispatchQueue(label: "webcache.store.checkpoint")

    /// Opens the checkpoint connection on `path`, which the writer has already set up in WAL mode.
    init(path: String) throws(SQLiteError) {
        let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE)
        self.connection = Mutex(connection)
    }

    /// Starts a passive checkpoint in the background, unless one is already running.
    func start() {
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        queue.async { [self] in
            connection.withLock { connection in
                // A busy log or any other failure leaves the frames for the next checkpoint.
                try? connection?.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)")
            }
            running.store(false, ordering: .releasing)
        }
    }

    /// Waits until the checkpoints started so far have ended.
    func wait() {
        queue.sync {}
    }

    /// Waits for the checkpoints started so far, then closes the connection; later starts do nothing.
    func close() {
        wait()
        connection.withLock { $0 = nil }
    }
}
