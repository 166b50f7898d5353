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
///
/// A background checkpoint copies the log as it was when it began, while the writer goes on
/// committing; so the log is never wholly copied when the writer starts a transaction, and SQLite
/// starts the log over from its beginning only then. Once a background checkpoint has ended, the
/// writer copies the little committed meanwhile itself, between two transactions
/// (``finishOnWriter(_:)``), and its next commit starts the log over. Without that, the log grows
/// to the writer's own checkpoint size (``CacheStore/walSizeLimit``), where a checkpoint of the
/// whole log stalls the writer, and closing the store deletes a log file that large, which costs
/// time on file systems that discard freed blocks.
final class Checkpointer: Sendable {
    private let connection: Mutex<Connection?>
    private let running = Atomic<Bool>(false)
    /// Whether a background checkpoint has ended since the writer last finished one.
    private let ended = Atomic<Bool>(false)
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
            ended.store(true, ordering: .releasing)
            running.store(false, ordering: .releasing)
        }
    }

    /// On the writer connection, outside a transaction: if a background checkpoint has ended since
    /// the last call, copies what was committed while it ran, so that the next commit can start the
    /// log over.
    func finishOnWriter(_ writer: Connection) {
        guard ended.exchange(false, ordering: .acquiringAndReleasing) else { return }
        // Passive as well: a reader still on old frames leaves them for the next checkpoint.
        try? writer.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)")
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
