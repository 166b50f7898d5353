import Foundation

/// Bytes read in order, a piece at a time: a file, a range of a file, or a decompressing view of
/// another source. Readers take one so that memory stays flat whatever the input's size.
public protocol ByteSource: AnyObject {
    /// Up to `maxLength` next bytes; empty at the end.
    ///
    /// - Throws: ``ArchiveError`` or the file system's error when the bytes cannot be read.
    func read(maxLength: Int) throws -> Data
}

/// The bytes of a file, or of one range of it.
public final class FileByteSource: ByteSource {
    private let handle: FileHandle
    private let start: Int64
    private let length: Int64?
    private var remaining: Int64?

    /// Reads the file at `path` from `offset`, `length` bytes or to its end.
    ///
    /// - Throws: ``ArchiveError`` when the file cannot be opened.
    public init(path: String, offset: Int64 = 0, length: Int64? = nil) throws {
        guard let handle = FileHandle(forReadingAtPath: path) else {
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

    public func read(maxLength: Int) throws -> Data {
        var count = maxLength
        if let remaining { count = Int(min(Int64(count), remaining)) }
        guard count > 0 else { return Data() }
        let data = try handle.read(upToCount: count) ?? Data()
        remaining = remaining.map { $0 - Int64(data.count) }
        return data
    }
}

/// Bytes held in memory, for tests and small inputs.
public final class DataByteSource: ByteSource {
    private var data: Data

    /// Reads `data`.
    public init(_ data: Data) {
        self.data = data
    }

    public func read(maxLength: Int) throws -> Data {
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

    func read(maxLength: Int) throws -> Data {
        guard prefix.isEmpty else {
            let piece = prefix.prefix(maxLength)
            prefix = Data(prefix.dropFirst(piece.count))
            return Data(piece)
        }
        return try base.read(maxLength: maxLength)
    }
}
