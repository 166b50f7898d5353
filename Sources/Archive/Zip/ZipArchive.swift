import CZlib
import FoundationEssentials
import HTTPCore

/// The members of a zip file (PKWARE APPNOTE 6.3), read from its central directory: a WACZ file is a
/// zip of WARC files with indexes (<https://specs.webrecorder.net/wacz/1.1.1/>).
///
/// Members stored (method 0) or deflated (method 8) are read as streams; ZIP64 and encrypted
/// members are refused. Every length and offset is checked against what holds it, so that damaged
/// bytes are reported with their offset.
public struct ZipArchive: Sendable {
    /// One member of the archive.
    public struct Member: Sendable, Hashable {
        /// The member's path inside the archive.
        public var name: String
        /// 0 stored, 8 deflated.
        public var method: UInt16
        /// The compressed size in bytes.
        public var compressedSize: Int64
        /// The offset of the member's local header in the file.
        public var localHeaderOffset: Int64
    }

    /// The file's path.
    public let path: String
    /// The members in the central directory's order.
    public let members: [Member]
    /// Where the central directory starts: the members' data ends before it.
    private let directoryOffset: Int64

    /// Reads the central directory of the zip file at `path`.
    ///
    /// - Throws: ``ArchiveError`` when the file is not a zip file or uses ZIP64.
    public init(path: String) throws {
        self.path = path
        guard let handle = OpenFile(forReadingAtPath: path) else {
            throw ArchiveError(reason: "The file cannot be opened for reading.")
        }
        defer { try? handle.close() }
        let size = Int64(try handle.seekToEnd())
        // The end record is 22 bytes plus a comment of at most 65,535.
        let tailLength = min(size, 22 + 65_535)
        try handle.seek(toOffset: UInt64(size - tailLength))
        let tail = try handle.read(upToCount: Int(tailLength))
        guard let end = Self.lastEndRecord(in: tail), tail.endIndex - end.lowerBound >= 22 else {
            throw ArchiveError(reason: "The file has no zip end of central directory record, so it is not a zip file.")
        }
        let record = tail[end.lowerBound...]
        let count = Int(record.littleEndian(UInt16.self, at: 10))
        let directorySize = Int64(record.littleEndian(UInt32.self, at: 12))
        let directoryOffset = Int64(record.littleEndian(UInt32.self, at: 16))
        guard directoryOffset != 0xFFFF_FFFF, directorySize != 0xFFFF_FFFF, count != 0xFFFF else {
            throw ArchiveError(reason: "The zip file uses ZIP64, which is not supported.")
        }
        guard directoryOffset + directorySize <= size else {
            throw ArchiveError(offset: directoryOffset, reason: "The zip central directory lies beyond the file's end.")
        }
        try handle.seek(toOffset: UInt64(directoryOffset))
        let directory = try handle.read(upToCount: Int(directorySize))
        var members: [Member] = []
        var index = directory.startIndex
        for _ in 0..<count {
            let entry = directory[index...]
            let damaged = ArchiveError(
                offset: directoryOffset + Int64(index - directory.startIndex),
                reason: "The zip central directory is damaged.")
            guard entry.count >= 46, entry.littleEndian(UInt32.self, at: 0) == 0x0201_4B50 else { throw damaged }
            let nameLength = Int(entry.littleEndian(UInt16.self, at: 28))
            let extraLength = Int(entry.littleEndian(UInt16.self, at: 30))
            let commentLength = Int(entry.littleEndian(UInt16.self, at: 32))
            // The entry with its name, extra field and comment lies within the directory.
            let entryLength = 46 + nameLength + extraLength + commentLength
            guard entry.count >= entryLength else { throw damaged }
            let nameStart = entry.startIndex + 46
            members.append(
                Member(
                    name: String(decoding: entry[nameStart..<(nameStart + nameLength)], as: UTF8.self),
                    method: entry.littleEndian(UInt16.self, at: 10),
                    compressedSize: Int64(entry.littleEndian(UInt32.self, at: 20)),
                    localHeaderOffset: Int64(entry.littleEndian(UInt32.self, at: 42))))
            index += entryLength
        }
        self.members = members
        self.directoryOffset = directoryOffset
    }

    /// The range of the last end-of-central-directory signature (`PK\u{5}\u{6}`) in `tail`.
    private static func lastEndRecord(in tail: Data) -> Range<Int>? {
        let signature: [UInt8] = [0x50, 0x4B, 0x05, 0x06]
        var start = tail.endIndex - signature.count
        while start >= tail.startIndex {
            let range = start..<(start + signature.count)
            if tail[range].elementsEqual(signature) { return range }
            start -= 1
        }
        return nil
    }

    /// A stream of `member`'s uncompressed bytes.
    ///
    /// - Throws: ``ArchiveError`` when the member's local header is damaged, its data would run into
    ///   the central directory, it is encrypted or uses ZIP64, or its method is neither stored nor deflated.
    public func contents(of member: Member) async throws -> any ByteSource {
        func refused(_ reason: String) -> ArchiveError {
            ArchiveError(
                offset: member.localHeaderOffset, reason: "The zip member '\(member.name)' cannot be read: \(reason).")
        }
        guard member.compressedSize != 0xFFFF_FFFF, member.localHeaderOffset != 0xFFFF_FFFF else {
            throw refused("it uses ZIP64, which is not supported")
        }
        guard member.method == 0 || member.method == 8 else {
            throw ArchiveError(
                offset: member.localHeaderOffset,
                reason: "The zip member '\(member.name)' uses compression method \(member.method); only stored "
                    + "and deflated members are read.")
        }
        let header = try await FileByteSource(path: path, offset: member.localHeaderOffset, length: 30).read(maxLength: 30)
        guard header.count == 30, header.littleEndian(UInt32.self, at: 0) == 0x0403_4B50 else {
            throw ArchiveError(
                offset: member.localHeaderOffset, reason: "The local header of zip member '\(member.name)' is damaged.")
        }
        guard header.littleEndian(UInt16.self, at: 6) & 1 == 0 else {
            throw refused("it is encrypted, which is not supported")
        }
        let dataOffset = member.localHeaderOffset + 30 + Int64(header.littleEndian(UInt16.self, at: 26))
            + Int64(header.littleEndian(UInt16.self, at: 28))
        guard dataOffset + member.compressedSize <= directoryOffset else {
            throw refused("its data would run into the central directory")
        }
        let stored = try FileByteSource(path: path, offset: dataOffset, length: member.compressedSize)
        return member.method == 0 ? stored : RawInflatingSource(base: stored, name: member.name, offset: dataOffset)
    }
}

/// The bytes of a deflated zip member, inflated as they are read. Damaged data gives the bytes
/// inflated before the damage, then the same error at every read.
final class RawInflatingSource: ByteSource {
    private let base: any ByteSource
    private let name: String
    /// The offset of the deflated data in the zip file.
    private let offset: Int64
    private var stream = z_stream()
    private var input = Data()
    private var inputIndex = 0
    private var ended = false
    private var failure: ArchiveError?

    init(base: any ByteSource, name: String, offset: Int64) {
        self.base = base
        self.name = name
        self.offset = offset
        // -15: raw deflate, as zip stores it.
        let status = inflateInit2_(&stream, -15, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib could not start inflating (status \(status)).")
    }

    deinit {
        inflateEnd(&stream)
    }

    func read(maxLength: Int) async throws -> Data {
        if let failure { throw failure }
        var output = Data(count: maxLength)
        while !ended, maxLength > 0 {
            if inputIndex >= input.count {
                input = try await base.read(maxLength: 256 * 1024)
                inputIndex = 0
                guard !input.isEmpty else {
                    let error = ArchiveError(reason: "The zip member '\(name)' ends before its deflated data does.")
                    failure = error
                    throw error
                }
            }
            var produced = 0
            var status: Int32 = Z_OK
            input.withUnsafeBytes { source in
                output.withUnsafeMutableBytes { target in
                    let base = source.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.next_in = UnsafeMutablePointer(mutating: base + inputIndex)
                    stream.avail_in = uInt(source.count - inputIndex)
                    stream.next_out = target.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(maxLength)
                    status = inflate(&stream, Z_NO_FLUSH)
                    inputIndex = source.count - Int(stream.avail_in)
                    produced = maxLength - Int(stream.avail_out)
                }
            }
            if status == Z_STREAM_END { ended = true }
            guard status == Z_OK || status == Z_STREAM_END || status == Z_BUF_ERROR else {
                let detail = stream.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                let error = ArchiveError(
                    reason: "The zip member '\(name)' is damaged (\(detail), found at byte "
                        + "\(offset + Int64(stream.total_in)) of the zip file).")
                failure = error
                // What was inflated before zlib found the damage comes first, the error at the next read.
                guard produced > 0 else { throw error }
                output.count = produced
                return output
            }
            if produced > 0 {
                output.count = produced
                return output
            }
        }
        return Data()
    }
}

extension Data {
    /// The little-endian integer at `offset` from the start.
    fileprivate func littleEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        var value: T = 0
        for byte in 0..<MemoryLayout<T>.size {
            value |= T(self[startIndex + offset + byte]) << (8 * byte)
        }
        return value
    }
}
