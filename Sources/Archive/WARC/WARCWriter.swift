import FoundationEssentials
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes WARC records to a file, each compressed as a gzip member of its own (or uncompressed),
/// streaming each block so that memory stays flat whatever its size.
///
/// The header is written first, so its `Content-Length` and digests must be known before the
/// block; ``WARCHeader`` has the factories for the record types webcache writes. A block that turns
/// out longer or shorter than its `Content-Length` is refused, and its record left out of the file.
///
/// ```swift
/// let writer = try WARCWriter(path: "site.warc.gz")
/// try writer.beginRecord(header)
/// try writer.writeBlock(head)
/// try writer.writeBlock(body)
/// try writer.endRecord()
/// try writer.close()
/// ```
public final class WARCWriter {
    private let handle: OpenFile
    private let compressor: GzipMemberWriter?
    private var buffer = Data()
    private var blockRemaining: Int64 = 0
    private var inRecord = false
    /// Where the current record starts, counted as ``bytesWritten``.
    private var recordStart: Int64 = 0

    /// The bytes written to the file so far (compressed).
    public private(set) var bytesWritten: Int64 = 0

    /// Creates (or truncates) the file at `path`, as a shell's `>` does: through a symbolic link, and
    /// never replacing what is there by a new file. `compressionLevel` 1 to 9 compresses each record
    /// as a gzip member, `nil` writes plain WARC.
    ///
    /// - Throws: ``ArchiveError`` when the file cannot be created.
    public init(path: String, compressionLevel: Int32? = 6) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw ArchiveError(reason: "The file cannot be created: \(String(cString: strerror(errno))).")
        }
        handle = OpenFile(fileDescriptor: descriptor)
        compressor = compressionLevel.map { GzipMemberWriter(level: $0) }
    }

    /// Starts a record: writes its header. Exactly `header.contentLength` block bytes must follow.
    /// A record whose block is `compressible: false` (images, fonts, content coded already) is put
    /// into its gzip member as stored blocks: the file is as large, and the copy is much faster.
    public func beginRecord(_ header: WARCHeader, compressible: Bool = true) throws {
        precondition(!inRecord, "A WARC record was begun before the previous one ended.")
        inRecord = true
        recordStart = bytesWritten
        compressor?.startMember(compressing: compressible)
        blockRemaining = header.contentLength ?? 0
        try emit(header.serialized())
    }

    /// Writes the next bytes of the current record's block.
    ///
    /// - Throws: ``ArchiveError`` when the bytes go past the block's `Content-Length`: the record is
    ///   then left out of the file, as by ``discardRecord()``.
    public func writeBlock(_ data: Data) throws {
        guard Int64(data.count) <= blockRemaining else {
            try discardRecord()
            throw ArchiveError(reason: "The record's block is longer than its Content-Length.")
        }
        blockRemaining -= Int64(data.count)
        try emit(data)
    }

    /// Ends the current record (and its gzip member).
    ///
    /// - Throws: ``ArchiveError`` when the block is shorter than its `Content-Length`: the record is
    ///   then left out of the file, as by ``discardRecord()``.
    public func endRecord() throws {
        guard blockRemaining == 0 else {
            let missing = blockRemaining
            try discardRecord()
            throw ArchiveError(reason: "The record's block is \(missing) bytes shorter than its Content-Length.")
        }
        try emit(Data("\r\n\r\n".utf8))
        if let compressor { try output(compressor.finishMember()) }
        inRecord = false
    }

    /// Whether a response body with these header fields is worth compressing: not when it is coded
    /// already (`Content-Encoding`) or of a format compressed in itself (raster images, WOFF fonts,
    /// audio, video, archives, PDF).
    public static func isCompressible(_ headers: HTTPHeaders) -> Bool {
        if let coding = headers["Content-Encoding"], !coding.trimmingWhitespace().isEmpty,
            !coding.caseInsensitiveEquals("identity")
        {
            return false
        }
        let type = (headers["Content-Type"] ?? "").split(separator: ";").first?
            .trimmingWhitespace().lowercased() ?? ""
        if type.hasPrefix("image/") { return ["image/svg+xml", "image/bmp", "image/x-icon"].contains(type) }
        if type.hasPrefix("audio/") || type.hasPrefix("video/") { return false }
        return !["font/woff", "font/woff2", "application/font-woff", "application/zip", "application/gzip",
                 "application/x-gzip", "application/zstd", "application/pdf"].contains(type)
    }

    /// Leaves the current record out of the file, for a block that cannot be written whole: what it
    /// wrote is taken back, and the next record starts where it would have. Does nothing between records.
    public func discardRecord() throws {
        guard inRecord else { return }
        inRecord = false
        blockRemaining = 0
        compressor?.discardMember()
        let flushed = bytesWritten - Int64(buffer.count)
        if recordStart >= flushed {
            buffer.removeLast(Int(bytesWritten - recordStart))
        } else {
            buffer.removeAll(keepingCapacity: true)
            try handle.truncate(atOffset: UInt64(recordStart))
        }
        bytesWritten = recordStart
    }

    /// Writes a whole record whose block is in memory.
    public func writeRecord(_ header: WARCHeader, block: Data) throws {
        try beginRecord(header)
        try writeBlock(block)
        try endRecord()
    }

    /// Writes what is buffered and closes the file.
    public func close() throws {
        try flush()
        try handle.synchronize()
        try handle.close()
    }

    private func emit(_ data: Data) throws {
        try output(compressor.map { $0.compress(data) } ?? data)
    }

    private func output(_ data: Data) throws {
        bytesWritten += Int64(data.count)
        buffer.append(data)
        if buffer.count >= 1 << 20 { try flush() }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        try handle.write(contentsOf: buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
