/// The tokens of a short CSS text — a media query list, a `sizes` value, a selector, an
/// `image-set()` option — after CSS Syntax Level 3 §4, without comments.
///
/// The streaming ``CSSTokenizer`` finds URLs in whole stylesheets and keeps the text of preludes
/// and declarations; this one splits such a text into the tokens the device rules read.
enum CSSValueToken: Sendable, Hashable {
    case ident(String)
    /// A function name, its `(` consumed: `calc(`, `:not(`'s `not`.
    case function(String)
    case atKeyword(String)
    /// `#name`.
    case hash(String)
    case string(String)
    case number(Double)
    case percentage(Double)
    /// A number with a unit, the unit in lower case.
    case dimension(Double, String)
    case whitespace
    case colon, semicolon, comma
    case openParen, closeParen, openBracket, closeBracket, openBrace, closeBrace
    /// Any other code point: `>`, `+`, `~`, `*`, `.`, `=`, `/`, `<`…
    case delim(Unicode.Scalar)

    /// Identifiers compare in ASCII lower case where CSS says so; the caller lowers them.
    var identifier: String? {
        if case .ident(let name) = self { return name }
        return nil
    }
}

/// Splits CSS text into ``CSSValueToken``s (CSS Syntax Level 3 §4.3).
///
/// It reads the text's UTF-8 a byte at a time: every byte that starts or ends a token is ASCII, and
/// each byte of a non-ASCII character is a name byte, as the character is (§4.2 "non-ASCII code
/// point"), so a character is never split. Names and strings without escapes are made from their
/// bytes in one piece.
enum CSSValueTokenizer {
    /// The tokens of `text`; comments are dropped, runs of whitespace become one token.
    static func tokens(_ text: String) -> [CSSValueToken] {
        var text = text
        return text.withUTF8 { tokens(in: $0) }
    }

    /// ``tokens(_:)`` of the UTF-8 of a string.
    private static func tokens(in input: UnsafeBufferPointer<UInt8>) -> [CSSValueToken] {
        var tokens: [CSSValueToken] = []
        let count = input.count
        var index = 0
        while index < count {
            let byte = input[index]
            switch byte {
            case 0x20, 0x09, 0x0A, 0x0D, 0x0C:
                while index < count, CSSTokenizer.isWhitespace(input[index]) { index += 1 }
                if tokens.last != .whitespace { tokens.append(.whitespace) }
                continue
            case UInt8(ascii: "/") where index + 1 < count && input[index + 1] == UInt8(ascii: "*"):
                index += 2
                while index + 1 < count, !(input[index] == UInt8(ascii: "*") && input[index + 1] == UInt8(ascii: "/")) {
                    index += 1
                }
                index = min(count, index + 2)
                continue
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                index += 1
                tokens.append(.string(consumeString(input, &index, quote: byte)))
                continue
            case UInt8(ascii: "("): tokens.append(.openParen)
            case UInt8(ascii: ")"): tokens.append(.closeParen)
            case UInt8(ascii: "["): tokens.append(.openBracket)
            case UInt8(ascii: "]"): tokens.append(.closeBracket)
            case UInt8(ascii: "{"): tokens.append(.openBrace)
            case UInt8(ascii: "}"): tokens.append(.closeBrace)
            case UInt8(ascii: ","): tokens.append(.comma)
            case UInt8(ascii: ":"): tokens.append(.colon)
            case UInt8(ascii: ";"): tokens.append(.semicolon)
            case UInt8(ascii: "#")
            where index + 1 < count && (isNameCode(input[index + 1]) || startsEscape(input, index + 1)):
                index += 1
                tokens.append(.hash(consumeName(input, &index)))
                continue
            case UInt8(ascii: "@") where startsIdentifier(input, index + 1):
                index += 1
                tokens.append(.atKeyword(consumeName(input, &index).lowercased()))
                continue
            default:
                if startsNumber(input, index) {
                    tokens.append(consumeNumeric(input, &index))
                    continue
                }
                if startsIdentifier(input, index) {
                    let name = consumeName(input, &index)
                    if index < count, input[index] == UInt8(ascii: "(") {
                        index += 1
                        tokens.append(.function(name.lowercased()))
                    } else {
                        tokens.append(.ident(name))
                    }
                    continue
                }
                // A byte of a non-ASCII character starts a name, so this one is ASCII.
                tokens.append(.delim(Unicode.Scalar(byte)))
            }
            index += 1
        }
        return tokens
    }

    // MARK: - Pieces

    /// The string whose opening quote is consumed, up to its closing quote or a newline (which ends
    /// a bad string), both consumed.
    private static func consumeString(_ input: UnsafeBufferPointer<UInt8>, _ index: inout Int, quote: UInt8) -> String {
        let count = input.count
        let start = index
        // The string's bytes up to `runStart`, once an escape has made them differ from the input's.
        var escaped: [UInt8] = []
        var runStart = index
        while index < count, input[index] != quote, !CSSTokenizer.isNewline(input[index]) {
            guard input[index] == UInt8(ascii: "\\"), index + 1 < count else {
                index += 1
                continue
            }
            escaped.append(contentsOf: UnsafeBufferPointer(rebasing: input[runStart..<index]))
            index += 1
            if CSSTokenizer.isNewline(input[index]) {
                index += 1
            } else {
                consumeEscape(input, &index, into: &escaped)
            }
            runStart = index
        }
        let run = UnsafeBufferPointer(rebasing: input[runStart..<index])
        index += 1
        guard runStart > start else { return String(decoding: run, as: UTF8.self) }
        escaped.append(contentsOf: run)
        return String(decoding: escaped, as: UTF8.self)
    }

    private static func consumeNumeric(_ input: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> CSSValueToken {
        // Only ASCII signs, digits, `.` and `e` are taken.
        let count = input.count
        var text: [UInt8] = []
        func take(while predicate: (UInt8) -> Bool) {
            while index < count, predicate(input[index]) {
                text.append(input[index])
                index += 1
            }
        }
        if input[index] == UInt8(ascii: "+") || input[index] == UInt8(ascii: "-") {
            text.append(input[index])
            index += 1
        }
        take(while: isDigit)
        if index + 1 < count, input[index] == UInt8(ascii: "."), isDigit(input[index + 1]) {
            text.append(UInt8(ascii: "."))
            index += 1
            take(while: isDigit)
        }
        if index + 1 < count, input[index] == UInt8(ascii: "e") || input[index] == UInt8(ascii: "E") {
            let next = input[index + 1]
            let signed = (next == UInt8(ascii: "+") || next == UInt8(ascii: "-")) && index + 2 < count
                && isDigit(input[index + 2])
            if isDigit(next) || signed {
                text.append(UInt8(ascii: "e"))
                index += 1
                if signed {
                    text.append(input[index])
                    index += 1
                }
                take(while: isDigit)
            }
        }
        let value = Double(String(decoding: text, as: UTF8.self)) ?? 0
        if index < count, input[index] == UInt8(ascii: "%") {
            index += 1
            return .percentage(value)
        }
        if startsIdentifier(input, index) {
            return .dimension(value, consumeName(input, &index).lowercased())
        }
        return .number(value)
    }

    private static func consumeName(_ input: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> String {
        let start = index
        // The name's bytes up to `runStart`, once an escape has made them differ from the input's.
        var escaped: [UInt8] = []
        var runStart = index
        while index < input.count {
            if isNameCode(input[index]) {
                index += 1
            } else if startsEscape(input, index) {
                escaped.append(contentsOf: UnsafeBufferPointer(rebasing: input[runStart..<index]))
                index += 1
                consumeEscape(input, &index, into: &escaped)
                runStart = index
            } else {
                break
            }
        }
        let run = UnsafeBufferPointer(rebasing: input[runStart..<index])
        guard runStart > start else { return String(decoding: run, as: UTF8.self) }
        escaped.append(contentsOf: run)
        return String(decoding: escaped, as: UTF8.self)
    }

    /// Appends the code point of an escape whose backslash is consumed (§4.3.7) to `output`.
    private static func consumeEscape(
        _ input: UnsafeBufferPointer<UInt8>, _ index: inout Int, into output: inout [UInt8]
    ) {
        let count = input.count
        guard index < count else {
            output.append(contentsOf: TextDecoder.replacementUTF8)
            return
        }
        guard CSSTokenizer.hexValue(input[index]) != nil else {
            // The character itself. Of a non-ASCII one, this is the first byte: the others follow
            // as bytes of the name or string, as the bytes of any non-ASCII character do.
            output.append(input[index])
            index += 1
            return
        }
        var value: UInt32 = 0
        var digits = 0
        while digits < 6, index < count, let digit = CSSTokenizer.hexValue(input[index]) {
            value = value * 16 + digit
            digits += 1
            index += 1
        }
        if index < count, CSSTokenizer.isWhitespace(input[index]) { index += 1 }
        guard value != 0, !(0xD800...0xDFFF).contains(value), let scalar = Unicode.Scalar(value) else {
            output.append(contentsOf: TextDecoder.replacementUTF8)
            return
        }
        TextDecoder.append(scalar, to: &output)
    }

    private static func startsEscape(_ input: UnsafeBufferPointer<UInt8>, _ index: Int) -> Bool {
        index + 1 < input.count && input[index] == UInt8(ascii: "\\") && !CSSTokenizer.isNewline(input[index + 1])
    }

    private static func startsIdentifier(_ input: UnsafeBufferPointer<UInt8>, _ index: Int) -> Bool {
        guard index < input.count else { return false }
        if input[index] == UInt8(ascii: "-") {
            guard index + 1 < input.count else { return false }
            let next = input[index + 1]
            return isNameStart(next) || next == UInt8(ascii: "-") || startsEscape(input, index + 1)
        }
        return isNameStart(input[index]) || startsEscape(input, index)
    }

    private static func startsNumber(_ input: UnsafeBufferPointer<UInt8>, _ index: Int) -> Bool {
        var position = index
        if input[position] == UInt8(ascii: "+") || input[position] == UInt8(ascii: "-") { position += 1 }
        guard position < input.count else { return false }
        if isDigit(input[position]) { return true }
        return input[position] == UInt8(ascii: ".") && position + 1 < input.count && isDigit(input[position + 1])
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// A letter, `_`, or a byte of a non-ASCII character.
    private static func isNameStart(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x5F, 0x80...: true
        default: false
        }
    }

    private static func isNameCode(_ byte: UInt8) -> Bool {
        isNameStart(byte) || isDigit(byte) || byte == UInt8(ascii: "-")
    }
}

/// A cursor over value tokens for the small recursive-descent parsers of the device rules.
struct CSSValueCursor {
    var tokens: [CSSValueToken]
    var position = 0

    init(_ tokens: [CSSValueToken]) { self.tokens = tokens }

    init(_ text: String) { self.init(CSSValueTokenizer.tokens(text)) }

    var isAtEnd: Bool { position >= tokens.count }

    /// The next token that is not whitespace, without consuming it.
    var peek: CSSValueToken? {
        var index = position
        while index < tokens.count, tokens[index] == .whitespace { index += 1 }
        return index < tokens.count ? tokens[index] : nil
    }

    mutating func skipWhitespace() {
        while position < tokens.count, tokens[position] == .whitespace { position += 1 }
    }

    /// The next token that is not whitespace, consumed.
    mutating func next() -> CSSValueToken? {
        skipWhitespace()
        guard position < tokens.count else { return nil }
        defer { position += 1 }
        return tokens[position]
    }

    /// Consumes the next token when it is `token`.
    mutating func take(_ token: CSSValueToken) -> Bool {
        guard peek == token else { return false }
        _ = next()
        return true
    }

    /// Consumes the next identifier when it is `name` in any ASCII case.
    mutating func takeKeyword(_ name: String) -> Bool {
        guard let identifier = peek?.identifier, identifier.lowercased() == name else { return false }
        _ = next()
        return true
    }

    /// Consumes tokens up to the `)` that closes a block already opened, and returns them.
    mutating func takeBlock(closing: CSSValueToken = .closeParen) -> [CSSValueToken] {
        var depth = 0
        var taken: [CSSValueToken] = []
        while position < tokens.count {
            let token = tokens[position]
            position += 1
            switch token {
            case .openParen, .function, .openBracket: depth += 1
            case .closeParen, .closeBracket:
                if depth == 0 && token == closing { return taken }
                depth -= 1
            default: break
            }
            taken.append(token)
        }
        return taken
    }
}

extension [CSSValueToken] {
    /// The token list split at commas outside parentheses and brackets.
    func splitAtTopLevelCommas() -> [[CSSValueToken]] {
        var parts: [[CSSValueToken]] = [[]]
        var depth = 0
        for token in self {
            switch token {
            case .openParen, .function, .openBracket: depth += 1
            case .closeParen, .closeBracket: depth = Swift.max(0, depth - 1)
            case .comma where depth == 0:
                parts.append([])
                continue
            default: break
            }
            parts[parts.count - 1].append(token)
        }
        return parts
    }
}
