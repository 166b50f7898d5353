/// The HTML prescan for a character encoding declaration (HTML §13.2.3.2).
///
/// It reads raw bytes before any decoding, skips comments and the attributes of other tags, and
/// looks at `<meta charset="…">` and `<meta http-equiv="Content-Type" content="…; charset=…">`.
enum HTMLEncodingPrescanner {
    /// The declared encoding in `bytes` (normally the first 1024 bytes), or `nil` if none is usable.
    static func encoding(in bytes: ArraySlice<UInt8>) -> TextEncoding? {
        var scanner = ByteCursor(bytes: Array(bytes))
        while !scanner.isAtEnd {
            if scanner.hasPrefix("<!--") {
                guard let end = scanner.find("-->", from: scanner.position + 4) else { return nil }
                scanner.position = end + 3
                continue
            }
            if scanner.hasPrefix("<meta", caseInsensitive: true),
                let next = scanner.byte(at: scanner.position + 5), isSpace(next) || next == UInt8(ascii: "/")
            {
                scanner.position += 6
                if let encoding = metaEncoding(&scanner) { return encoding }
                continue
            }
            if scanner.hasPrefix("<") {
                let next = scanner.byte(at: scanner.position + 1)
                let afterSlash = scanner.byte(at: scanner.position + 2)
                if let next, isAlpha(next) || (next == UInt8(ascii: "/") && afterSlash.map(isAlpha) == true) {
                    // A tag: skip its name and its attributes, which may contain '>' in quotes.
                    while let byte = scanner.current, !isSpace(byte), byte != UInt8(ascii: ">") {
                        scanner.position += 1
                    }
                    while attribute(&scanner) != nil {}
                } else if next == UInt8(ascii: "!") || next == UInt8(ascii: "/") || next == UInt8(ascii: "?") {
                    guard let end = scanner.find(">", from: scanner.position + 2) else { return nil }
                    scanner.position = end
                }
            }
            scanner.position += 1
        }
        return nil
    }

    // MARK: - Meta elements

    private static func metaEncoding(_ scanner: inout ByteCursor) -> TextEncoding? {
        var seen: Set<String> = []
        var gotPragma = false
        var needPragma: Bool?
        var charset: String?
        while let (name, value) = attribute(&scanner) {
            guard seen.insert(name).inserted else { continue }
            switch name {
            case "http-equiv":
                if value == "content-type" { gotPragma = true }
            case "content":
                if charset == nil, let found = charsetInContent(value) {
                    charset = found
                    needPragma = true
                }
            case "charset":
                charset = value
                needPragma = false
            default:
                break
            }
        }
        guard let needPragma, let charset, !needPragma || gotPragma else { return nil }
        guard let encoding = TextEncoding(label: charset) else { return nil }
        // A document that says it is UTF-16 in ASCII bytes cannot be UTF-16.
        if encoding == .utf16LittleEndian || encoding == .utf16BigEndian { return .utf8 }
        return encoding
    }

    /// "Extracting a character encoding from a meta element" (HTML §2.4): `text/html; charset=x`.
    static func charsetInContent(_ content: String) -> String? {
        let bytes = Array(content.utf8)
        var index = 0
        let charsetBytes = Array("charset".utf8)
        while index + charsetBytes.count <= bytes.count {
            guard bytes[index..<index + charsetBytes.count].elementsEqual(charsetBytes, by: { lower($0) == $1 }) else {
                index += 1
                continue
            }
            var position = index + charsetBytes.count
            while position < bytes.count, isSpace(bytes[position]) { position += 1 }
            guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else {
                index = position
                continue
            }
            position += 1
            while position < bytes.count, isSpace(bytes[position]) { position += 1 }
            guard position < bytes.count else { return nil }
            let quote = bytes[position]
            if quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") {
                guard let end = bytes[(position + 1)...].firstIndex(of: quote) else { return nil }
                return String(decoding: bytes[(position + 1)..<end], as: UTF8.self)
            }
            let end = bytes[position...].firstIndex { isSpace($0) || $0 == UInt8(ascii: ";") } ?? bytes.count
            return String(decoding: bytes[position..<end], as: UTF8.self)
        }
        return nil
    }

    // MARK: - Attributes

    /// "Get an attribute" (HTML §13.2.3.2): the next name and value, lower-cased, or `nil` at `>`
    /// or the end of the bytes.
    private static func attribute(_ scanner: inout ByteCursor) -> (String, String)? {
        while let byte = scanner.current, isSpace(byte) || byte == UInt8(ascii: "/") { scanner.position += 1 }
        guard let first = scanner.current, first != UInt8(ascii: ">") else { return nil }
        var name: [UInt8] = []
        var value: [UInt8] = []
        nameLoop: while true {
            guard let byte = scanner.current else { return nil }
            if byte == UInt8(ascii: "=") && !name.isEmpty {
                scanner.position += 1
                break nameLoop
            }
            if isSpace(byte) {
                while let space = scanner.current, isSpace(space) { scanner.position += 1 }
                guard scanner.current == UInt8(ascii: "=") else { return (string(name), "") }
                scanner.position += 1
                break nameLoop
            }
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">") { return (string(name), "") }
            name.append(lower(byte))
            scanner.position += 1
        }
        while let byte = scanner.current, isSpace(byte) { scanner.position += 1 }
        guard let first = scanner.current else { return nil }
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            scanner.position += 1
            while let byte = scanner.current {
                scanner.position += 1
                if byte == first { return (string(name), string(value)) }
                value.append(lower(byte))
            }
            return nil
        }
        if first == UInt8(ascii: ">") { return (string(name), "") }
        while let byte = scanner.current {
            if isSpace(byte) || byte == UInt8(ascii: ">") { return (string(name), string(value)) }
            value.append(lower(byte))
            scanner.position += 1
        }
        return nil
    }

    // MARK: - Bytes

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D || byte == 0x20
    }

    private static func isAlpha(_ byte: UInt8) -> Bool {
        (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }

    private static func string(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    private struct ByteCursor {
        let bytes: [UInt8]
        var position = 0

        var isAtEnd: Bool { position >= bytes.count }
        var current: UInt8? { byte(at: position) }

        func byte(at index: Int) -> UInt8? {
            index < bytes.count ? bytes[index] : nil
        }

        func hasPrefix(_ text: String, caseInsensitive: Bool = false) -> Bool {
            let pattern = Array(text.utf8)
            guard position + pattern.count <= bytes.count else { return false }
            for (offset, expected) in pattern.enumerated() {
                let byte = bytes[position + offset]
                if (caseInsensitive ? lower(byte) : byte) != expected { return false }
            }
            return true
        }

        func find(_ text: String, from start: Int) -> Int? {
            let pattern = Array(text.utf8)
            var index = start
            while index + pattern.count <= bytes.count {
                if bytes[index..<index + pattern.count].elementsEqual(pattern) { return index }
                index += 1
            }
            return nil
        }
    }
}
