import CSQLite
import Synchronization

/// Tells, without a lock on the store or a read transaction, whether anything was committed to a
/// store in WAL mode since it last looked, by comparing the header of the store's WAL index (its
/// `-shm` file) with the one it saw before.
///
/// Every commit rewrites that header: its last frame and checksums change, and a log that starts
/// over changes its salts (<https://www.sqlite.org/walformat.html>); a checkpoint, which changes no
/// content, does not. The header is read as SQLite's own readers read it, two copies that must
/// agree, through the mapping SQLite made for the watch's own connection. While that connection is
/// open the mapping stays where it is, and no other process can reset the `-shm` file (SQLite resets
/// it only when no connection has it open); the header is read under the same lock that
/// ``close()`` takes to close the connection.
final class LogIndexWatch: Sendable {
    /// The 48 bytes of a WAL-index header.
    struct Header: Equatable {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)

        static func == (lhs: Header, rhs: Header) -> Bool {
            lhs.words == rhs.words
        }

        /// Its change counter (`iChange`, one more at every commit) and the frames in the log
        /// (`mxFrame`), in the machine's byte order as SQLite writes them.
        var mark: CommitLedger.Mark {
            withUnsafeBytes(of: words) { bytes in
                CommitLedger.Mark(
                    counter: bytes.load(fromByteOffset: 8, as: UInt32.self),
                    framesInLog: bytes.load(fromByteOffset: 16, as: UInt32.self))
            }
        }
    }

    private struct State {
        /// The connection whose mapping of the WAL index is read; `nil` once closed.
        var connection: Connection?
        /// The mapped WAL index, as a number.
        var index: UInt
        /// The header last seen, and the count that went with it.
        var header: Header?
        var count: UInt64 = 0
    }

    private let state: Mutex<State>
    /// What this process's commits changed, told of each change of the count.
    private let ledger: CommitLedger

    /// The WAL-index version whose header this reads (`WALINDEX_MAX_VERSION`), its first field.
    private static let indexVersion: UInt32 = 3_007_000

    /// A watch over the store at `path`, or `nil` when its WAL index cannot be read so (a store not
    /// in WAL mode, a WAL index of another version, a file system without shared memory), for the
    /// caller to ask SQLite instead.
    init?(path: String, ledger: CommitLedger) {
        guard let connection = try? Connection(path: path, flags: SQLITE_OPEN_READONLY),
            (try? connection.text("PRAGMA journal_mode"))?.lowercased() == "wal",
            // A read maps the WAL index.
            (try? connection.int64("SELECT count(*) FROM sqlite_schema")) != nil,
            let index = csqlite_wal_index(connection.handle),
            // The header's layout is that of this version of the WAL index; another is not read so.
            index.load(as: UInt32.self) == Self.indexVersion
        else { return nil }
        let address = UInt(bitPattern: index)
        state = Mutex(State(connection: connection, index: address, header: Self.read(at: address)))
        self.ledger = ledger
    }

    /// A number that changes whenever the header differs from the one seen at the last call, and
    /// also when a writer was rewriting it at the time of the call (which may mean a change);
    /// `nil` once the watch is closed.
    func count() -> UInt64? {
        state.withLock { state in
            guard state.connection != nil else { return nil }
            let header = Self.read(at: state.index)
            if header == nil || header != state.header {
                state.count &+= 1
                ledger.countChanged(to: state.count, from: state.header?.mark, to: header?.mark)
                state.header = header
            }
            return state.count
        }
    }

    /// The header's change counter now, for the writer inside its write transaction, where no other
    /// commit can change it; `nil` once closed or when the header cannot be read.
    func changeCounter() -> UInt32? {
        state.withLock { state in
            guard state.connection != nil else { return nil }
            return Self.read(at: state.index)?.mark.counter
        }
    }

    /// Closes the watch's connection; later counts are `nil`.
    func close() {
        state.withLock { $0.connection = nil }
    }

    /// The header at `index` when its two copies agree, `nil` while a writer is rewriting it.
    private static func read(at index: UInt) -> Header? {
        var header = Header()
        let agree = withUnsafeMutableBytes(of: &header.words) { bytes in
            csqlite_wal_index_header(
                UnsafeRawPointer(bitPattern: index), bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
        return agree == 1 ? header : nil
    }
}
