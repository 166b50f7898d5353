import CSQLite
import FoundationEssentials
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension StoreFile {
    // MARK: - Refusing to write

    /// The error for an existing store that this process cannot write: the file, or the folder
    /// where SQLite keeps the store's `-wal` and `-shm` files, is read-only (by its mode, or because
    /// its file system is mounted read-only); `nil` when both can be written or there is no file yet.
    ///
    /// A store opened for writing is checked before SQLite opens it, so that a command that writes
    /// stops before it does anything else, with one sentence, rather than after its work with SQLite's
    /// "attempt to write a readonly database" for each write.
    static func writeRefusal(path: String) -> CacheStore.Error? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        let folder = FilePathText.deletingLastComponent(of: path)
        let reason: String
        let code: Int32
        if access(path, W_OK) != 0 {
            code = errno
            reason = code == EROFS ? "it is on a read-only file system" : "the file cannot be written"
        } else if access(folder.isEmpty ? "." : folder, W_OK) != 0 {
            code = errno
            let folderState = code == EROFS ? "is on a read-only file system" : "cannot be written"
            reason = "its folder \(folderState), and SQLite keeps the store's -wal and -shm files there"
        } else if let side = ["-wal", "-shm"].map({ path + $0 }).first(where: {
            access($0, F_OK) == 0 && access($0, W_OK) != 0
        }) {
            var owner = stat()
            let user = stat(side, &owner) == 0 ? "user \(owner.st_uid)" : "another user"
            reason = "'\(side)' belongs to \(user) and cannot be written (that user read the store, and SQLite left "
                + "the file as theirs); remove the store's -wal and -shm files while no process uses the store"
        } else {
            return nil
        }
        // The reason says in words what the system's error code would.
        return readOnlyError(path: path, reason: reason, cause: nil)
    }

    /// The error for a store that cannot be written, for `reason`.
    static func readOnlyError(path: String, reason: String, cause: (any Error)?) -> CacheStore.Error {
        CacheStore.Error(code: .readOnly, message: "The cache store '\(path)' is read-only: \(reason).", cause: cause)
    }

    /// The error for a store that SQLite refused to open or write as read-only (`SQLITE_READONLY`),
    /// although the check before opening found it writable; `nil` for any other failure.
    static func readOnlyFailure(_ error: SQLiteError, path: String) -> CacheStore.Error? {
        guard error.primaryCode == SQLITE_READONLY else { return nil }
        return readOnlyError(path: path, reason: "SQLite cannot write it or the files beside it", cause: error)
    }

    // MARK: - Reading without writing

    /// `path` as an SQLite URI filename, to which query parameters such as `?mode=ro` are added.
    static func fileURI(_ path: String) -> String {
        "file:" + path.percentEncoded(allowing: \.isURLPathAllowed)
    }

    /// The URI filename with which SQLite reads the store at `path` without writing anything.
    ///
    /// A store in WAL mode is read through its `-wal` file and the `-shm` index beside it. SQLite's
    /// documentation on read-only WAL databases (<https://www.sqlite.org/wal.html#readonly>): such a
    /// database "can still be read as long as one or more of the following conditions are met: The
    /// -shm and -wal files already exists and are readable; There is write permission on the
    /// directory containing the database so that the -shm and -wal files can be created; The
    /// database connection is opened using the immutable query parameter."
    ///
    /// So the store is opened `mode=ro` first, which covers the first two. When SQLite cannot open it
    /// so, and there is no `-wal` file, the store is opened `immutable=1`, which reads the file alone,
    /// without locks: SQLite copies the `-wal` into the store and deletes it when the last connection
    /// closes, so the file holds every committed change and no connection is open; a writer would
    /// first have to create a `-wal` in the folder, which this process could not do. (Immutable
    /// assumes nothing else can either: "If this option is set and the file does in fact change, then
    /// SQLite might return incorrect query results and/or SQLITE_CORRUPT errors". That holds on a
    /// read-only file system; a process with more rights than this one that writes the store while
    /// it is read can make a read fail.) A `-wal` file that is there may hold changes the store file
    /// lacks (its process was killed, or is still running): immutable reading would miss them, or read
    /// the file half-way through their copy, so the store is refused with a sentence that says so.
    ///
    /// A `mode=ro` connection in a writable folder leaves the `-wal` and `-shm` files it made behind:
    /// only a connection that can write removes them, when it closes last. Made by another user
    /// than the store's owner (a folder shared with the sticky bit, such as `/tmp`), they would
    /// belong to that user, with the store file's mode, and lock the owner out of writing its own
    /// store. So a process that does not own the store (and is not root, whose files SQLite gives
    /// to the store's owner) reads it as in a read-only folder: `immutable=1` when there is no
    /// `-wal`, with the same risk; through the owner's files when both are there; and a store with
    /// a `-wal` but no `-shm` is refused, since reading it would make one.
    ///
    /// The first read waits for the locks of other processes as a store's reads do: with
    /// `configuration`'s busy timeout, and starting over after `SQLITE_BUSY` until its retry limit.
    static func readOnlyURI(path: String, configuration: CacheStore.Configuration) throws(CacheStore.Error) -> String {
        let base = fileURI(path)
        var info = stat()
        if geteuid() != 0, stat(path, &info) == 0, info.st_uid != geteuid() {
            let (wal, shm) = (access(path + "-wal", F_OK) == 0, access(path + "-shm", F_OK) == 0)
            if !wal { return base + "?immutable=1" }
            if !shm {
                throw CacheStore.Error(
                    code: .readOnly,
                    message: "The cache store '\(path)' cannot be read by another user than its owner now: its "
                        + "write-ahead log '\(path)-wal' needs an index ('\(path)-shm') that reading would create "
                        + "as this user's, which would keep the owner from writing the store. Run the command as the "
                        + "store's owner, or once the owner's process has closed the store.")
            }
        }
        do {
            let probe = try Connection(path: base + "?mode=ro", flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI)
            probe.setBusyTimeout(milliseconds: configuration.busyTimeoutMilliseconds)
            // SQLite opens the -wal and -shm files when it first reads.
            _ = try probe.retryingBusy(for: configuration.busyRetryLimit) {
                try probe.int64("SELECT count(*) FROM sqlite_schema")
            }
            return base + "?mode=ro"
        } catch let error as SQLiteError {
            guard error.primaryCode == SQLITE_CANTOPEN || error.primaryCode == SQLITE_READONLY else {
                throw openFailure(error, path: path)
            }
            guard !FileManager.default.fileExists(atPath: path + "-wal") else {
                throw CacheStore.Error(
                    code: .readOnly,
                    message: "The cache store '\(path)' cannot be read without writing: its write-ahead log "
                        + "'\(path)-wal' may hold changes not yet copied into the store, and SQLite cannot make the "
                        + "index it needs to read them ('\(path)-shm') in its read-only folder. Open the store once "
                        + "with a command that writes, where it can be written, or copy it with its -wal file to a "
                        + "writable folder.",
                    cause: error
                )
            }
            return base + "?immutable=1"
        } catch {
            throw CacheStore.Error(code: .database, message: "Could not open the cache store '\(path)'.", cause: error)
        }
    }
}
