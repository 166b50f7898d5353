#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The device and inode number of a file: what stays the same while the file is renamed, and differs
/// for another file at the same path; two paths with the same identity are one file (through a
/// symbolic link, a hard link or another spelling of the path).
package struct FileIdentity: Equatable, Sendable {
    package let device: UInt64
    package let inode: UInt64

    /// The identity of the file at `path` (symbolic links followed), `nil` when there is none.
    package init?(path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }
}
