/// A streaming decoder from bytes to UTF-8, after the WHATWG Encoding Standard.
///
/// UTF-8 input is passed on as it is: the scanners tokenize UTF-8 bytes, whose syntax characters
/// are all ASCII and never part of a multi-byte sequence, and replace broken sequences with U+FFFD
/// only where text becomes a `String` (``String/init(decoding:as:)`` replaces exactly what the
/// Encoding Standard replaces). UTF-16 and windows-1252 are converted to UTF-8; UTF-16 keeps an
/// incomplete code unit or surrogate pair between calls, so input may be split anywhere.
struct TextDecoder: Sendable {
    let encoding: TextEncoding

    // UTF-16 state (Encoding Standard §14.2.1).
    private var leadByte: UInt8?
    private var leadSurrogate: UInt32?

    init(encoding: TextEncoding) {
        self.encoding = encoding
    }

    // MARK: - Decoding

    /// Decodes `bytes`, appending their UTF-8 to `output`.
    mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        switch encoding {
        case .utf8:
            output.append(contentsOf: bytes)
        case .utf16LittleEndian, .utf16BigEndian:
            output.reserveCapacity(output.count + bytes.count * 3 / 2 + 4)
            for byte in bytes { decodeUTF16(byte, into: &output) }
        case .windows1252:
            output.reserveCapacity(output.count + bytes.count + bytes.count / 2)
            for byte in bytes {
                if byte < 0x80 {
                    output.append(byte)
                } else {
                    Self.append(Self.windows1252Scalar(byte), to: &output)
                }
            }
        }
    }

    /// Ends the stream: an incomplete UTF-16 code unit or pair left over becomes U+FFFD.
    mutating func finish(into output: inout [UInt8]) {
        if leadByte != nil || leadSurrogate != nil {
            Self.append(Self.replacement, to: &output)
        }
        leadByte = nil
        leadSurrogate = nil
    }

    static let replacement: Unicode.Scalar = "\u{FFFD}"

    /// The UTF-8 of U+FFFD.
    static let replacementUTF8: [UInt8] = [0xEF, 0xBF, 0xBD]

    /// Appends the UTF-8 of `scalar` to `output`.
    static func append(_ scalar: Unicode.Scalar, to output: inout [UInt8]) {
        if scalar.isASCII {
            output.append(UInt8(truncatingIfNeeded: scalar.value))
        } else {
            UTF8.encode(scalar) { output.append($0) }
        }
    }

    private mutating func decodeUTF16(_ byte: UInt8, into output: inout [UInt8]) {
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
                Self.append(Unicode.Scalar(value) ?? Self.replacement, to: &output)
                return
            }
            Self.append(Self.replacement, to: &output)
        }
        switch unit {
        case 0xD800...0xDBFF: leadSurrogate = unit
        case 0xDC00...0xDFFF: Self.append(Self.replacement, to: &output)
        default: Self.append(Unicode.Scalar(unit) ?? Self.replacement, to: &output)
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
