import CSQLite
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension StoreFile {
    /// The error for a store that SQLite cannot open, or cannot write, because its file system is
    /// mounted read-only; `nil` for any other failure.
    ///
    /// A store in WAL mode needs its `-wal` and `-shm` files beside it even to be read, so SQLite's
    /// own words ("unable to open database file", "attempt to write a readonly database") would not
    /// tell the user what is wrong.
    static func readOnlyFailure(_ error: SQLiteError, path: String) -> CacheStore.Error? {
        guard error.primaryCode == SQLITE_CANTOPEN || error.primaryCode == SQLITE_READONLY,
            isOnReadOnlyFileSystem(path)
        else { return nil }
        return CacheStore.Error(
            code: .readOnly,
            message: "The cache store '\(path)' is on a read-only file system; webcache needs to write beside it, "
                + "even to read it (SQLite's write-ahead log keeps its -wal and -shm files there). Copy the store "
                + "to a writable place, or mount its file system read-write.",
            cause: error
        )
    }

    /// Whether the file system holding `path` (or, when `path` does not exist, its folder) is mounted read-only.
    static func isOnReadOnlyFileSystem(_ path: String) -> Bool {
        var info = statvfs()
        let target = FileManager.default.fileExists(atPath: path) ? path : (path as NSString).deletingLastPathComponent
        guard statvfs(target.isEmpty ? "." : target, &info) == 0 else { return false }
        return info.f_flag & UInt(ST_RDONLY) != 0
    }
}
