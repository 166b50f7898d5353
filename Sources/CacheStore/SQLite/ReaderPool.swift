import CSQLite
import Dispatch
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A small pool of read-only connections (WAL lets them read while the writer writes).
///
/// Each lane is a connection behind its own `Mutex`; a read takes its thread's own lane when it is
/// free (each thread is given one, in turn, on its first read), else the next free one, or waits
/// for one chosen round-robin when all are busy. So threads that read all the time, such as a
/// gateway's event-loop threads, each keep to their own connection instead of all trying the first
/// lane and meeting on its lock. Point lookups run on the caller's thread: they read
/// a few indexed rows and never wait for the writer under WAL. Long reads (statistics, verification)
/// go through ``readInBackground(_:)``, which runs them on a Dispatch queue, off the cooperative pool.
final class ReaderPool: Sendable {
    private final class Lane: Sendable {
        let connection: Mutex<Connection?>
        init(_ connection: consuming sending Connection) {
            self.connection = Mutex(connection)
        }
    }

    private let lanes: [Lane]
    private let nextLane = Atomic<Int>(0)
    /// Where each thread keeps the number of its lane, plus one (0: none given yet).
    private static let threadLaneKey: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "No thread-specific key is left for the reader pool.")
        return key
    }()
    /// How many threads were given a lane so far.
    private static let lanesGiven = Atomic<Int>(0)
    private let queue = DispatchQueue(label: "webcache.store.readers", attributes: .concurrent)

    /// Opens `count` reader connections on `path` with `flags`; the store is already in WAL mode.
    init(path: String, flags: Int32 = SQLITE_OPEN_READWRITE, count: Int, busyTimeout: Int32) throws(SQLiteError) {
        precondition(count > 0, "A reader pool needs at least one connection.")
        var lanes: [Lane] = []
        for _ in 0..<count {
            let connection = try Connection(path: path, flags: flags)
            connection.setBusyTimeout(milliseconds: busyTimeout)
            try connection.execute(sql: "PRAGMA query_only = ON")
            // What ``CacheStore/changeCount()`` compares with: commits from now on count as changes.
            connection.seenDataVersion = try connection.int64("PRAGMA data_version")
            lanes.append(Lane(connection))
        }
        self.lanes = lanes
    }

    /// Runs `body` with a reader connection on the calling thread.
    func read<T: Sendable>(_ body: @Sendable (Connection) throws -> T) throws -> T {
        let home = Self.threadLane()
        for offset in 0..<lanes.count {
            let lane = lanes[(home + offset) % lanes.count]
            let attempt: Result<T, any Error>?? = lane.connection.withLockIfAvailable { connection in
                guard let connection else { return nil }
                return Result { try body(connection) }
            }
            if let attempt {
                guard let result = attempt else { throw ReaderPoolClosed() }
                return try result.get()
            }
        }
        let index = nextLane.wrappingAdd(1, ordering: .relaxed).oldValue % lanes.count
        let result: Result<T, any Error>? = lanes[index].connection.withLock { connection in
            guard let connection else { return nil }
            return Result { try body(connection) }
        }
        guard let result else { throw ReaderPoolClosed() }
        return try result.get()
    }

    /// The calling thread's lane number (to be taken modulo the lane count), given on its first call.
    private static func threadLane() -> Int {
        if let stored = pthread_getspecific(threadLaneKey) { return Int(bitPattern: stored) - 1 }
        let lane = lanesGiven.wrappingAdd(1, ordering: .relaxed).oldValue & Int.max
        pthread_setspecific(threadLaneKey, UnsafeRawPointer(bitPattern: lane + 1))
        return lane
    }

    /// Runs `body` with a reader connection on a Dispatch queue and resumes the caller with its result.
    func readInBackground<T: Sendable>(_ body: @escaping @Sendable (Connection) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                continuation.resume(with: Result { try self.read(body) })
            }
        }
    }

    /// Closes every connection; later reads throw.
    func close() {
        for lane in lanes {
            lane.connection.withLock { $0 = nil }
        }
    }
}

/// Thrown by a read on a closed pool; the store turns it into ``CacheStore/Error/Code/closed``.
struct ReaderPoolClosed: Error {}
