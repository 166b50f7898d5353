import CZlib
import FoundationEssentials
import HTTPCore

/// Decodes content coded with gzip or deflate (zlib's formats) a piece at a time, so that memory
/// stays flat whatever the coding's ratio.
///
/// The loader uses it for an entry the store holds as an origin coded it (sent coded although the
/// caller that stored it did not ask for a coding, as the gateway does not), when the caller now
/// takes content decoded. `deflate` is read as the zlib format RFC 9110 §8.4.1.2 names, or as raw
/// deflate when its first two bytes are not a zlib header, as libcurl and browsers accept.
///
/// ```swift
/// let decoder = try #require(ContentDecoder(coding: "gzip"))
/// decoder.feed(coded)
/// while !decoder.needsInput, !decoder.hasEnded { output.append(try decoder.read(atMost: 65_536)) }
/// try decoder.finish()
/// ```
final class ContentDecoder {
    /// Why content could not be decoded.
    struct Failure: Error, Equatable {
        /// What went wrong, as a clause: "is not valid gzip (incorrect header check)".
        var reason: String
    }

    /// The codings this decoder reads, in lower case.
    static let codings: Set<String> = ["gzip", "x-gzip", "deflate"]

    private var stream = z_stream()
    private let name: String
    /// Whether the stream is set up: at once for gzip, once two bytes tell which deflate it is.
    private var started = false
    /// The first bytes of `deflate` content, until there are two.
    private var header = Data()
    private var input = Data()
    private var inputOffset = 0
    /// Whether the coded content has ended (the coding's own end marker was read).
    private(set) var hasEnded = false

    /// A decoder for `coding` (a `Content-Encoding` value), or `nil` when the value is not one
    /// coding this decoder reads.
    init?(coding: String) {
        let name = coding.trimmingWhitespace().lowercased()
        guard Self.codings.contains(name) else { return nil }
        self.name = name == "x-gzip" ? "gzip" : name
        if self.name == "gzip" {
            // 15 + 32: a window of up to 32 KiB, the gzip (or zlib) header detected from the bytes.
            guard start(windowBits: 15 + 32) else { return nil }
        }
    }

    deinit {
        if started { inflateEnd(&stream) }
    }

    /// Adds coded bytes; call once the bytes fed before have been read out (``needsInput``).
    func feed(_ data: Data) {
        guard started else {
            header.append(data)
            guard header.count >= 2 else { return }
            // A zlib header: compression method 8 in the low bits, and the two bytes a multiple of 31.
            let zlib = header[header.startIndex] & 0x0F == 8
                && (Int(header[header.startIndex]) << 8 | Int(header[header.startIndex + 1])) % 31 == 0
            input = header
            inputOffset = 0
            header = Data()
            _ = start(windowBits: zlib ? 15 : -15)
            return
        }
        input = data
        inputOffset = 0
    }

    /// Whether every byte fed so far has been decoded.
    var needsInput: Bool { !started || inputOffset >= input.count }

    /// Decodes up to `limit` bytes from what was fed; empty when more input is needed or the
    /// content has ended. A piece is at most sixteen times the input left (and at least 16 KiB),
    /// so that small content does not cost a buffer of `limit` bytes.
    ///
    /// - Throws: ``Failure`` when the bytes are not valid content of the coding.
    func read(atMost limit: Int) throws(Failure) -> Data {
        guard started, !hasEnded, !needsInput, limit > 0 else { return Data() }
        let capacity = min(limit, max(16_384, (input.count - inputOffset) * 16))
        var output = Data(count: capacity)
        var produced = 0
        let offsetBefore = inputOffset
        var status: Int32 = Z_OK
        input.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target in
                let base = source.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.next_in = UnsafeMutablePointer(mutating: base + inputOffset)
                stream.avail_in = uInt(source.count - inputOffset)
                stream.next_out = target.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(capacity)
                status = inflate(&stream, Z_NO_FLUSH)
                inputOffset = source.count - Int(stream.avail_in)
                produced = capacity - Int(stream.avail_out)
            }
        }
        switch status {
        case Z_STREAM_END:
            hasEnded = true
        case Z_BUF_ERROR where produced == 0 && inputOffset == offsetBefore:
            throw Failure(reason: "is not valid \(name) (no progress)")
        case Z_OK, Z_BUF_ERROR:
            break
        default:
            throw Failure(reason: "is not valid \(name) (\(stream.msg.map { String(cString: $0) } ?? "status \(status)"))")
        }
        output.count = produced
        return output
    }

    /// Checks that the content ended where the coded bytes did.
    ///
    /// - Throws: ``Failure`` when the coded bytes stop before the coding's end.
    func finish() throws(Failure) {
        guard hasEnded else { throw Failure(reason: "ends before its \(name) content does") }
    }

    private func start(windowBits: Int32) -> Bool {
        started = inflateInit2_(&stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
        return started
    }
}
