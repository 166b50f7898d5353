@testable import Discovery

/// The value tokenizer as it was before it read bytes (commit 3b2ac38): a scalar at a time, over an
/// array of the text's Unicode scalars. Kept as the oracle of ``CSSValueTokenizerTests``.
enum ScalarCSSValueTokenizer {
    /// The tokens of `text`; comments are dropped, runs of whitespace become one token.
    static func tokens(_ text: String) -> [CSSValueToken] {
        let input = Array(text.unicodeScalars)
        var tokens: [CSSValueToken] = []
        var index = 0
        while index < input.count {
            let scalar = input[index]
            switch scalar {
            case " ", "\t", "\n", "\r", "\u{0C}":
                while index < input.count, isWhitespace(input[index]) { index += 1 }
                if tokens.last != .whitespace { tokens.append(.whitespace) }
                continue
            case "/" where index + 1 < input.count && input[index + 1] == "*":
                index += 2
                while index + 1 < input.count, !(input[index] == "*" && input[index + 1] == "/") { index += 1 }
                index = min(input.count, index + 2)
                continue
            case "\"", "'":
                index += 1
                var value: [UInt8] = []
                while index < input.count, input[index] != scalar, !isNewline(input[index]) {
                    if input[index] == "\\", index + 1 < input.count {
                        index += 1
                        if isNewline(input[index]) {
                            index += 1
                        } else {
                            value.append(contentsOf: consumeEscape(input, &index).utf8)
                        }
                        continue
                    }
                    TextDecoder.append(input[index], to: &value)
                    index += 1
                }
                index += 1
                tokens.append(.string(String(decoding: value, as: UTF8.self)))
                continue
            case "(": tokens.append(.openParen)
            case ")": tokens.append(.closeParen)
            case "[": tokens.append(.openBracket)
            case "]": tokens.append(.closeBracket)
            case "{": tokens.append(.openBrace)
            case "}": tokens.append(.closeBrace)
            case ",": tokens.append(.comma)
            case ":": tokens.append(.colon)
            case ";": tokens.append(.semicolon)
            case "#" where index + 1 < input.count && (isNameCode(input[index + 1]) || startsEscape(input, index + 1)):
                index += 1
                tokens.append(.hash(consumeName(input, &index)))
                continue
            case "@" where startsIdentifier(input, index + 1):
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
                    if index < input.count, input[index] == "(" {
                        index += 1
                        tokens.append(.function(name.lowercased()))
                    } else {
                        tokens.append(.ident(name))
                    }
                    continue
                }
                tokens.append(.delim(scalar))
            }
            index += 1
        }
        return tokens
    }

    // MARK: - Pieces

    private static func consumeNumeric(_ input: [Unicode.Scalar], _ index: inout Int) -> CSSValueToken {
        // Only ASCII signs, digits, `.` and `e` are taken.
        var text: [UInt8] = []
        func take(while predicate: (Unicode.Scalar) -> Bool) {
            while index < input.count, predicate(input[index]) {
                text.append(UInt8(truncatingIfNeeded: input[index].value))
                index += 1
            }
        }
        if input[index] == "+" || input[index] == "-" {
            text.append(UInt8(truncatingIfNeeded: input[index].value))
            index += 1
        }
        take(while: isDigit)
        if index + 1 < input.count, input[index] == ".", isDigit(input[index + 1]) {
            text.append(UInt8(ascii: "."))
            index += 1
            take(while: isDigit)
        }
        if index + 1 < input.count, input[index] == "e" || input[index] == "E" {
            let next = input[index + 1]
            let signed = (next == "+" || next == "-") && index + 2 < input.count && isDigit(input[index + 2])
            if isDigit(next) || signed {
                text.append(UInt8(ascii: "e"))
                index += 1
                if signed {
                    text.append(UInt8(truncatingIfNeeded: input[index].value))
                    index += 1
                }
                take(while: isDigit)
            }
        }
        let value = Double(String(decoding: text, as: UTF8.self)) ?? 0
        if index < input.count, input[index] == "%" {
            index += 1
            return .percentage(value)
        }
        if startsIdentifier(input, index) {
            return .dimension(value, consumeName(input, &index).lowercased())
        }
        return .number(value)
    }

    private static func consumeName(_ input: [Unicode.Scalar], _ index: inout Int) -> String {
        var name: [UInt8] = []
        while index < input.count {
            if isNameCode(input[index]) {
                TextDecoder.append(input[index], to: &name)
                index += 1
            } else if startsEscape(input, index) {
                index += 1
                name.append(contentsOf: consumeEscape(input, &index).utf8)
            } else {
                break
            }
        }
        return String(decoding: name, as: UTF8.self)
    }

    /// The code point of an escape whose backslash is consumed (§4.3.7).
    private static func consumeEscape(_ input: [Unicode.Scalar], _ index: inout Int) -> String {
        guard index < input.count else { return "\u{FFFD}" }
        guard input[index].properties.isASCIIHexDigit else {
            defer { index += 1 }
            return String(input[index])
        }
        var value: UInt32 = 0
        var digits = 0
        while digits < 6, index < input.count, let digit = UInt32(String(input[index]), radix: 16) {
            value = value * 16 + digit
            digits += 1
            index += 1
        }
        if index < input.count, isWhitespace(input[index]) { index += 1 }
        guard value != 0, !(0xD800...0xDFFF).contains(value), let scalar = Unicode.Scalar(value) else {
            return "\u{FFFD}"
        }
        return String(scalar)
    }

    private static func startsEscape(_ input: [Unicode.Scalar], _ index: Int) -> Bool {
        index + 1 < input.count && input[index] == "\\" && !isNewline(input[index + 1])
    }

    private static func startsIdentifier(_ input: [Unicode.Scalar], _ index: Int) -> Bool {
        guard index < input.count else { return false }
        if input[index] == "-" {
            guard index + 1 < input.count else { return false }
            return isNameStart(input[index + 1]) || input[index + 1] == "-" || startsEscape(input, index + 1)
        }
        return isNameStart(input[index]) || startsEscape(input, index)
    }

    private static func startsNumber(_ input: [Unicode.Scalar], _ index: Int) -> Bool {
        var position = index
        if input[position] == "+" || input[position] == "-" { position += 1 }
        guard position < input.count else { return false }
        if isDigit(input[position]) { return true }
        return input[position] == "." && position + 1 < input.count && isDigit(input[position + 1])
    }

    private static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    private static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x41...0x5A, 0x61...0x7A, 0x5F, 0x80...: true
        default: false
        }
    }

    private static func isNameCode(_ scalar: Unicode.Scalar) -> Bool {
        isNameStart(scalar) || isDigit(scalar) || scalar == "-"
    }

    private static func isWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || scalar == "\t" || isNewline(scalar)
    }

    private static func isNewline(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "\n" || scalar == "\r" || scalar == "\u{0C}"
    }
}
