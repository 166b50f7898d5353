import CMicroHTTPD
import CacheStore
import Glibc

/// A kept answer's body, freed when the last holder lets it go: in `malloc` memory of its own or,
/// when large, in a file without a name beside the store, which the server hands the kernel with
/// `sendfile` so that a hit does not copy the body into its socket.
///
/// The file is made with `O_TMPFILE`: it has no name from the start, so nothing is left in the
/// folder when the process ends, however it ends. It is written once with `write`, so that the
/// page cache holds it in large folios where the file system has them, and mapped for reading, so
/// that the body's bytes are in memory once. (A `memfd` was measured too: its pages are 4 KiB
/// each unless the machine turns on huge pages for shared memory, and `sendfile` from it saved no
/// CPU; see docs/benchmarks.md.)
final class HeldBody: Sendable {
    /// Bodies of more bytes than this go to a file when one can be made. A 1 MiB body sent from memory
    /// took about half the CPU of one sent from a file on the machine measured last (libmicrohttpd
    /// sends a file in pieces of 128 KiB, each a `sendfile` and a return to the event loop), though a
    /// third more the day before; a 3 MiB body went at 1.75x the rate from memory, at more CPU a hit
    /// (docs/benchmarks.md).
    static let fileThreshold = 4 * 1024 * 1024

    /// The address of the bytes, as a number (a pointer is not `Sendable`): `malloc` memory, or the
    /// file's mapping.
    private let address: UInt
    /// The size in bytes.
    let count: Int
    /// The file, or -1 for a body in `malloc` memory.
    private let file: Int32
    /// What counts the file, for a body in one.
    private let files: BodyFiles?

    /// Owns `count` bytes at `memory`, which came from `malloc`.
    init(taking memory: UnsafeMutableRawPointer?, count: Int) {
        address = UInt(bitPattern: memory)
        self.count = count
        file = -1
        files = nil
    }

    private init(file: Int32, mapping: UnsafeMutableRawPointer, count: Int, files: BodyFiles) {
        address = UInt(bitPattern: mapping)
        self.count = count
        self.file = file
        self.files = files
    }

    /// A body of `count` bytes in a file without a name in `files`' folder, mapped for reading, its
    /// bytes given piece by piece by `copy`, which fills the start of the buffer it is handed and
    /// returns how many bytes it put there, 0 at the end (as ``CacheStore/BodyCopier`` does): the
    /// body is never in memory twice. `nil` when `copy` throws or gives other than `count` bytes, or
    /// when no file can be made (as many held as `files` allows, a file system without `O_TMPFILE`,
    /// no room, no descriptor left), for the caller to keep the body in memory instead.
    static func inFile(
        count: Int, in files: BodyFiles, copying copy: (UnsafeMutableRawBufferPointer) throws -> Int
    ) -> HeldBody? {
        guard count > 0, files.reserve() else { return nil }
        let file = cmhd_open_unnamed_file(files.folder)
        guard file >= 0 else {
            files.release()
            return nil
        }
        let written = (try? write(into: file, count: count, copying: copy)) ?? -1
        let mapping = written == count ? mmap(nil, count, PROT_READ, MAP_SHARED, file, 0) : nil
        guard let mapping, mapping != MAP_FAILED else {
            close(file)
            files.release()
            return nil
        }
        return HeldBody(file: file, mapping: mapping, count: count, files: files)
    }

    /// Writes what `copy` gives into `file` through a buffer of one stored chunk; returns the bytes written,
    /// which fall short of what `copy` gave when a write fails, and stops past `count`.
    private static func write(
        into file: Int32, count: Int, copying copy: (UnsafeMutableRawBufferPointer) throws -> Int
    ) throws -> Int {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: CacheStore.chunkSize, alignment: 16)
        defer { buffer.deallocate() }
        var written = 0
        while written <= count, case let given = try copy(buffer), given > 0 {
            var done = 0
            while done < given {
                let sent = pwrite(file, buffer.baseAddress! + done, given - done, off_t(written + done))
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { return written + done }
                done += sent
            }
            written += given
        }
        return written
    }

    /// Whether the body is in a file.
    var isInFile: Bool { file >= 0 }

    /// The start of the bytes; valid while this body is held. Those of a body in a file are mapped
    /// for reading only.
    var start: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: address) }

    /// A descriptor of the body's file for one response to send from and then close; `nil` for a
    /// body in `malloc` memory, or when no descriptor is left (the bytes at ``start`` are the same).
    func fileForResponse() -> Int32? {
        guard file >= 0 else { return nil }
        let copy = fcntl(file, F_DUPFD_CLOEXEC, 0)
        return copy >= 0 ? copy : nil
    }

    deinit {
        if file >= 0 {
            munmap(start, count)
            close(file)
            files?.release()
        } else {
            free(start)
        }
    }
}
