/// Decoding of character references in attribute values (HTML §13.2.5.72–80).
///
/// The tokenizer collects an attribute value raw and decodes it once the value is complete; this is
/// equivalent to decoding while tokenizing, because a reference never contains the quote, space or
/// `>` that ends a value, and it makes chunk boundaries inside a reference harmless.
enum CharacterReferences {
    /// Decodes named and numeric references in an attribute value given as UTF-8 (broken
    /// sequences become U+FFFD).
    ///
    /// A name matched without its semicolon and followed by `=` or an ASCII letter or digit stays as
    /// written, as HTML requires for attributes ("historical reasons"): `?a=1&amp=2` keeps `&amp`.
    static func decodeAttributeValue(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        guard ByteSearch.first(UInt8(ascii: "&"), in: raw, from: 0, to: raw.count) != nil else { return String(decoding: raw, as: UTF8.self) }
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "&"), index + 1 < raw.count else {
                output.append(byte)
                index += 1
                continue
            }
            if raw[index + 1] == UInt8(ascii: "#"), let (value, end) = numericReference(raw, from: index + 2) {
                TextDecoder.append(value, to: &output)
                index = end
            } else if let (value, end) = namedReference(raw, from: index + 1) {
                TextDecoder.append(value, to: &output)
                index = end
            } else {
                output.append(byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    // MARK: - Numeric

    /// Decodes the digits after `&#` (`start` is the index after `#`): the scalar and the index after the
    /// reference, its `;` included; `nil` if there are no digits.
    static func numericReference(_ raw: UnsafeBufferPointer<UInt8>, from start: Int) -> (Unicode.Scalar, Int)? {
        var index = start
        var radix: UInt32 = 10
        if index < raw.count, raw[index] | 0x20 == UInt8(ascii: "x") {
            radix = 16
            index += 1
        }
        var value: UInt32 = 0
        let digitsStart = index
        while index < raw.count, let digit = digitValue(raw[index], radix: radix) {
            value = min(value * radix + digit, 0x11_0000)
            index += 1
        }
        guard index > digitsStart else { return nil }
        if index < raw.count, raw[index] == UInt8(ascii: ";") { index += 1 }
        return (scalar(forNumericValue: value), index)
    }

    private static func digitValue(_ byte: UInt8, radix: UInt32) -> UInt32? {
        switch byte {
        case 0x30...0x39: return UInt32(byte - 0x30)
        case 0x41...0x46 where radix == 16: return UInt32(byte - 0x41 + 10)
        case 0x61...0x66 where radix == 16: return UInt32(byte - 0x61 + 10)
        default: return nil
        }
    }

    /// The numeric character reference end state (HTML §13.2.5.80).
    static func scalar(forNumericValue value: UInt32) -> Unicode.Scalar {
        switch value {
        case 0, 0xD800...0xDFFF, 0x11_0000...: return TextDecoder.replacement
        case 0x80...0x9F: return Unicode.Scalar(TextDecoder.windows1252C1[Int(value - 0x80)]) ?? TextDecoder.replacement
        default: return Unicode.Scalar(value) ?? TextDecoder.replacement
        }
    }

    // MARK: - Named

    /// Decodes the name after `&`; `nil` if it is not a reference to decode in an attribute.
    private static func namedReference(_ raw: UnsafeBufferPointer<UInt8>, from start: Int) -> (Unicode.Scalar, Int)? {
        var end = start
        while end < raw.count, end - start <= NamedCharacterReferences.maximumNameLength,
            isASCIIAlphanumeric(raw[end])
        {
            end += 1
        }
        guard end > start else { return nil }
        let name = String(decoding: raw[start..<end], as: UTF8.self)
        if end < raw.count, raw[end] == UInt8(ascii: ";"), let value = NamedCharacterReferences.withSemicolon[name] {
            return (Unicode.Scalar(value) ?? TextDecoder.replacement, end + 1)
        }
        // The longest legacy name that prefixes the run of letters and digits.
        for length in stride(from: end - start, through: 1, by: -1) {
            guard let value = NamedCharacterReferences.legacy[String(decoding: raw[start..<(start + length)], as: UTF8.self)] else { continue }
            let nameEnd = start + length
            if nameEnd < raw.count, raw[nameEnd] == UInt8(ascii: "=") || isASCIIAlphanumeric(raw[nameEnd]) {
                return nil
            }
            return (Unicode.Scalar(value) ?? TextDecoder.replacement, nameEnd)
        }
        return nil
    }

    static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return false
        }
    }
}
