import CZlib
import Foundation

/// Decodes content coded with gzip or deflate (zlib's formats) a piece at a time, so that memory
/// stays flat whatever the coding's ratio.
///
/// The loader uses it for an entry the store holds as an origin coded it (sent coded although the
/// caller that stored it did not ask for a coding, as the gateway does not), when the caller now
/// takes content decoded. `deflate` is read as the zlib format RFC 9110 §8.4.1.2 names, and as raw
/// deflate when its first bytes are not, as libcurl and browsers accept.
///
/// ```swift
/// let decoder = try #require(ContentDecoder(coding: "gzip"))
/// decoder.feed(coded)
/// while case let piece = try decoder.read(atMost: 65_536), !piece.isEmpty { output.append(piece) }
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
    private let isDeflate: Bool
    private var input = Data()
    private var inputOffset = 0
    /// Whether a failure may still mean raw deflate: for `deflate`, until the two bytes of a zlib
    /// header have been read.
    private var mayBeRawDeflate: Bool
    /// The bytes read while ``mayBeRawDeflate``, to read again as raw deflate.
    private var undecidedInput = Data()
    /// Whether the coded content has ended (the coding's own end marker was read).
    private(set) var hasEnded = false

    /// A decoder for `coding` (a `Content-Encoding` value), or `nil` when the value is not one
    /// coding this decoder reads.
    init?(coding: String) {
        let name = coding.trimmingCharacters(in: .whitespaces).lowercased()
        guard Self.codings.contains(name) else { return nil }
        isDeflate = name == "deflate"
        mayBeRawDeflate = isDeflate
        // 15 + 32: a window of up to 32 KiB, and the gzip or zlib header detected from the bytes.
        guard Self.start(&stream, windowBits: 15 + 32) else { return nil }
    }

    deinit {
        inflateEnd(&stream)
    }

    /// Adds coded bytes; call once the bytes fed before have been read out (``needsInput``).
    func feed(_ data: Data) {
        input = data
        inputOffset = 0
    }

    /// Whether every byte fed so far has been decoded.
    var needsInput: Bool { inputOffset >= input.count }

    /// Decodes up to `limit` bytes from what was fed; empty when more input is needed or the
    /// content has ended.
    ///
    /// - Throws: ``Failure`` when the bytes are not valid content of the coding.
    func read(atMost limit: Int) throws(Failure) -> Data {
        guard !hasEnded, !needsInput, limit > 0 else { return Data() }
        var output = Data(count: limit)
        var produced = 0
        let offsetBefore = inputOffset
        var status: Int32 = Z_OK
        input.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target in
                let base = source.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.next_in = UnsafeMutablePointer(mutating: base + inputOffset)
                stream.avail_in = uInt(source.count - inputOffset)
                stream.next_out = target.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(limit)
                status = inflate(&stream, Z_NO_FLUSH)
                inputOffset = source.count - Int(stream.avail_in)
                produced = limit - Int(stream.avail_out)
            }
        }
        if mayBeRawDeflate {
            if status == Z_DATA_ERROR {
                mayBeRawDeflate = false
                if restartAsRawDeflate(with: undecidedInput + input[(input.startIndex + offsetBefore)...]) {
                    return try read(atMost: limit)
                }
            } else if stream.total_in >= 2 {
                mayBeRawDeflate = false
                undecidedInput = Data()
            } else {
                undecidedInput.append(input[(input.startIndex + offsetBefore)..<(input.startIndex + inputOffset)])
            }
        }
        switch status {
        case Z_STREAM_END:
            hasEnded = true
        case Z_BUF_ERROR where produced == 0 && inputOffset == offsetBefore:
            throw Failure(reason: "is not valid \(isDeflate ? "deflate" : "gzip") (no progress)")
        case Z_OK, Z_BUF_ERROR:
            break
        default:
            throw Failure(reason: "is not valid \(isDeflate ? "deflate" : "gzip") (\(message(status)))")
        }
        output.count = produced
        return output
    }

    /// Checks that the content ended where the coded bytes did.
    ///
    /// - Throws: ``Failure`` when the coded bytes stop before the coding's end.
    func finish() throws(Failure) {
        guard hasEnded else {
            throw Failure(reason: "ends before its \(isDeflate ? "deflate" : "gzip") content does")
        }
    }

    /// Starts over as raw deflate, without a zlib header, on `input`: every byte fed so far that
    /// is not decoded yet.
    private func restartAsRawDeflate(with input: Data) -> Bool {
        inflateEnd(&stream)
        stream = z_stream()
        self.input = input
        inputOffset = 0
        return Self.start(&stream, windowBits: -15)
    }

    private func message(_ status: Int32) -> String {
        if let text = stream.msg { return String(cString: text) }
        return "zlib status \(status)"
    }

    private static func start(_ stream: inout z_stream, windowBits: Int32) -> Bool {
        inflateInit2_(&stream, windowBits, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK
    }
}
