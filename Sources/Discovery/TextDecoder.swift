/// A streaming decoder from bytes to UTF-8, after the WHATWG Encoding Standard.
///
/// UTF-8 input is passed on as it is: the scanners tokenize UTF-8 bytes, whose syntax characters
/// are all ASCII and never part of a multi-byte sequence, and replace broken sequences with U+FFFD
/// only where text becomes a `String` (``String/init(decoding:as:)`` replaces exactly what the
/// Encoding Standard replaces). UTF-16 and windows-1252 are converted to UTF-8 here, the other
/// legacy encodings by glibc's iconv (``IconvConverter``), a byte sequence they lack becoming
/// U+FFFD; replacement decodes to a single U+FFFD. Each keeps an incomplete sequence between
/// calls, so input may be split anywhere.
struct TextDecoder: Sendable {
    /// The encoding decoded: the one asked for, or UTF-8 when iconv has no module for it.
    let encoding: TextEncoding

    // UTF-16 state (Encoding Standard §14.2.1).
    private var leadByte: UInt8?
    private var leadSurrogate: UInt32?

    /// The iconv conversion of a legacy encoding, copied before use when another value holds it.
    private var converter: IconvConverter?
    /// The bytes of a sequence the last input cut off, for iconv.
    private var tail: [UInt8] = []
    /// The last escape sequence ISO-2022-JP read, which puts a copied converter in the same state.
    private var shiftSequence: [UInt8] = []
    /// Whether replacement has had its input (and given its one U+FFFD).
    private var hasReplaced = false

    init(encoding: TextEncoding) {
        if let name = encoding.iconvDecoderName {
            converter = IconvConverter(from: name, to: "UTF-8")
            self.encoding = converter == nil ? .utf8 : encoding
        } else {
            self.encoding = encoding
        }
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
        case .replacement:
            if !hasReplaced && !bytes.isEmpty {
                hasReplaced = true
                output.append(contentsOf: Self.replacementUTF8)
            }
        default:
            decodeWithIconv(bytes, into: &output)
        }
    }

    /// Ends the stream: an incomplete sequence left over becomes U+FFFD.
    mutating func finish(into output: inout [UInt8]) {
        if converter != nil {
            uniqueConverter().finish(into: &output)
        }
        if leadByte != nil || leadSurrogate != nil || !tail.isEmpty {
            Self.append(Self.replacement, to: &output)
        }
        leadByte = nil
        leadSurrogate = nil
        tail = []
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

    // MARK: - iconv

    /// The longest sequence kept for the next input; iconv calling a longer one incomplete is taken
    /// for an invalid byte.
    private static let longestSequence = 8

    private mutating func decodeWithIconv(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) {
        output.reserveCapacity(output.count + bytes.count * 3 / 2 + 4)
        guard tail.isEmpty else {
            let joined = tail + bytes
            tail = []
            joined.withUnsafeBufferPointer { decodeWithIconv($0, into: &output) }
            return
        }
        let converter = uniqueConverter()
        var offset = 0
        while offset < bytes.count {
            let rest = UnsafeBufferPointer(rebasing: bytes[offset...])
            let start = output.count
            let (consumed, stop) = converter.convert(rest, into: &output)
            if encoding == .iso2022JP {
                noteShiftSequence(in: UnsafeBufferPointer(rebasing: rest[..<consumed]))
                Self.replaceEscapes(in: &output, from: start)
            }
            offset += consumed
            switch stop {
            case nil:
                return
            case .incomplete where bytes.count - offset <= Self.longestSequence:
                tail = Array(bytes[offset...])
                return
            case .incomplete, .invalid:
                output.append(contentsOf: Self.replacementUTF8)
                offset += 1
            }
        }
    }

    /// The converter, made anew (in the same state) when another value shares it.
    private mutating func uniqueConverter() -> IconvConverter {
        if !isKnownUniquelyReferenced(&converter!), let copy = converter!.copy() {
            var ignored: [UInt8] = []
            shiftSequence.withUnsafeBufferPointer { _ = copy.convert($0, into: &ignored) }
            converter = copy
        }
        return converter!
    }

    /// Replaces each ESC in `output` after `start` with U+FFFD: iconv passes on the ESC of an escape
    /// sequence ISO-2022-JP does not have, which the Encoding Standard's decoder calls an error.
    private static func replaceEscapes(in output: inout [UInt8], from start: Int) {
        guard output[start...].contains(0x1B) else { return }
        let replaced = output[start...].flatMap { $0 == 0x1B ? replacementUTF8 : [$0] }
        output.replaceSubrange(start..., with: replaced)
    }

    /// Remembers the last escape sequence in `bytes`, which iconv converted whole.
    private mutating func noteShiftSequence(in bytes: UnsafeBufferPointer<UInt8>) {
        guard let escape = bytes.lastIndex(of: 0x1B) else { return }
        // ESC ( B, ESC $ B and the like take three bytes; ESC $ ( D four.
        let isLong = bytes.count - escape >= 4 && bytes[escape + 1] == UInt8(ascii: "$")
            && bytes[escape + 2] == UInt8(ascii: "(")
        shiftSequence = Array(bytes[escape..<min(escape + (isLong ? 4 : 3), bytes.count)])
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
