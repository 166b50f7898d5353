import CSQLite
import FoundationEssentials
import HTTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Checks on the store file made before and while SQLite opens it, so that a foreign or damaged
/// file is refused with an error naming it, and is never modified.
enum StoreFile {
    /// Creates a store at `path` when no file is there, and returns whether it did so.
    ///
    /// The store is built complete under a temporary name in the same folder (created with mode 0600
    /// before SQLite opens it) and then linked into place with `link(2)`, which never replaces a file.
    /// So `path` never exists as an empty or half-made file, and when two processes create the same
    /// store at once, one wins and the other opens the winner's file. SQLite creates the `-wal` and
    /// `-shm` files with the database file's permissions, so they are 0600 too. An existing file keeps
    /// its mode: it may not be ours to change.
    ///
    /// A creation killed before the link leaves its temporary file (with SQLite's `-wal` and `-shm`
    /// beside it); the next creation of the same store removes those (``removeAbandonedCreations(of:now:)``).
    ///
    /// Log files already at `path` (`-wal`, `-shm`, `-journal`) belong to a store that is gone: one
    /// whose writer was killed before its file was deleted, or one deleted while another process had
    /// it open. SQLite would replay such a log into the new file, which would then be born damaged or
    /// hold the old store's rows. They are removed just before the new file takes the name, under a
    /// lock of the folder that every creation takes, so that no creation removes the log of a store
    /// another one has just linked. A process that still has the old store open keeps its own files.
    @discardableResult
    static func createIfMissing(path: String, retryingFor limit: Double) throws -> Bool {
        var info = stat()
        if stat(path, &info) == 0 { return false }
        removeAbandonedCreations(of: path)
        let temporary = privatePath(for: path)
        defer { unlink(temporary) }
        let descriptor = open(temporary, O_CREAT | O_EXCL | O_RDWR | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw fileSystemError(errno, creating: path) }
        close(descriptor)
        do {
            try build(temporary, retryingFor: limit)
        } catch let error as SQLiteError {
            throw CacheStore.Error(
                code: .database, message: "Could not create the cache store '\(path)'.", cause: error
            )
        }
        return try publish(temporary, as: path)
    }

    /// A name in the folder of `path` for a store made privately before it takes that path
    /// (``publish(_:as:)``): a creation's mark, this process's id and a UUID, so that one abandoned
    /// by a killed process is removed by a later creation (``removeAbandonedCreations(of:now:)``).
    static func privatePath(for path: String) -> String {
        path + creatingMark + "\(getpid())-\(UUID().uuidString)"
    }

    /// Gives the closed store file at `privatePath` the name `path` with `link(2)`, unless a file
    /// already has it; returns whether it did. The private name stays for the caller to remove.
    ///
    /// The file is synced first: it is complete on disk before it gets its name, one sync standing for
    /// the many SQLite would make while the file is private to this process. Log files already at
    /// `path` are removed just before the link, under the folder's creation lock (see
    /// ``createIfMissing(path:retryingFor:)``).
    static func publish(_ privatePath: String, as path: String) throws -> Bool {
        guard syncFile(privatePath) else { throw fileSystemError(errno, creating: path) }
        return try withCreationLock(of: path) {
            var info = stat()
            if stat(path, &info) == 0 { return false }
            for companion in CacheStore.companionFiles { unlink(path + companion.suffix) }
            if link(privatePath, path) == 0 { return true }
            let code = errno
            if code == EEXIST { return false }
            throw fileSystemError(code, creating: path)
        }
    }

    /// Runs `body` holding an exclusive `flock(2)` of the folder of `path`, which creations of stores
    /// in that folder take for the moment they link their file into place. A folder that cannot be
    /// opened, or a file system that has no such locks (an NFS mount without them), runs `body`
    /// without the lock, as creations did before they took it.
    private static func withCreationLock<T>(of path: String, _ body: () throws -> T) throws -> T {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let descriptor = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard descriptor >= 0 else { return try body() }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { return try body() }
        }
        return try body()
    }

    /// What follows a store's path in the names of its files being created, before the creator's
    /// process id, a hyphen and a UUID.
    static let creatingMark = ".creating-"

    /// How long a creation's temporary file must have been left unchanged before another process
    /// may take it for abandoned; building a store takes milliseconds.
    static let abandonedAfter: TimeInterval = 60

    /// Removes the temporary files of creations of the store at `path` that were abandoned: their
    /// creator's process is gone (`kill(pid, 0)` finds none) and the file was last changed more than
    /// ``abandonedAfter`` ago, with their companion files. A creation still running, in this
    /// process or another one, is left alone; a file that cannot be read or removed is left as it is.
    static func removeAbandonedCreations(of path: String, now: Date = Date()) {
        let url = URL(fileURLWithPath: path)
        let prefix = url.lastPathComponent + creatingMark
        let folder = url.deletingLastPathComponent().path
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return }
        let suffixes = CacheStore.companionFiles.map(\.suffix)
        for name in names where name.hasPrefix(prefix) && !suffixes.contains(where: { name.hasSuffix($0) }) {
            let rest = name.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash]), pid > 0,
                kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            let file = folder + "/" + name
            // A store written for long (a merge or salvage into a new store) changes its log, not its file.
            let changes = [file, file + "-wal"].compactMap {
                (try? FileManager.default.attributesOfItem(atPath: $0))?[.modificationDate] as? Date
            }
            guard let changed = changes.max(), now.timeIntervalSince(changed) > abandonedAfter else { continue }
            for suffix in suffixes + [""] { unlink(file + suffix) }
        }
    }

    /// Builds the newest schema (``Schema/current``) in the file at `temporary`, in one transaction,
    /// and closes it. No other process knows the file, so nothing is synced here (`synchronous =
    /// OFF`); the caller syncs the finished file once.
    private static func build(_ temporary: String, retryingFor limit: Double) throws {
        let connection = try Connection(path: temporary, flags: SQLITE_OPEN_READWRITE)
        // Born in WAL mode (the mode is stored in the file), so that no opener ever needs the
        // exclusive lock that switching modes takes.
        try connection.execute(sql: "PRAGMA synchronous = OFF; PRAGMA journal_mode = WAL")
        try connection.writeTransaction(retryingFor: limit) {
            try connection.execute(sql: Schema.current)
            try connection.execute(
                sql: "PRAGMA application_id = \(Schema.applicationID); PRAGMA user_version = \(Schema.latestVersion)")
        }
    }

    /// Writes the file at `path` to disk; `false` with `errno` set when it cannot.
    private static func syncFile(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return fsync(descriptor) == 0
    }

    private static func fileSystemError(_ code: Int32, creating path: String) -> CacheStore.Error {
        CacheStore.Error(
            code: .fileSystem,
            message: "Could not create the cache store file '\(path)': \(String(cString: strerror(code))).",
            cause: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        )
    }

    /// Reads the header of an existing file and refuses anything that is not a complete SQLite database.
    static func checkHeader(path: String) throws(CacheStore.Error) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            throw CacheStore.Error(
                code: .fileSystem,
                message: "Could not read the cache store file '\(path)': \(String(cString: strerror(code))).",
                cause: POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
            )
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw CacheStore.Error(
                code: .notADatabase, message: "The cache store path '\(path)' is not a regular file.")
        }
        // A store is never empty, not even while it is created (see createIfMissing).
        guard info.st_size > 0 else {
            throw CacheStore.Error(
                code: .notADatabase,
                message: "The file '\(path)' is empty, not a webcache store; remove it or choose another path."
            )
        }
        guard let handle = OpenFile(forReadingAtPath: path) else {
            throw CacheStore.Error(
                code: .fileSystem, message: "Could not open the cache store file '\(path)' for reading.")
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 100)) ?? Data()
        let magic = Data("SQLite format 3\0".utf8)
        guard header.count == 100, header.prefix(16) == magic else {
            throw CacheStore.Error(
                code: .notADatabase,
                message: "The file '\(path)' is not an SQLite database, so it cannot be a webcache store."
            )
        }
        // Database header (https://www.sqlite.org/fileformat2.html#database_header): the page size at
        // offset 16 (1 means 65536) and the page count at 28, valid when the change counter at 24
        // equals the version-valid-for number at 92. A file shorter than that was truncated. With a
        // non-empty -wal file the main file may legitimately lag, so the check is skipped then.
        let bytes = [UInt8](header)
        func bigEndian(_ offset: Int, _ count: Int) -> UInt64 {
            bytes[offset..<(offset + count)].reduce(0) { $0 << 8 | UInt64($1) }
        }
        let rawPageSize = bigEndian(16, 2)
        let pageSize = rawPageSize == 1 ? 65_536 : rawPageSize
        let pageCount = bigEndian(28, 4)
        let headerIsValid = pageCount > 0 && bigEndian(24, 4) == bigEndian(92, 4)
        var walInfo = stat()
        let walIsEmpty = stat(path + "-wal", &walInfo) != 0 || walInfo.st_size == 0
        if headerIsValid, walIsEmpty, UInt64(info.st_size) < pageCount * pageSize {
            throw CacheStore.Error(
                code: .corrupt,
                message: "The cache store '\(path)' is truncated: it has \(info.st_size) bytes but its header "
                    + "describes \(pageCount) pages of \(pageSize) bytes; " + salvageAdvice(path)
            )
        }
    }

    /// Reads the schema without writing and refuses a database that is not a webcache store this
    /// code can open. Returns the store's `user_version`.
    static func checkSchema(_ connection: Connection, path: String) throws(CacheStore.Error) -> Int {
        let applicationID: Int64
        let version: Int64
        var tables: Set<String> = []
        do {
            applicationID = try connection.int64("PRAGMA application_id") ?? 0
            version = try connection.int64("PRAGMA user_version") ?? 0
            try connection.forEachRow(
                "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
            ) { row in
                tables.insert(row.text(0))
            }
        } catch let error as SQLiteError {
            throw openFailure(error, path: path)
        } catch {
            throw CacheStore.Error(code: .database, message: "Could not read the cache store '\(path)'.", cause: error)
        }
        if version > Schema.latestVersion {
            throw CacheStore.Error(
                code: .newerVersion,
                message: "The cache store '\(path)' has schema version \(version), newer than version "
                    + "\(Schema.latestVersion) that this version of webcache knows; use a newer webcache."
            )
        }
        if version == 0 {
            guard tables.isEmpty, applicationID == 0 else {
                throw CacheStore.Error(
                    code: .notAStore,
                    message: "The SQLite database '\(path)' is not a webcache store: it has tables "
                        + "(\(tables.sorted().joined(separator: ", "))) but no webcache schema version."
                )
            }
            return 0
        }
        guard applicationID == Int64(Schema.applicationID) else {
            throw CacheStore.Error(
                code: .notAStore,
                message: "The SQLite database '\(path)' is not a webcache store: its application id is "
                    + "\(applicationID), not \(Schema.applicationID)."
            )
        }
        let missing = Schema.requiredTables.subtracting(tables)
        guard missing.isEmpty else {
            throw CacheStore.Error(
                code: .notAStore,
                message: "The cache store '\(path)' lacks the tables \(missing.sorted().joined(separator: ", ")) "
                    + "of schema version \(version)."
            )
        }
        return Int(version)
    }

    /// Turns an SQLite error met while opening into a store error naming the file.
    static func openFailure(_ error: SQLiteError, path: String) -> CacheStore.Error {
        if let readOnly = readOnlyFailure(error, path: path) {
            return readOnly
        }
        if error.primaryCode == SQLITE_NOTADB {
            return CacheStore.Error(
                code: .notADatabase,
                message: "The file '\(path)' is not an SQLite database, so it cannot be a webcache store.",
                cause: error
            )
        }
        if error.isCorruption {
            return CacheStore.Error(
                code: .corrupt,
                message: "The cache store '\(path)' is damaged; " + salvageAdvice(path),
                cause: error
            )
        }
        return CacheStore.Error(code: .database, message: "Could not open the cache store '\(path)'.", cause: error)
    }

    /// Whether process `pid` exists (an `EPERM` answer means it exists but belongs to someone else).
    static func processExists(_ pid: Int32) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }

    /// How to keep what is still readable of the store at `path`, which cannot be opened as it is.
    private static func salvageAdvice(_ path: String) -> String {
        "'webcache salvage \(path) NEW' copies what is still readable into a new store."
    }
}
