/// Encodes the query of a URL in its document's encoding, as the URL Standard's parser does for
/// `http`, `https`, `ftp` and `file` URLs ("percent-encode after encoding").
enum QueryEncoder {
    /// `text` with every non-ASCII character of its query (from the first `?` to the fragment)
    /// percent-encoded as its bytes in `encoding`, or as its numeric character reference
    /// (`%26%239731%3B`) when the encoding has no bytes for it.
    ///
    /// The bytes an encoding gives a character are percent-encoded unless they are printable ASCII
    /// other than `"#<>'` (Shift_JIS's 本 is `%96{`), as the URL Standard's query percent-encode
    /// set says. An encoding iconv has no module for leaves the text as it is (read as UTF-8).
    static func encodingQuery(of text: Substring, in encoding: TextEncoding) -> String {
        guard let questionMark = text.firstIndex(of: "?") else { return String(text) }
        let queryEnd = text[questionMark...].firstIndex(of: "#") ?? text.endIndex
        var converter: IconvConverter?
        if encoding != .windows1252 {
            guard let name = encoding.iconvEncoderName, let opened = IconvConverter(from: "UTF-8", to: name) else {
                return String(text)
            }
            converter = opened
        }
        var result = String(text[..<questionMark])
        var bytes: [UInt8] = []
        var afterNonASCII = false
        for scalar in text[questionMark..<queryEnd].unicodeScalars {
            if scalar.isASCII {
                if afterNonASCII { endRun(converter, &bytes, &result) }
                afterNonASCII = false
                result.unicodeScalars.append(scalar)
                continue
            }
            afterNonASCII = true
            if let converter {
                let utf8 = Array(String(scalar).utf8)
                if utf8.withUnsafeBufferPointer({ converter.convert($0, into: &bytes).stop }) == nil { continue }
            } else if let byte = TextDecoder.windows1252Byte(for: scalar) {
                bytes.append(byte)
                continue
            }
            // The bytes before, back in ASCII, then the character's reference.
            endRun(converter, &bytes, &result)
            result += "%26%23\(scalar.value)%3B"
        }
        if afterNonASCII { endRun(converter, &bytes, &result) }
        return result + text[queryEnd...]
    }

    /// Appends the bytes of a run of non-ASCII characters and what returns the encoding to ASCII.
    private static func endRun(_ converter: IconvConverter?, _ bytes: inout [UInt8], _ result: inout String) {
        converter?.finish(into: &bytes)
        appendPercentEncoded(bytes, to: &result)
        bytes = []
    }

    private static func appendPercentEncoded(_ bytes: [UInt8], to result: inout String) {
        let hexDigits = Array("0123456789ABCDEF".unicodeScalars)
        for byte in bytes {
            if byte > 0x20 && byte < 0x7F && !"\"#<>'".utf8.contains(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                result.unicodeScalars.append(contentsOf: ["%", hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
            }
        }
    }
}
