extension StringProtocol {
    /// The text with each scalar for which `isAllowed` does not hold written as `%XX` escapes of
    /// its UTF-8 bytes (upper-case hex), as Foundation's `addingPercentEncoding(withAllowedCharacters:)`.
    public func percentEncoded(allowing isAllowed: (Unicode.Scalar) -> Bool) -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            if isAllowed(scalar) {
                result.unicodeScalars.append(scalar)
                continue
            }
            for byte in String(scalar).utf8 {
                result += (byte < 0x10 ? "%0" : "%") + String(byte, radix: 16, uppercase: true)
            }
        }
        return result
    }

    /// The text with its `%XX` escapes decoded, as Foundation's `removingPercentEncoding`: `nil`
    /// when a `%` starts no escape of two hex digits or the decoded bytes are not UTF-8.
    public var percentDecoded: String? {
        let bytes = Array(utf8)
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "%") else {
                decoded.append(bytes[index])
                index += 1
                continue
            }
            guard index + 2 < bytes.count, let high = hexValue(bytes[index + 1]), let low = hexValue(bytes[index + 2])
            else { return nil }
            decoded.append(high << 4 | low)
            index += 3
        }
        return String(validating: decoded, as: UTF8.self)
    }
}

extension Unicode.Scalar {
    /// Whether Foundation's `addingPercentEncoding(withAllowedCharacters: .urlPathAllowed)` keeps
    /// this scalar: ASCII letters and digits and `!$&'()*+,-./=@_~` (not `;` nor `:`).
    public var isURLPathAllowed: Bool {
        isASCIIAlphanumeric || "!$&'()*+,-./=@_~".unicodeScalars.contains(self)
    }

    /// Whether Foundation's `addingPercentEncoding(withAllowedCharacters: .alphanumerics)` keeps
    /// this scalar: an ASCII letter or digit (it encodes every scalar outside ASCII).
    public var isASCIIAlphanumeric: Bool {
        switch value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: false
        }
    }
}

private func hexValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case 0x30...0x39: byte - 0x30
    case 0x41...0x46: byte - 0x37
    case 0x61...0x66: byte - 0x57
    default: nil
    }
}
