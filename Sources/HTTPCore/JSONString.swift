/// JSON's string escaping (RFC 8259 §7), for the JSON that webcache writes itself: the DevTools
/// commands, the CLI's JSON lines and the bodies of HAR entries.
public enum JSONString {
    /// Appends the inside of a JSON string holding `text` to `output`: the quotation mark, the
    /// reverse solidus and the control characters escaped, every other byte as it is. Runs of bytes
    /// that need no escape are copied whole, so that a body of megabytes costs little more than a copy.
    /// Inlinable, so that a caller's output type is known where the runs are appended (a generic call
    /// of `append(contentsOf:)` for each run cost a short URL about 800 instructions).
    @inlinable
    public static func appendEscaped<Output: RangeReplaceableCollection<UInt8>>(_ text: String, to output: inout Output) {
        var text = text
        text.withUTF8 { bytes in
            var runStart = 0
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                switch byte {
                case UInt8(ascii: "\""): output.append(contentsOf: #"\""#.utf8)
                case UInt8(ascii: "\\"): output.append(contentsOf: #"\\"#.utf8)
                case UInt8(ascii: "\n"): output.append(contentsOf: #"\n"#.utf8)
                case UInt8(ascii: "\r"): output.append(contentsOf: #"\r"#.utf8)
                case UInt8(ascii: "\t"): output.append(contentsOf: #"\t"#.utf8)
                default:
                    output.append(contentsOf: #"\u00"#.utf8)
                    output.append(contentsOf: [hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]])
                }
                runStart = index + 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<bytes.count]))
        }
    }

    @usableFromInline
    static let hexDigits = Array("0123456789abcdef".utf8)

    /// `text` as a JSON string literal, quotation marks included.
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        appendEscaped(text, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        return String(decoding: bytes, as: UTF8.self)
    }
}
