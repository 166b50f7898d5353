import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The file an export writes. The bytes go to a private name in the same folder, which takes the
/// file's name (`rename(2)`, replacing what was there in one step) only once the archive is complete:
/// an export that fails, runs out of room or is interrupted leaves no truncated archive under that
/// name, and an archive that was there before stays as it was. An output that exists and is not a
/// regular file (a FIFO, a device such as `/dev/null`) is written in place. A symbolic link stays a
/// link: the file it leads to is the one replaced.
struct ArchiveOutput: Sendable {
    /// The archive's path, as given.
    let path: String
    /// The file ``path`` names, its symbolic links followed, which the archive becomes.
    private let target: String
    /// Where the bytes go until ``complete()``.
    let writingPath: String
    /// The mode of the file at ``path`` before, which the archive that replaces it keeps.
    private let existingMode: mode_t?

    /// The output `path`, which names the file `target` (``path`` with its links resolved).
    init(path: String, target: String) {
        self.path = path
        self.target = target
        var status = stat()
        guard stat(target, &status) == 0 else {
            existingMode = nil
            writingPath = Self.privatePath(for: target)
            return
        }
        let isRegular = status.st_mode & S_IFMT == S_IFREG
        existingMode = isRegular ? status.st_mode & 0o7777 : nil
        writingPath = isRegular ? Self.privatePath(for: target) : target
    }

    /// A hidden name beside `path`: its name after a dot, and this process's id.
    private static func privatePath(for path: String) -> String {
        let url = URL(fileURLWithPath: path)
        return url.deletingLastPathComponent().appendingPathComponent(
            ".\(url.lastPathComponent).partial-\(getpid())").path
    }

    /// Gives the written archive its name.
    /// - Throws: ``CLIError`` saying why the file could not be renamed.
    func complete() throws {
        guard writingPath != target else { return }
        if let existingMode { _ = chmod(writingPath, existingMode) }
        guard rename(writingPath, target) == 0 else {
            throw CLIError("it could not be given its name: \(String(cString: strerror(errno)))")
        }
    }

    /// Removes what was written under the private name, if it is still there.
    func discard() {
        if writingPath != target { unlink(writingPath) }
    }
}
