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
/// A pass copies the log as it was when the pass began, while the writer goes on committing; so the
/// log is never wholly copied when the writer starts a transaction, and SQLite starts the log over
/// from its beginning only then. A background checkpoint therefore runs passes until one finds
/// little new in the log (``settledFrames``), and the writer then copies that little itself,
/// between two transactions (``finishOnWriter(_:)``), so that its next commit starts the log over.
/// Without that, the log grows to the writer's own checkpoint size (``CacheStore/walSizeLimit``),
/// where a checkpoint of the whole log stalls the writer, and closing the store deletes a log file
/// that large, which costs time on file systems that discard freed blocks. With one pass only, the
/// writer had to copy and sync what a whole pass left, and spent 0.11 s of a 0.4 s preload waiting
/// for those syncs.
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

    /// A checkpointer without a connection, for a store opened for reading only: it never checkpoints.
    init() {
        connection = Mutex(nil)
    }

    /// Starts a passive checkpoint in the background, unless one is already running.
    func start() {
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        else { return }
        queue.async { [self] in
            connection.withLock { connection in
                guard let connection else { return }
                // A busy log or any other failure leaves the frames for the next checkpoint.
                var frames: Int64 = 0
                for _ in 0..<Self.maximumPasses {
                    guard let seen = try? Self.passiveCheckpoint(connection), seen - frames > Self.settledFrames
                    else { break }
                    frames = seen
                }
            }
            ended.store(true, ordering: .releasing)
            running.store(false, ordering: .releasing)
        }
    }

    /// The most passes one background checkpoint runs.
    static let maximumPasses = 8

    /// How few frames a pass may find added since the one before for the log to count as copied
    /// (256 KiB of 4 KiB pages), leaving the rest to the writer.
    static let settledFrames: Int64 = 64

    /// Runs one passive checkpoint; returns the frames in the log when it began, or `nil` when a
    /// lock stopped it or it failed.
    private static func passiveCheckpoint(_ connection: Connection) throws -> Int64? {
        var frames: Int64?
        try connection.forEachRow("PRAGMA wal_checkpoint(PASSIVE)") { row in
            // One row: busy (1 when a lock stopped it), frames in the log, frames copied.
            if row.int64(0) == 0 { frames = row.int64(1) }
        }
        return frames
    }

    /// On the writer connection, outside a transaction: if a background checkpoint has ended since
    /// the last call, copies what was committed during its last pass, so that the next commit can
    /// start the log over.
    func finishOnWriter(_ writer: Connection) {
        guard ended.exchange(false, ordering: .acquiringAndReleasing) else { return }
        // Passive as well: a reader still on old frames leaves them for the next checkpoint.
        _ = try? Self.passiveCheckpoint(writer)
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
