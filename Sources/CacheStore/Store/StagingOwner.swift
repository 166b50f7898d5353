#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Who staged a body: the `pid` column of a staging row, which a store opened later reads to tell a
/// body still being written from one abandoned by a process that died.
///
/// A process id means something only in its PID namespace: a container and its host sharing a
/// cache folder see each other's processes under other ids, or not at all. So the column holds the
/// process id in its low 32 bits (all that older versions read) and, above them, a tag of the
/// writer's PID namespace (31 bits of its `/proc/self/ns/pid` identity; 0 where it cannot be read).
/// A row staged in another namespace is never taken for abandoned because its process is not seen
/// here; only its age lets it be collected.
enum StagingOwner {
    /// This process's column value.
    static let current: Int64 = Int64(namespaceTag) << 32 | Int64(getpid())

    /// This process's PID namespace tag; 0 when it cannot be read.
    static let namespaceTag: UInt32 = {
        var status = stat()
        guard stat("/proc/self/ns/pid", &status) == 0 else { return 0 }
        let identity = UInt64(status.st_ino) ^ UInt64(status.st_dev) << 17
        return UInt32(truncatingIfNeeded: identity ^ identity >> 31) & 0x7FFF_FFFF
    }()

    /// Whether the process that wrote `recorded` is known to be gone: it is not this one, it was in
    /// this namespace (or in one that is not known, as an older version wrote it), and no process has
    /// its id.
    static func isGone(_ recorded: Int64) -> Bool {
        let pid = Int32(truncatingIfNeeded: recorded)
        let tag = UInt32(truncatingIfNeeded: recorded >> 32)
        guard recorded != current else { return false }
        if tag != 0 && namespaceTag != 0 && tag != namespaceTag { return false }
        if tag == 0 && pid == getpid() { return false }
        return !StoreFile.processExists(pid)
    }
}
