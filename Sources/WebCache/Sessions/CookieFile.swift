import FoundationEssentials
import HTTPCore
import Sessions
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file that keeps one partition's session cookies across runs, next to the store file:
/// `<store>.cookies-<partition>.json`, mode 0600, replaced atomically.
struct CookieFile: Sendable {
    let path: String

    init(storePath: String, partition: String) {
        path = "\(storePath).cookies-\(partition).json"
    }

    /// The saved cookies, or `nil` when there is no file.
    /// - Throws: ``WebCacheError`` naming the file when it cannot be read or decoded.
    func load() throws -> CookieJar.Snapshot? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return try JSONDecoder().decode(CookieJar.Snapshot.self, from: data)
        } catch {
            throw WebCacheError(.store, "The cookie file '\(path)' cannot be read.", cause: error)
        }
    }

    /// Writes `snapshot` to a new file created with mode 0600, then renames it over the old one, so
    /// the cookies are never readable by others, even for a moment, and never half written.
    /// - Throws: ``WebCacheError`` naming the file.
    func save(_ snapshot: CookieJar.Snapshot) throws {
        let temporary = "\(path).\(UUID().uuidString).tmp"
        do {
            let data = try JSONEncoder().encode(snapshot)
            let descriptor = open(temporary, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
            guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            let handle = OpenFile(fileDescriptor: descriptor)
            try handle.write(contentsOf: data)
            try handle.synchronize()
            try handle.close()
            guard rename(temporary, path) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        } catch {
            unlink(temporary)
            throw WebCacheError(.store, "The cookie file '\(path)' cannot be written.", cause: error)
        }
    }

    /// Deletes the file, if there is one.
    /// - Throws: ``WebCacheError`` naming the file when it exists and cannot be deleted.
    func remove() throws {
        guard unlink(path) == 0 || errno == ENOENT else {
            let cause = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            throw WebCacheError(.store, "The cookie file '\(path)' cannot be deleted.", cause: cause)
        }
    }
}
