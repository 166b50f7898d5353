import FoundationEssentials

/// A JSON parser (RFC 8259) over UTF-8 bytes into ``JSONValue``, and the writer back.
///
/// The DevTools pipe carries every request's headers and every answered body; decoding that with
/// `JSONDecoder` through a `Codable` enum tries each kind of value in turn and throws for each miss,
/// which cost webcache more CPU than the browser's rendering on a site of many resources. One pass
/// over the bytes does not.
struct JSONParser {
    struct Invalid: Error, CustomStringConvertible {
        var offset: Int
        var description: String { "invalid JSON at byte \(offset)" }
    }

    private let bytes: [UInt8]
    private var index = 0

    /// Parses one JSON text; a UTF-8 byte order mark before it is skipped, as Foundation's
    /// `JSONSerialization` skips it (a manifest saved by some editors starts with one).
    static func parse(_ data: Data) throws(Invalid) -> JSONValue {
        var bytes = [UInt8](data)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        var parser = JSONParser(bytes: bytes)
        let value = try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw Invalid(offset: parser.index) }
        return value
    }

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private mutating func skipWhitespace() {
        while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
    }

    private mutating func value(depth: Int) throws(Invalid) -> JSONValue {
        guard depth < 512 else { throw Invalid(offset: index) }
        skipWhitespace()
        guard index < bytes.count else { throw Invalid(offset: index) }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            index += 1
            var members: [String: JSONValue] = [:]
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .object(members)
            }
            while true {
                skipWhitespace()
                let key = try string()
                skipWhitespace()
                try expect(UInt8(ascii: ":"))
                members[key] = try value(depth: depth + 1)
                skipWhitespace()
                if try separatorOrEnd(UInt8(ascii: "}")) { return .object(members) }
            }
        case UInt8(ascii: "["):
            index += 1
            var elements: [JSONValue] = []
            skipWhitespace()
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                index += 1
                return .array(elements)
            }
            while true {
                elements.append(try value(depth: depth + 1))
                skipWhitespace()
                if try separatorOrEnd(UInt8(ascii: "]")) { return .array(elements) }
            }
        case UInt8(ascii: "\""):
            return .string(try string())
        case UInt8(ascii: "t"):
            try literal("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try literal("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try literal("null")
            return .null
        default:
            return try number()
        }
    }

    /// Consumes `,` (returns `false`) or `end` (returns `true`).
    private mutating func separatorOrEnd(_ end: UInt8) throws(Invalid) -> Bool {
        guard index < bytes.count else { throw Invalid(offset: index) }
        let byte = bytes[index]
        index += 1
        if byte == end { return true }
        guard byte == UInt8(ascii: ",") else { throw Invalid(offset: index - 1) }
        return false
    }

    private mutating func expect(_ byte: UInt8) throws(Invalid) {
        guard index < bytes.count, bytes[index] == byte else { throw Invalid(offset: index) }
        index += 1
    }

    private mutating func literal(_ word: String) throws(Invalid) {
        for byte in word.utf8 { try expect(byte) }
    }

    /// A number: an ``JSONValue/integer(_:)`` when written without fraction or exponent and within
    /// 64 bits, else a ``JSONValue/number(_:)``.
    private mutating func number() throws(Invalid) -> JSONValue {
        let start = index
        while index < bytes.count, "+-0123456789.eE".utf8.contains(bytes[index]) { index += 1 }
        guard index > start, let text = String(bytes: bytes[start..<index], encoding: .ascii) else {
            throw Invalid(offset: start)
        }
        if let integer = Int64(text) { return .integer(integer) }
        guard let number = Double(text) else { throw Invalid(offset: start) }
        return .number(number)
    }

    private mutating func string() throws(Invalid) -> String {
        try expect(UInt8(ascii: "\""))
        var utf8: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: utf8, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard index < bytes.count else { throw Invalid(offset: index) }
                let escape = bytes[index]
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try hex4()
                    if (0xD800..<0xDC00).contains(scalar), index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    {
                        index += 2
                        let low = try hex4()
                        scalar = (0xDC00..<0xE000).contains(low)
                            ? 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00) : 0xFFFD
                    }
                    utf8.append(contentsOf: String(Unicode.Scalar(scalar).map(Character.init) ?? "\u{FFFD}").utf8)
                default:
                    throw Invalid(offset: index - 1)
                }
            default:
                utf8.append(byte)
            }
        }
        throw Invalid(offset: index)
    }

    private mutating func hex4() throws(Invalid) -> UInt32 {
        guard index + 4 <= bytes.count, let text = String(bytes: bytes[index..<index + 4], encoding: .ascii),
            let value = UInt32(text, radix: 16)
        else { throw Invalid(offset: index) }
        index += 4
        return value
    }

    // MARK: - Writing

    /// Appends the JSON text of `value` to `output`.
    static func write(_ value: JSONValue, to output: inout [UInt8]) {
        switch value {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let flag): output.append(contentsOf: (flag ? "true" : "false").utf8)
        case .integer, .number:
            if let whole = value.int64Value {
                output.append(contentsOf: String(whole).utf8)
            } else if let number = value.doubleValue, number.isFinite {
                output.append(contentsOf: "\(number)".utf8)
            } else {
                output.append(contentsOf: "null".utf8)
            }
        case .string(let text): writeString(text, to: &output)
        case .array(let elements):
            output.append(UInt8(ascii: "["))
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                write(element, to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (offset, member) in members.enumerated() {
                if offset > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key, to: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        JSONString.appendEscaped(text, to: &output)
        output.append(UInt8(ascii: "\""))
    }
}
