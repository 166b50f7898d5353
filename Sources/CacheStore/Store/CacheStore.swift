import CSQLite
import FoundationEssentials
import HTTPCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The offline store: stored responses, their content-addressed bodies, page → resource edges and
/// partitions, in one SQLite file.
///
/// One writer connection belongs to this actor, whose jobs run on a dedicated `DispatchQueue`
/// (not on Swift's cooperative pool), so writes are serial. Reads use a small pool of WAL reader
/// connections and never wait for the writer. Every write is a `BEGIN IMMEDIATE` transaction with a
/// busy timeout and a retry loop, so `SQLITE_BUSY` never reaches a caller, also when several
/// processes share the file. One entry is written in one transaction: after a crash the store holds
/// the old entry or the new one, never half of one. Saves and staged chunks that wait for the writer
/// at the same time share that transaction (group commit); each returns once it has committed.
///
/// ```swift
/// let store = try CacheStore(path: "/var/cache/app/webcache.sqlite")
/// let saved = try await store.save(entry, body: data)
/// if let hit = try await store.lookup(url: "https://example.com/") { … }
/// try await store.close()
/// ```
///
/// Related SQLite documentation: <https://www.sqlite.org/wal.html>
public actor CacheStore {
    /// The size of a body chunk: 256 KiB.
    public static let chunkSize = 256 * 1024

    /// The store file's path.
    public nonisolated let path: String
    /// The configuration the store was opened with.
    public nonisolated let configuration: Configuration

    nonisolated let executor: QueueExecutor
    nonisolated let readers: ReaderPool
    /// How reads name the columns that later schema versions added.
    nonisolated let columns: ReadableColumns
    nonisolated let checkpointer: Checkpointer
    /// The log written by the writer's commits, which starts background checkpoints; `nil` when read-only.
    nonisolated let logGrowth: LogGrowth?
    nonisolated let accessLog = AccessLog()
    /// What ``changeCount()`` returns: one more for every change a reader saw first.
    nonisolated let changes = Atomic<UInt64>(0)
    /// Staging tokens are this store's random prefix and a counter: unique across processes, without
    /// reading the system's random source for every body.
    private nonisolated let stagingTokenPrefix = UUID().uuidString
    private nonisolated let stagingTokenCount = Atomic<Int>(0)
    var writer: Connection?
    private var isClosed = false
    /// Tells ``changeCount()`` of commits without a read; `nil` for a store opened for reading only.
    nonisolated let logIndexWatch: LogIndexWatch?
    /// What the writer's commits changed (``entriesMayHaveChanged(url:since:until:)``).
    nonisolated let commitLedger: CommitLedger
    /// The device and inode of the file at ``path`` when the store was opened (``isStillAtItsPath``);
    /// `nil` when they could not be read.
    private nonisolated let fileIdentity: FileIdentity?
    /// Writes waiting for the writer's next transaction (``QueuedWrite``).
    nonisolated let queuedWrites = Mutex(WriteQueue())

    /// The actor's executor: a serial `DispatchQueue` that owns the writer connection.
    public nonisolated var unownedExecutor: UnownedSerialExecutor {
        executor.asUnownedSerialExecutor()
    }

    // MARK: - Opening

    /// Opens the store at `path`, creating it (mode 0600) and its schema when the file does not exist.
    ///
    /// A file that is not SQLite, an SQLite database that is not a webcache store, a store of a newer
    /// schema version, or a damaged store is refused with an error naming the path, and left unchanged.
    /// So is a store that this process cannot write (its file, or the folder that holds its `-wal` and
    /// `-shm` files, is read-only), with ``Error/Code/readOnly``, before anything is read. Opening also
    /// removes body chunks staged by processes that no longer exist.
    ///
    /// With ``Configuration/readOnly`` the store must exist and is only read: its connections are
    /// opened read-only (`mode=ro`), or, when SQLite cannot read the store so because its folder
    /// cannot be written and it has no `-wal` file, as immutable; a store with a `-wal` file there is
    /// refused (see `StoreFile.readOnlyURI(path:configuration:)`). A store of an older schema version is refused too,
    /// as upgrading it writes.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/wal.html#readonly>
    ///
    /// - Parameters:
    ///   - path: The store file.
    ///   - configuration: Limits and tuning.
    /// - Throws: ``CacheStore/Error``.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        self.path = path
        self.configuration = configuration
        self.executor = QueueExecutor(label: "webcache.store.writer")
        let commitLedger = CommitLedger()
        self.commitLedger = commitLedger
        if configuration.readOnly {
            let (readers, version) = try Self.openReaders(readingOnly: path, configuration: configuration)
            self.readers = readers
            self.columns = ReadableColumns(schemaVersion: version)
            self.checkpointer = Checkpointer()
            self.logGrowth = nil
            self.writer = nil
            self.logIndexWatch = nil
            self.fileIdentity = FileIdentity(path: path)
            return
        }
        if let refusal = StoreFile.writeRefusal(path: path) { throw refusal }
        try StoreFile.createIfMissing(path: path, retryingFor: configuration.busyRetryLimit)
        try StoreFile.checkHeader(path: path)
        let writer: Connection
        do {
            writer = try Connection(path: path, flags: SQLITE_OPEN_READWRITE)
        } catch {
            throw StoreFile.openFailure(error, path: path)
        }
        writer.setBusyTimeout(milliseconds: configuration.busyTimeoutMilliseconds)
        _ = try StoreFile.checkSchema(writer, path: path)
        let readers: ReaderPool
        let checkpointer: Checkpointer
        let logGrowth: LogGrowth
        do {
            logGrowth = try Self.setUp(writer, path: path, ledger: commitLedger)
            try Migration.migrate(
                writer, with: Schema.migrations, retryingFor: configuration.busyRetryLimit, path: path)
            do {
                try Self.collectAbandonedStaging(writer, configuration: configuration)
            } catch let error as SQLiteError where error.isOutOfRoom {
                // On a full disk the abandoned chunks wait for a later open; what is stored stays readable.
            }
            readers = try ReaderPool(
                path: path,
                count: configuration.readerCount,
                busyTimeout: configuration.busyTimeoutMilliseconds
            )
            checkpointer = try Checkpointer(path: path)
        } catch let error as SQLiteError {
            throw StoreFile.openFailure(error, path: path)
        }
        self.readers = readers
        self.columns = .latest
        self.checkpointer = checkpointer
        self.logGrowth = logGrowth
        self.writer = writer
        self.logIndexWatch = LogIndexWatch(path: path, ledger: commitLedger)
        self.fileIdentity = FileIdentity(path: path)
    }

    /// Whether the file at ``path`` is still the one this store opened: `false` once it was removed or
    /// replaced (another file moved over it, or it was removed and created again). What the store
    /// writes then goes to the removed file, whose contents go when the store closes, and what other
    /// processes store at the path it no longer sees. `true` when the identity could not be read.
    public nonisolated var isStillAtItsPath: Bool {
        guard let fileIdentity else { return true }
        return FileIdentity(path: path) == fileIdentity
    }

    /// Creates the folder that is to hold the store at `path`, and the folders above it, when they do
    /// not exist; with mode 0700, as a store holds private data. Opening a store never does: a
    /// mistyped path must not leave folders behind. The library's default store and salvage's new
    /// store do.
    ///
    /// - Throws: ``Error/Code/fileSystem`` naming the folder when it cannot be created.
    public static func createFolder(forStoreAt path: String) throws {
        let folder = FilePathText.deletingLastComponent(of: path)
        guard !folder.isEmpty else { return }
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw Error(
                code: .fileSystem, message: "Could not create the folder '\(folder)' for the cache store '\(path)'.",
                cause: error)
        }
    }

    /// The files SQLite keeps beside a store, by the suffix of its path, with what each holds.
    public static let companionFiles: [(suffix: String, holds: String)] = [
        ("-wal", "the write-ahead log"), ("-shm", "the shared-memory index"), ("-journal", "the rollback journal"),
    ]

    /// Removes the store file at `path` with its companion files (``companionFiles``), those that exist:
    /// a store just created that is to be left behind after all. The store must be closed.
    public static func removeFiles(ofStoreAt path: String) {
        for suffix in [""] + companionFiles.map(\.suffix) {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    /// A path beside `path` where a store that is to become `path` only when it is complete (a merge
    /// or salvage into a new store) is made, unknown to any other process; ``publish(_:as:)`` then
    /// names it. One that a killed process left is removed by a later creation of `path`.
    public static func privatePath(for path: String) -> String {
        StoreFile.privatePath(for: path)
    }

    /// Gives the closed store at `privatePath` the path `path`, unless a file is there already (another
    /// process created it meanwhile); returns whether it did. Either way the caller removes the files
    /// of `privatePath` afterwards (``removeFiles(ofStoreAt:)``). Log files left at `path` by a store
    /// that was removed are removed first, so that SQLite does not replay them into this one.
    /// - Throws: ``Error`` with code ``Error/Code/fileSystem`` when the file cannot be synced or linked.
    public static func publish(_ privatePath: String, as path: String) throws -> Bool {
        try StoreFile.publish(privatePath, as: path)
    }

    /// The reader connections of a store opened for reading only, after checking its file and schema,
    /// and the store's schema version.
    private static func openReaders(
        readingOnly path: String, configuration: Configuration
    ) throws -> (ReaderPool, version: Int) {
        try StoreFile.checkHeader(path: path)
        let uri = try StoreFile.readOnlyURI(path: path, configuration: configuration)
        let readers: ReaderPool
        do {
            readers = try ReaderPool(
                path: uri, flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, count: configuration.readerCount,
                busyTimeout: configuration.busyTimeoutMilliseconds)
        } catch {
            throw StoreFile.openFailure(error, path: path)
        }
        let version = try readers.read { connection in try StoreFile.checkSchema(connection, path: path) }
        guard version >= Schema.oldestReadableVersion else {
            readers.close()
            throw Error(
                code: .readOnly,
                message: "The cache store '\(path)' has schema version \(version), older than version "
                    + "\(Schema.oldestReadableVersion) that this version of webcache reads; upgrading it writes to it, "
                    + "so open it once with a command that writes, where it can be written."
            )
        }
        return (readers, version)
    }

    /// The WAL size, in bytes, at which a commit of the writer checkpoints (``LogGrowth`` does it at
    /// this many bytes' worth of pages), rather than SQLite's 1,000 pages. Background checkpoints
    /// (``checkpointStep``) normally keep the WAL well below it, so this is a backstop. It is also the
    /// size to which the WAL file is truncated afterwards.
    static let walSizeLimit: Int64 = 64 * 1024 * 1024

    /// The bytes of log the writer's commits add between two background checkpoints. Each costs a sync of
    /// the store file, on the checkpoint's own thread, and copies again the pages that every group of
    /// saves changes (the indexes' and totals' pages); what the last one has not copied is synced by
    /// the checkpoint SQLite runs when the store closes, and the log file, which the close deletes,
    /// stays about this size (``Checkpointer/finishOnWriter(_:)``). Against 4 MiB, a cold preload of
    /// a site of 11,053 small files took 1.32 s instead of 1.43 s (medians of three in turns) and a
    /// 2 GiB body 5.6 s instead of 6.0 s (medians of seven and four); runs of tiny URLs and of 27 KB
    /// files did not move, and 64 MiB was slower for the large body (6.5 s); docs/benchmarks.md has
    /// the runs.
    static let checkpointStep = 16 * 1024 * 1024

    /// WAL (checked), synchronous NORMAL, foreign keys (GRDB `Database.setUpWALMode()`), secure
    /// delete, and the writer's checkpoints; returns what counts the log's growth.
    ///
    /// With WAL, `synchronous = NORMAL` syncs at checkpoints only: every commit stays atomic and the
    /// store consistent after a crash; a power loss may lose the last commits, never half of one.
    /// `secure_delete` overwrites what deleted rows held, so that a logged-out user's pages or a
    /// pruned entry leave nothing readable in the file's free pages (some builds of SQLite have it
    /// on by default, others off).
    private static func setUp(_ connection: Connection, path: String, ledger: CommitLedger) throws -> LogGrowth {
        let mode = try connection.text("PRAGMA journal_mode = WAL")
        guard mode?.lowercased() == "wal" else {
            throw CacheStore.Error(
                code: .database,
                message: "The cache store '\(path)' could not use write-ahead logging; its journal mode is "
                    + "'\(mode ?? "unknown")'."
            )
        }
        try connection.execute(sql: "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA secure_delete = ON")
        let pageSize = try connection.int64("PRAGMA page_size") ?? 4_096
        try connection.execute(sql: "PRAGMA journal_size_limit = \(walSizeLimit)")
        let growth = LogGrowth(
            pageSize: pageSize, stepBytes: Int64(checkpointStep), checkpointBytes: walSizeLimit, ledger: ledger)
        growth.observe(connection)
        return growth
    }

    /// Deletes staging whose process is gone (``StagingOwner``), or that is older than
    /// ``Configuration/stagingMaxAge`` (which also covers a process id reused after a crash, and a
    /// writer in another PID namespace). Another live process may be staging right now, so its rows stay.
    private static func collectAbandonedStaging(_ connection: Connection, configuration: Configuration) throws {
        let oldest = configuration.clock().timeIntervalSince1970 - configuration.stagingMaxAge
        var abandoned: [String] = []
        try connection.forEachRow("SELECT token, pid, started_at FROM staging") { row in
            let tooOld = row.double(2) < oldest
            if tooOld || StagingOwner.isGone(row.int64(1)) {
                abandoned.append(row.text(0))
            }
        }
        guard !abandoned.isEmpty else { return }
        try connection.writeTransaction(retryingFor: configuration.busyRetryLimit) {
            for token in abandoned {
                try connection.run("DELETE FROM staging WHERE token = ?", [.text(token)])
            }
        }
    }

    // MARK: - Closing

    /// Flushes recorded hits and closes every connection; later calls throw ``Error/Code/closed``.
    ///
    /// - Throws: ``CacheStore/Error`` when the hits cannot be written; the store is closed anyway.
    public func close() throws {
        guard !isClosed else { return }
        isClosed = true
        defer {
            logIndexWatch?.close()
            checkpointer.close()
            readers.close()
            writer = nil
        }
        if !configuration.readOnly { try flushAccessLog() }
    }

    /// Writes the hits recorded by lookups to the store now; does nothing when none is waiting.
    ///
    /// - Throws: ``CacheStore/Error``.
    public func flushAccessLog() throws {
        guard !accessLog.isEmpty else { return }
        try write("record hits", touching: .nothingServed) { _ in }
    }

    // MARK: - Internals shared by the extensions

    /// Runs `body` in one write transaction on the writer connection, after writing the buffered hits;
    /// what it changes that a kept answer is read from is `touched` (anything, unless said).
    func write<T>(
        _ action: @autoclosure () -> String, touching touched: CommitLedger.Touched = .anything,
        _ body: (Connection) throws -> T
    ) throws -> T {
        try write(action(), touchedBy: { _ in touched }, body)
    }

    /// ``write(_:touching:_:)`` for a write that tells what it changed from its value.
    func write<T>(
        _ action: @autoclosure () -> String, touchedBy touched: (T) -> CommitLedger.Touched,
        _ body: (Connection) throws -> T
    ) throws -> T {
        guard let writer else { throw writeRefusal }
        let hits = accessLog.drain()
        do {
            return try recordedTransaction(on: writer) { changed in
                try AccessLog.write(hits, to: writer)
                let value = try body(writer)
                CommitLedger.add(touched(value), to: &changed)
                return value
            }
        } catch {
            accessLog.restore(hits)
            throw storeError(error, action: action())
        }
    }

    /// Runs `body` in a write transaction on `writer` (retried while the store is busy) and hands the
    /// ledger what `body` adds to `changed` just before the commit, with the header's counter read as
    /// the transaction began, where no other connection can commit before it ends
    /// (``CommitLedger/expect(counter:changed:)``). The two paths of the writer's transactions,
    /// ``write(_:touchedBy:_:)`` and the group commit, both go through it.
    func recordedTransaction<T>(
        on writer: Connection, _ body: (inout CommitLedger.Changed) throws -> T
    ) throws -> T {
        defer { commitLedger.end() }
        return try writer.writeTransaction(retryingFor: configuration.busyRetryLimit) {
            let counter = logIndexWatch?.changeCounter()
            var changed: CommitLedger.Changed = []
            let value = try body(&changed)
            commitLedger.expect(counter: counter, changed: changed)
            return value
        }
    }

    /// A token for a new body writer's staging row, unique among every process's.
    nonisolated func makeStagingToken() -> String {
        "\(stagingTokenPrefix)-\(stagingTokenCount.wrappingAdd(1, ordering: .relaxed).newValue)"
    }

    /// After the writer's commits: starts a background checkpoint for every ``checkpointStep`` bytes
    /// of log they added, so that the writer's own checkpoint (``walSizeLimit``) seldom has to run.
    func noteCommitted() {
        guard let writer, let logGrowth else { return }
        checkpointer.finishOnWriter(writer)
        guard logGrowth.takeStep() else { return }
        checkpointer.start()
    }

    /// Runs `body` with a reader connection on the calling thread.
    ///
    /// WAL readers seldom meet a lock (WAL recovery, a wal-index being rebuilt); when they do after the
    /// busy timeout, the read starts over with backoff, like a write, so `SQLITE_BUSY` never escapes.
    nonisolated func read<T: Sendable>(
        _ action: @autoclosure () -> String,
        _ body: @Sendable (Connection) throws -> T
    ) throws -> T {
        var deadline: Date?
        var delay = 0.001
        while true {
            do {
                return try readers.read(body)
            } catch let error as SQLiteError where error.isBusy && Date() < (deadline ?? .distantFuture) {
                deadline = deadline ?? Date().addingTimeInterval(configuration.busyRetryLimit)
                POSIXThread.sleep(seconds: delay * Double.random(in: 0.5...1.5))
                delay = min(delay * 2, 0.1)
            } catch {
                throw storeError(error, action: action())
            }
        }
    }

    /// Runs `body` with a reader connection, inside one read transaction, on a Dispatch queue.
    /// Cancelling the calling task sets the flag that `body` checks between its steps.
    nonisolated func readInBackground<T: Sendable>(
        _ action: String,
        _ body: @escaping @Sendable (Connection, CancellationFlag) throws -> T
    ) async throws -> T {
        let flag = CancellationFlag()
        do {
            return try await withTaskCancellationHandler {
                try await readers.readInBackground { connection in
                    try flag.check()
                    return try connection.readTransaction { try body(connection, flag) }
                }
            } onCancel: {
                flag.cancel()
            }
        } catch let error as CancellationError {
            throw error
        } catch {
            throw storeError(error, action: action)
        }
    }

    nonisolated var closedError: Error {
        Error(code: .closed, message: "The cache store '\(path)' is closed.")
    }

    /// Why a write cannot run when there is no writer: the store was opened for reading only, or closed.
    nonisolated var writeRefusal: Error {
        guard configuration.readOnly else { return closedError }
        return Error(
            code: .readOnly, message: "The cache store '\(path)' was opened for reading only; it cannot be changed.")
    }

    /// Wraps any error as a store error naming the file and the action.
    nonisolated func storeError(_ error: any Swift.Error, action: String) -> Error {
        switch error {
        case let error as Error:
            return error
        case let error as SQLiteError where error.isOutOfRoom:
            let reason =
                switch error.systemErrno {
                case EFBIG where error.primaryCode != SQLITE_FULL:
                    "the cache store '\(path)' has reached the largest file this process may write (its file size limit, as `ulimit -f` sets it)"
                case EDQUOT where error.primaryCode != SQLITE_FULL:
                    "the disk quota of the user running it is used up on the disk holding the cache store '\(path)'"
                default:
                    "the disk holding the cache store '\(path)' is full"
                }
            return Error(code: .diskFull, message: "Could not \(action): \(reason).", cause: error)
        case let error as SQLiteError where error.isCorruption:
            return Error(
                code: .corrupt,
                message: "The cache store '\(path)' is damaged: could not \(action). "
                    + Error.recoveryAdvice(forStoreAt: path),
                cause: error)
        case let error as SQLiteError where error.isBusy:
            let tenths = Int((configuration.busyRetryLimit * 10).rounded())
            let waited = tenths % 10 == 0 ? "\(tenths / 10)" : "\(tenths / 10).\(tenths % 10)"
            return Error(
                code: .database,
                message: "Could not \(action): another process kept the cache store '\(path)' locked for writing "
                    + "for \(waited) s (a merge or a compaction writes in one long transaction); try again once it is "
                    + "done.",
                cause: error)
        case let error as SQLiteError:
            return Error(code: .database, message: "Could not \(action) in the cache store '\(path)'.", cause: error)
        case is ReaderPoolClosed:
            return closedError
        default:
            return Error(code: .database, message: "Could not \(action) in the cache store '\(path)'.", cause: error)
        }
    }

    /// The running totals, read through `connection`; zeros when their row is missing.
    static func readTotals(_ connection: Connection) throws -> StoreTotals {
        try recordedTotals(connection) ?? StoreTotals(entryCount: 0, entryBytes: 0, bodyCount: 0, bodyBytes: 0)
    }

    /// The running totals, read through `connection`; `nil` when their row is missing.
    static func recordedTotals(_ connection: Connection) throws -> StoreTotals? {
        var totals: StoreTotals?
        try connection.forEachRow(
            "SELECT entry_count, entry_bytes, body_count, body_bytes FROM store_totals WHERE id = 1"
        ) { row in
            totals = StoreTotals(
                entryCount: row.int64(0), entryBytes: row.int64(1), bodyCount: row.int64(2), bodyBytes: row.int64(3)
            )
        }
        return totals
    }

    /// The figures of the running totals counted from the rows, read through `connection` (a scan of
    /// the entries and of the bodies, not of their bytes). A body still being written counts only
    /// once it is complete, as the triggers count it.
    static func countTotals(_ connection: Connection) throws -> StoreTotals {
        var totals = StoreTotals(entryCount: 0, entryBytes: 0, bodyCount: 0, bodyBytes: 0)
        try connection.forEachRow(
            """
            SELECT (SELECT count(*) FROM entry), (SELECT coalesce(sum(body_size), 0) FROM entry), \
            (SELECT count(*) FROM body WHERE hash IS NOT NULL), \
            (SELECT coalesce(sum(size), 0) FROM body WHERE hash IS NOT NULL)
            """
        ) { row in
            totals = StoreTotals(
                entryCount: row.int64(0), entryBytes: row.int64(1), bodyCount: row.int64(2), bodyBytes: row.int64(3)
            )
        }
        return totals
    }
}

/// Opens the store at `path`, runs `body`, and closes the store, also when `body` throws.
/// The store must not escape the closure.
///
/// - Throws: ``CacheStore/Error``, or what `body` throws.
public func withCacheStore<T: Sendable>(
    at path: String,
    configuration: CacheStore.Configuration = CacheStore.Configuration(),
    _ body: (CacheStore) async throws -> T
) async throws -> T {
    try await CacheStore(path: path, configuration: configuration).closing(after: body)
}

extension CacheStore {
    /// Runs `body` with this store, then closes it, also when `body` throws (then a failure to close
    /// is dropped in favour of `body`'s error). The store must not escape the closure.
    ///
    /// - Throws: what `body` throws, or ``CacheStore/Error`` when closing fails.
    public nonisolated func closing<T: Sendable>(after body: (CacheStore) async throws -> T) async throws -> T {
        do {
            let result = try await body(self)
            try await close()
            return result
        } catch {
            try? await close()
            throw error
        }
    }
}
