import FoundationEssentials

/// An `@font-face` rule's `unicode-range` descriptor (CSS Fonts Level 4 §4.5): the code points
/// the face is used for, written as a comma-separated list of `<urange>`s (CSS Syntax Level 3 §7.1):
/// `U+26` (one code point), `U+0-7F` (an interval), `U+4??` (a wildcard range, U+400–4FF).
public struct UnicodeRange: Sendable, Hashable {
    /// The ranges, in the order written.
    public var ranges: [ClosedRange<UInt32>]
    /// The descriptor as written, trimmed.
    public var text: String

    /// The descriptor's ranges; `nil` when one of them is invalid (a range past U+10FFFF, a start
    /// after its end, a malformed one), which makes the whole descriptor invalid, so that the face
    /// keeps the initial value U+0-10FFFF and is used for every character.
    public init?(_ descriptor: String) {
        text = CSSRuleContext.trimmed(Self.withoutComments(descriptor))
        var ranges: [ClosedRange<UInt32>] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            guard let range = Self.range(CSSRuleContext.trimmed(part)) else { return nil }
            ranges.append(range)
        }
        self.ranges = ranges
    }

    /// Whether one of the ranges has a character of `characters`.
    public func meets(_ characters: TextCharacters) -> Bool {
        ranges.contains { characters.meets($0) }
    }

    /// One `<urange>`: `U+` (any case) then hex digits and trailing `?`s, or two hex numbers
    /// joined by `-`, each of one to six digits.
    static func range(_ text: String) -> ClosedRange<UInt32>? {
        let bytes = Array(text.utf8)
        guard bytes.count > 2, bytes[0] | 0x20 == UInt8(ascii: "u"), bytes[1] == UInt8(ascii: "+") else { return nil }
        var index = 2
        var start: UInt32 = 0
        var digits = 0
        while index < bytes.count, let digit = hexDigit(bytes[index]) {
            start = start << 4 | digit
            digits += 1
            index += 1
        }
        var end = start
        if index < bytes.count, bytes[index] == UInt8(ascii: "?") {
            var wildcards = 0
            while index < bytes.count, bytes[index] == UInt8(ascii: "?") {
                wildcards += 1
                index += 1
            }
            guard index == bytes.count, digits + wildcards <= 6 else { return nil }
            let shift = UInt32(4 * wildcards)
            start <<= shift
            end = start | (1 << shift - 1)
        } else {
            guard digits >= 1, digits <= 6 else { return nil }
            if index < bytes.count {
                guard bytes[index] == UInt8(ascii: "-") else { return nil }
                index += 1
                var endDigits = 0
                end = 0
                while index < bytes.count, let digit = hexDigit(bytes[index]) {
                    end = end << 4 | digit
                    endDigits += 1
                    index += 1
                }
                guard index == bytes.count, endDigits >= 1, endDigits <= 6 else { return nil }
            }
        }
        guard end <= 0x10_FFFF, start <= end else { return nil }
        return start...end
    }

    private static func hexDigit(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"):
            UInt32(byte | 0x20) - 0x61 + 10
        default: nil
        }
    }

    /// `text` without its CSS comments.
    private static func withoutComments(_ text: String) -> String {
        guard text.contains("/*") else { return text }
        var result = ""
        var rest = Substring(text)
        while let open = rest.firstRange(of: "/*") {
            result += rest[..<open.lowerBound]
            guard let close = rest[open.upperBound...].firstRange(of: "*/") else { return result }
            rest = rest[close.upperBound...]
        }
        return result + rest
    }
}
