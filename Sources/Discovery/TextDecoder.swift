/// A streaming decoder from bytes to Unicode scalars, after the WHATWG Encoding Standard.
///
/// It keeps incomplete sequences between calls, so a multi-byte UTF-8 character or a UTF-16
/// surrogate pair may be split across chunks anywhere. Invalid input decodes to U+FFFD.
struct TextDecoder: Sendable {
    let encoding: TextEncoding

    // UTF-8 state (Encoding Standard §9.1.1).
    private var codePoint: UInt32 = 0
    private var bytesNeeded = 0
    private var bytesSeen = 0
    private var lowerBoundary: UInt8 = 0x80
    private var upperBoundary: UInt8 = 0xBF

    // UTF-16 state (Encoding Standard §14.2.1).
    private var leadByte: UInt8?
    private var leadSurrogate: UInt32?

    init(encoding: TextEncoding) {
        self.encoding = encoding
    }

    // MARK: - Decoding

    /// Decodes `bytes`, appending the scalars to `output`.
    mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [Unicode.Scalar]) {
        switch encoding {
        case .utf8:
            // At most one scalar a byte, and one U+FFFD for a sequence a byte breaks.
            output.reserveCapacity(output.count + bytes.count + 1)
            var index = 0
            while index < bytes.count {
                if bytesNeeded == 0 && bytes[index] < 0x80 {
                    // A run of ASCII, appended at once rather than a scalar at a time.
                    var end = index + 1
                    while end < bytes.count && bytes[end] < 0x80 { end += 1 }
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<end]).lazy.map {
                        Unicode.Scalar($0)
                    })
                    index = end
                } else {
                    decodeUTF8(bytes[index], into: &output)
                    index += 1
                }
            }
        case .utf16LittleEndian, .utf16BigEndian:
            for byte in bytes { decodeUTF16(byte, into: &output) }
        case .windows1252:
            for byte in bytes { output.append(Self.windows1252Scalar(byte)) }
        }
    }

    /// Ends the stream: an incomplete sequence left over becomes U+FFFD.
    mutating func finish(into output: inout [Unicode.Scalar]) {
        if bytesNeeded != 0 || leadByte != nil || leadSurrogate != nil {
            output.append(Self.replacement)
        }
        bytesNeeded = 0
        leadByte = nil
        leadSurrogate = nil
    }

    static let replacement: Unicode.Scalar = "\u{FFFD}"

    private mutating func decodeUTF8(_ byte: UInt8, into output: inout [Unicode.Scalar]) {
        if bytesNeeded == 0 {
            switch byte {
            case 0x00...0x7F:
                output.append(Unicode.Scalar(byte))
            case 0xC2...0xDF:
                bytesNeeded = 1
                codePoint = UInt32(byte & 0x1F)
            case 0xE0...0xEF:
                if byte == 0xE0 { lowerBoundary = 0xA0 }
                if byte == 0xED { upperBoundary = 0x9F }
                bytesNeeded = 2
                codePoint = UInt32(byte & 0x0F)
            case 0xF0...0xF4:
                if byte == 0xF0 { lowerBoundary = 0x90 }
                if byte == 0xF4 { upperBoundary = 0x8F }
                bytesNeeded = 3
                codePoint = UInt32(byte & 0x07)
            default:
                output.append(Self.replacement)
            }
            return
        }
        guard byte >= lowerBoundary && byte <= upperBoundary else {
            // The sequence is broken: emit one replacement and reprocess this byte from the start.
            codePoint = 0
            bytesNeeded = 0
            bytesSeen = 0
            lowerBoundary = 0x80
            upperBoundary = 0xBF
            output.append(Self.replacement)
            decodeUTF8(byte, into: &output)
            return
        }
        lowerBoundary = 0x80
        upperBoundary = 0xBF
        codePoint = (codePoint << 6) | UInt32(byte & 0x3F)
        bytesSeen += 1
        if bytesSeen == bytesNeeded {
            output.append(Unicode.Scalar(codePoint) ?? Self.replacement)
            codePoint = 0
            bytesNeeded = 0
            bytesSeen = 0
        }
    }

    private mutating func decodeUTF16(_ byte: UInt8, into output: inout [Unicode.Scalar]) {
        guard let lead = leadByte else {
            leadByte = byte
            return
        }
        leadByte = nil
        let unit =
            encoding == .utf16LittleEndian
            ? UInt32(lead) | UInt32(byte) << 8
            : UInt32(lead) << 8 | UInt32(byte)
        if let surrogate = leadSurrogate {
            leadSurrogate = nil
            if (0xDC00...0xDFFF).contains(unit) {
                let value = 0x10000 + ((surrogate - 0xD800) << 10) + (unit - 0xDC00)
                output.append(Unicode.Scalar(value) ?? Self.replacement)
                return
            }
            output.append(Self.replacement)
        }
        switch unit {
        case 0xD800...0xDBFF: leadSurrogate = unit
        case 0xDC00...0xDFFF: output.append(Self.replacement)
        default: output.append(Unicode.Scalar(unit) ?? Self.replacement)
        }
    }

    // MARK: - windows-1252

    /// The scalar for a windows-1252 byte; 0x80–0x9F map to the C1 replacements of the Encoding Standard.
    static func windows1252Scalar(_ byte: UInt8) -> Unicode.Scalar {
        guard byte >= 0x80 && byte <= 0x9F else { return Unicode.Scalar(byte) }
        return Unicode.Scalar(windows1252C1[Int(byte - 0x80)]) ?? replacement
    }

    /// The windows-1252 byte for a non-ASCII `scalar`, or `nil` when windows-1252 has none.
    static func windows1252Byte(for scalar: Unicode.Scalar) -> UInt8? {
        if (0xA0...0xFF).contains(scalar.value) { return UInt8(scalar.value) }
        guard let index = windows1252C1.firstIndex(of: scalar.value) else { return nil }
        return 0x80 + UInt8(index)
    }

    /// windows-1252 code points for bytes 0x80–0x9F; also the numeric character reference fix-ups.
    static let windows1252C1: [UInt32] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]
}
