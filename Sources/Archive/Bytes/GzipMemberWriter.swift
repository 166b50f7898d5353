import CZlib
import FoundationEssentials

/// Compresses data into gzip members (RFC 1952), one member per call of ``finishMember()``: a WARC
/// file compressed record by record, so that a reader can start at any record's offset.
///
/// ```swift
/// let writer = GzipMemberWriter(level: 1)
/// var out = try writer.compress(head)
/// out += try writer.compress(block)
/// out += try writer.finishMember()
/// ```
public final class GzipMemberWriter {
    private var stream = z_stream()
    private var buffer = [UInt8](repeating: 0, count: 256 * 1024)
    private let level: Int32
    private var memberLevel: Int32

    /// A writer compressing at zlib `level` (1, fastest, to 9, smallest).
    public init(level: Int32 = 6) {
        self.level = level
        memberLevel = level
        // 15 + 16: a 32 KiB window with a gzip header and trailer instead of zlib's.
        let status = deflateInit2_(
            &stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "zlib could not start a gzip stream (status \(status)).")
    }

    deinit {
        deflateEnd(&stream)
    }

    /// Sets whether the member about to start is compressed at the writer's level or only stored
    /// (deflate's stored blocks: for bytes that are compressed already, a copy costs less than
    /// looking for repeats that are not there). Call it before the member's first bytes.
    public func startMember(compressing: Bool) {
        let wanted = compressing ? level : 0
        guard wanted != memberLevel else { return }
        let status = deflateParams(&stream, wanted, Z_DEFAULT_STRATEGY)
        precondition(status == Z_OK, "zlib could not change the level of a new member (status \(status)).")
        memberLevel = wanted
    }

    /// Compresses `data` into the current member; returns what zlib has output so far.
    public func compress(_ data: Data) -> Data {
        run(data, flush: Z_NO_FLUSH)
    }

    /// Ends the current member and returns its last bytes; the next ``compress(_:)`` starts a new one.
    public func finishMember() -> Data {
        let tail = run(Data(), flush: Z_FINISH)
        deflateReset(&stream)
        return tail
    }

    /// Drops the current member unfinished: what it compressed and has not returned yet is lost, and
    /// the next ``compress(_:)`` starts a new member.
    public func discardMember() {
        deflateReset(&stream)
    }

    private func run(_ data: Data, flush: Int32) -> Data {
        var output = Data()
        data.withUnsafeBytes { source in
            stream.next_in = UnsafeMutablePointer(
                mutating: source.baseAddress?.assumingMemoryBound(to: Bytef.self))
            stream.avail_in = uInt(source.count)
            buffer.withUnsafeMutableBufferPointer { target in
                repeat {
                    stream.next_out = target.baseAddress
                    stream.avail_out = uInt(target.count)
                    let status = deflate(&stream, flush)
                    precondition(status != Z_STREAM_ERROR, "zlib's deflate state is inconsistent.")
                    output.append(target.baseAddress!, count: target.count - Int(stream.avail_out))
                } while stream.avail_out == 0 || (flush == Z_FINISH && stream.avail_in > 0)
            }
        }
        return output
    }
}
