import Dispatch
import FoundationEssentials
import HTTPCore

#if canImport(Glibc)
    import Glibc

    private let systemRead = Glibc.read
#elseif canImport(Darwin)
    import Darwin

    private let systemRead = Darwin.read
#endif

/// Bytes read in order, a piece at a time: a file, a range of a file, or a decompressing view of
/// another source. Readers take one so that memory stays flat whatever the input's size.
public protocol ByteSource: AnyObject {
    /// Up to `maxLength` next bytes; empty at the end.
    ///
    /// - Throws: ``ArchiveError`` or the file system's error when the bytes cannot be read.
    func read(maxLength: Int) async throws -> Data
}

/// The bytes of a file, or of one range of it. Reads run on a thread of their own, so that a file
/// that is slow to answer (a pipe, a network file system) never holds up other tasks.
public final class FileByteSource: ByteSource {
    private let handle: OpenFile
    private let start: Int64
    private let length: Int64?
    private var remaining: Int64?

    /// Reads the file at `path` from `offset`, `length` bytes or to its end.
    ///
    /// - Throws: ``ArchiveError`` when the file cannot be opened.
    public init(path: String, offset: Int64 = 0, length: Int64? = nil) throws {
        guard let handle = OpenFile(forReadingAtPath: path) else {
            throw ArchiveError(reason: "The file cannot be opened for reading.")
        }
        self.handle = handle
        self.start = offset
        self.length = length
        self.remaining = length
        if offset > 0 { try handle.seek(toOffset: UInt64(offset)) }
    }

    /// Continues at `offset` from the start of the range.
    public func seek(to offset: Int64) throws {
        try handle.seek(toOffset: UInt64(start + offset))
        remaining = length.map { max(0, $0 - offset) }
    }

    deinit {
        try? handle.close()
    }

    public func read(maxLength: Int) async throws -> Data {
        var count = maxLength
        if let remaining { count = Int(min(Int64(count), remaining)) }
        guard count > 0 else { return Data() }
        let (descriptor, wanted) = (handle.fileDescriptor, count)
        let data = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data, any Error>) in
            Self.queue.async {
                // read(2) returns what is there: a pipe's bytes as they come, not once `wanted` have.
                var buffer = Data(count: wanted)
                var got = -1
                repeat {
                    got = buffer.withUnsafeMutableBytes { bytes -> Int in systemRead(descriptor, bytes.baseAddress, wanted) }
                } while got < 0 && errno == EINTR
                guard got >= 0 else {
                    let reason = String(cString: strerror(errno))
                    return continuation.resume(throwing: ArchiveError(reason: "The file cannot be read: \(reason)."))
                }
                buffer.count = got
                continuation.resume(returning: buffer)
            }
        }
        remaining = remaining.map { $0 - Int64(data.count) }
        return data
    }

    /// Where blocking reads wait.
    private static let queue = DispatchQueue(label: "webcache.archive.read", attributes: .concurrent)
}

/// Bytes held in memory, for tests and small inputs.
public final class DataByteSource: ByteSource {
    private var data: Data

    /// Reads `data`.
    public init(_ data: Data) {
        self.data = data
    }

    public func read(maxLength: Int) async throws -> Data {
        let piece = data.prefix(maxLength)
        data = data.dropFirst(piece.count)
        return Data(piece)
    }
}

/// A source that can go back to an earlier offset, so that a reader can look for the next record
/// after a damaged one.
public protocol SeekableByteSource: ByteSource {
    /// Continues reading at `offset`, counted from where the source started.
    func seek(to offset: Int64) throws
}

extension FileByteSource: SeekableByteSource {}

/// Bytes already read from a source, put in front of it again.
final class PrefixedByteSource: ByteSource {
    private var prefix: Data
    private let base: any ByteSource

    init(prefix: Data, base: any ByteSource) {
        self.prefix = prefix
        self.base = base
    }

    func read(maxLength: Int) async throws -> Data {
        guard prefix.isEmpty else {
            let piece = prefix.prefix(maxLength)
            prefix = Data(prefix.dropFirst(piece.count))
            return Data(piece)
        }
        return try await base.read(maxLength: maxLength)
    }
}
