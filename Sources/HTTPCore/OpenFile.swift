import FoundationEssentials
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An open file descriptor, read, written and closed through POSIX calls: the part of Foundation's
/// `FileHandle` that webcache uses, which FoundationEssentials does not have. The descriptor is
/// closed once, by ``close()`` or when the object goes.
public final class OpenFile: Sendable {
    /// A failed call: the `errno` it set, described as `strerror` does.
    public struct Error: Swift.Error, Sendable, Hashable, CustomStringConvertible {
        /// The `errno` value.
        public var code: Int32

        public var description: String { String(cString: strerror(code)) }
    }

    /// The descriptor.
    public let fileDescriptor: Int32
    private let closed = Atomic(false)

    /// Takes over `descriptor`, which the object closes.
    public init(fileDescriptor descriptor: Int32) {
        fileDescriptor = descriptor
    }

    /// Opens `path` for reading; `nil` when it cannot be opened.
    public convenience init?(forReadingAtPath path: String) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.init(fileDescriptor: descriptor)
    }

    deinit {
        if !closed.load(ordering: .relaxed) { _ = Glibc.close(fileDescriptor) }
    }

    /// Reads until `count` bytes or the end of the file; fewer bytes (none at the end) when the file
    /// ends first.
    public func read(upToCount count: Int) throws(Error) -> Data {
        var data = Data(count: count)
        var total = 0
        while total < count {
            let got = data.withUnsafeMutableBytes { bytes in
                Glibc.read(fileDescriptor, bytes.baseAddress! + total, count - total)
            }
            if got < 0, errno == EINTR { continue }
            guard got >= 0 else { throw Error(code: errno) }
            if got == 0 { break }
            total += got
        }
        data.count = total
        return data
    }

    /// Writes all of `data`.
    public func write(contentsOf data: Data) throws(Error) {
        var written = 0
        while written < data.count {
            let put = data.withUnsafeBytes { bytes in
                Glibc.write(fileDescriptor, bytes.baseAddress! + written, data.count - written)
            }
            if put < 0, errno == EINTR { continue }
            guard put >= 0 else { throw Error(code: errno) }
            written += put
        }
    }

    /// Moves to `offset` from the start of the file.
    public func seek(toOffset offset: UInt64) throws(Error) {
        guard lseek(fileDescriptor, off_t(offset), SEEK_SET) >= 0 else { throw Error(code: errno) }
    }

    /// Moves to the end of the file.
    /// - Returns: the file's length.
    @discardableResult
    public func seekToEnd() throws(Error) -> UInt64 {
        let end = lseek(fileDescriptor, 0, SEEK_END)
        guard end >= 0 else { throw Error(code: errno) }
        return UInt64(end)
    }

    /// Cuts the file to `offset` bytes and moves there.
    public func truncate(atOffset offset: UInt64) throws(Error) {
        guard ftruncate(fileDescriptor, off_t(offset)) == 0 else { throw Error(code: errno) }
        try seek(toOffset: offset)
    }

    /// Writes the file's data through to the disk (`fsync`). A device, pipe or socket that has no
    /// disk behind it (`EINVAL`, such as `/dev/null` or a FIFO) has nothing to write through.
    public func synchronize() throws(Error) {
        guard fsync(fileDescriptor) == 0 || errno == EINVAL else { throw Error(code: errno) }
    }

    /// Closes the descriptor; later calls do nothing.
    public func close() throws(Error) {
        guard !closed.exchange(true, ordering: .relaxed) else { return }
        guard Glibc.close(fileDescriptor) == 0 else { throw Error(code: errno) }
    }
}
