/// Decoding of character references in attribute values (HTML §13.2.5.72–80).
///
/// The tokenizer collects an attribute value raw and decodes it once the value is complete; this is
/// equivalent to decoding while tokenizing, because a reference never contains the quote, space or
/// `>` that ends a value, and it makes chunk boundaries inside a reference harmless.
enum CharacterReferences {
    /// Decodes named and numeric references in an attribute value.
    ///
    /// A name matched without its semicolon and followed by `=` or an ASCII letter or digit stays as
    /// written, as HTML requires for attributes ("historical reasons"): `?a=1&amp=2` keeps `&amp`.
    static func decodeAttributeValue(_ raw: [Unicode.Scalar]) -> String {
        guard raw.contains("&") else { return String(scalars: raw) }
        var output = String.UnicodeScalarView()
        var index = 0
        while index < raw.count {
            let scalar = raw[index]
            guard scalar == "&", index + 1 < raw.count else {
                output.append(scalar)
                index += 1
                continue
            }
            if raw[index + 1] == "#", let (value, end) = numericReference(raw, from: index + 2) {
                output.append(value)
                index = end
            } else if let (value, end) = namedReference(raw, from: index + 1) {
                output.append(value)
                index = end
            } else {
                output.append(scalar)
                index += 1
            }
        }
        return String(output)
    }

    // MARK: - Numeric

    /// Decodes the digits after `&#`; `nil` if there are none.
    private static func numericReference(_ raw: [Unicode.Scalar], from start: Int) -> (Unicode.Scalar, Int)? {
        var index = start
        var radix: UInt32 = 10
        if index < raw.count, raw[index] == "x" || raw[index] == "X" {
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
        if index < raw.count, raw[index] == ";" { index += 1 }
        return (scalar(forNumericValue: value), index)
    }

    private static func digitValue(_ scalar: Unicode.Scalar, radix: UInt32) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: return scalar.value - 0x30
        case 0x41...0x46 where radix == 16: return scalar.value - 0x41 + 10
        case 0x61...0x66 where radix == 16: return scalar.value - 0x61 + 10
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
    private static func namedReference(_ raw: [Unicode.Scalar], from start: Int) -> (Unicode.Scalar, Int)? {
        var name = ""
        var index = start
        while index < raw.count, name.unicodeScalars.count <= NamedCharacterReferences.maximumNameLength,
            isASCIIAlphanumeric(raw[index])
        {
            name.unicodeScalars.append(raw[index])
            index += 1
        }
        guard !name.isEmpty else { return nil }
        if index < raw.count, raw[index] == ";", let value = NamedCharacterReferences.withSemicolon[name] {
            return (Unicode.Scalar(value) ?? TextDecoder.replacement, index + 1)
        }
        // The longest legacy name that prefixes the run of letters and digits.
        let scalars = Array(name.unicodeScalars)
        for length in stride(from: scalars.count, through: 1, by: -1) {
            var prefix = String.UnicodeScalarView()
            prefix.append(contentsOf: scalars[0..<length])
            guard let value = NamedCharacterReferences.legacy[String(prefix)] else { continue }
            let end = start + length
            if end < raw.count, raw[end] == "=" || isASCIIAlphanumeric(raw[end]) { return nil }
            return (Unicode.Scalar(value) ?? TextDecoder.replacement, end)
        }
        return nil
    }

    private static func isASCIIAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: return true
        default: return false
        }
    }
}

extension String {
    /// Creates a string from Unicode scalars, encoding them to UTF-8 in one pass.
    init(scalars: some Collection<Unicode.Scalar>) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(scalars.count)
        for scalar in scalars {
            if scalar.isASCII {
                bytes.append(UInt8(truncatingIfNeeded: scalar.value))
            } else {
                UTF8.encode(scalar) { bytes.append($0) }
            }
        }
        self.init(decoding: bytes, as: UTF8.self)
    }
}
