/// The families of `font` and `font-family` values read straight from their bytes, for the
/// values stylesheets are made of: ASCII identifiers, numbers, dimensions, strings, commas and
/// delimiters such as `/`. A value with anything else (a non-ASCII byte, an escape, a comment, a
/// parenthesis, bracket or brace, a string broken by a newline or by the end) is left to
/// ``FontFamilies/names(inFamilyList:)`` and ``FontFamilies/names(inFontShorthand:)``, which
/// these give the same names as wherever they answer.
///
/// No token list is built: each comma-separated part is read as it goes, keeping only where its
/// family is in the value, which a size in the first part of a `font` shorthand starts afresh, as
/// the last size is where the families begin; a family's text is made once, when its part ends.
extension FontFamilies {
    /// The families of a `font-family` value (`shorthand` false) or a `font` shorthand, or `nil`
    /// when the value holds what only the token-based readers read.
    static func names(inASCII bytes: UnsafeBufferPointer<UInt8>, shorthand: Bool) -> [String]? {
        var reader = FamilyReader(bytes: bytes, shorthand: shorthand)
        return reader.read()
    }
}

/// One pass over a value's bytes for ``FontFamilies/names(inASCII:shorthand:)``.
private struct FamilyReader {
    /// What the current part is so far.
    enum Part {
        /// Identifiers, or nothing yet.
        case words
        /// A string named the family; what follows does not change it.
        case string
        /// A token that no family has: the part names none.
        case none
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let shorthand: Bool
    var index = 0
    /// Where the family of the current part is: from its first word to its last, or the text of
    /// the string that names it.
    var family = 0..<0
    var part = Part.words
    var partNumber = 0
    /// Whether the first part of a shorthand has shown its size.
    var sawSize = false
    var names: [String] = []

    init(bytes: UnsafeBufferPointer<UInt8>, shorthand: Bool) {
        self.bytes = bytes
        self.shorthand = shorthand
    }

    mutating func read() -> [String]? {
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            switch byte {
            case 0x80..., UInt8(ascii: "\\"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "["),
                UInt8(ascii: "]"), UInt8(ascii: "{"), UInt8(ascii: "}"):
                return nil
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0C:
                index += 1
            case UInt8(ascii: ","):
                index += 1
                if endPart() { return [] }
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                guard readString(quote: byte) else { return nil }
            case UInt8(ascii: "/") where at(index + 1) == UInt8(ascii: "*"):
                return nil
            case UInt8(ascii: "#"):
                index += 1
                if Self.isNameCode(at(index)) { skipName() }
                other()
            case UInt8(ascii: "@"):
                index += 1
                if startsIdentifier(index) { skipName() }
                other()
            default:
                if startsNumber(index) {
                    skipNumeric()
                    size()
                } else if startsIdentifier(index) {
                    let start = index
                    skipName()
                    if at(index) == UInt8(ascii: "(") { return nil }
                    identifier(start..<index)
                } else {
                    index += 1
                    other()
                }
            }
        }
        if endPart() { return [] }
        return names
    }

    // MARK: - Tokens

    /// A string token: the part's family when nothing has decided it yet; `false` for a string
    /// with an escape or one the end of a line or of the value breaks.
    private mutating func readString(quote: UInt8) -> Bool {
        let start = index + 1
        var end = start
        while end < bytes.count {
            switch bytes[end] {
            case quote:
                index = end + 1
                if part == .words {
                    family = start..<end
                    part = .string
                }
                return true
            case UInt8(ascii: "\\"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0C, 0x80...:
                return false
            default:
                end += 1
            }
        }
        return false
    }

    private mutating func identifier(_ range: Range<Int>) {
        let word = UnsafeBufferPointer(rebasing: bytes[range])
        if isInSizePart, FontFamilies.sizeKeywordWords.contains(where: { CSSTokenizer.equalsLowercased(word, $0) }) {
            size()
            return
        }
        guard part == .words else { return }
        family = family.isEmpty ? range : family.lowerBound..<range.upperBound
    }

    /// The text of `range` in lower case; with `joiningWords`, each run of whitespace in it
    /// (between the words of a family) is written as one space.
    private func text(_ range: Range<Int>, joiningWords: Bool) -> String {
        String(unsafeUninitializedCapacity: range.count) { output in
            var written = 0
            var index = range.lowerBound
            while index < range.upperBound {
                let byte = bytes[index]
                index += 1
                if joiningWords && Self.isWhitespace(byte) {
                    while index < range.upperBound, Self.isWhitespace(bytes[index]) { index += 1 }
                    output[written] = UInt8(ascii: " ")
                } else {
                    output[written] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                }
                written += 1
            }
            return written
        }
    }

    /// Whether the words in `range` are a generic family or a CSS-wide keyword, as
    /// ``FontFamilies/isGeneric(_:)`` says of their text, compared in place: none has a space.
    private func isGeneric(_ range: Range<Int>) -> Bool {
        let words = UnsafeBufferPointer(rebasing: bytes[range])
        return FontFamilies.genericWords.contains { word in
            word.utf8CodeUnitCount == words.count && CSSTokenizer.equalsLowercased(words, word)
        }
    }

    /// A number, percentage, dimension or size keyword: in a shorthand's first part the families
    /// start after it; elsewhere no family has one.
    private mutating func size() {
        guard isInSizePart else { return other() }
        sawSize = true
        family = 0..<0
        part = .words
    }

    /// A token that no family name holds.
    private mutating func other() {
        if part == .words { part = .none }
    }

    /// Ends a comma-separated part; `true` when the value names no family at all (a shorthand
    /// whose first part has no size is a system font).
    private mutating func endPart() -> Bool {
        if isInSizePart && !sawSize { return true }
        switch part {
        case .string:
            add(text(family, joiningWords: false))
        case .words where !family.isEmpty:
            if !isGeneric(family) { add(text(family, joiningWords: true)) }
        default:
            break
        }
        family = 0..<0
        part = .words
        partNumber += 1
        return false
    }

    /// Adds a family to ``names``, made room for once: a value names a few.
    private mutating func add(_ name: String) {
        if names.isEmpty { names.reserveCapacity(4) }
        names.append(name)
    }

    private var isInSizePart: Bool { shorthand && partNumber == 0 }

    // MARK: - Characters

    private func at(_ position: Int) -> UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func skipName() {
        while Self.isNameCode(at(index)) { index += 1 }
    }

    private mutating func skipNumeric() {
        if bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
        skipDigits()
        if at(index) == UInt8(ascii: "."), Self.isDigit(at(index + 1)) {
            index += 1
            skipDigits()
        }
        if at(index) == UInt8(ascii: "e") || at(index) == UInt8(ascii: "E") {
            let next = at(index + 1)
            let signed = (next == UInt8(ascii: "+") || next == UInt8(ascii: "-")) && Self.isDigit(at(index + 2))
            if Self.isDigit(next) || signed {
                index += signed ? 2 : 1
                skipDigits()
            }
        }
        if at(index) == UInt8(ascii: "%") {
            index += 1
        } else if startsIdentifier(index) {
            skipName()
        }
    }

    private mutating func skipDigits() {
        while Self.isDigit(at(index)) { index += 1 }
    }

    private func startsNumber(_ position: Int) -> Bool {
        var position = position
        if bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") { position += 1 }
        if Self.isDigit(at(position)) { return true }
        return at(position) == UInt8(ascii: ".") && Self.isDigit(at(position + 1))
    }

    /// Escapes end the fast reading before this is asked, so a backslash never starts a name here.
    private func startsIdentifier(_ position: Int) -> Bool {
        guard let byte = at(position) else { return false }
        if byte == UInt8(ascii: "-") {
            let next = at(position + 1)
            return Self.isNameStart(next) || next == UInt8(ascii: "-")
        }
        return Self.isNameStart(byte)
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
            || byte == 0x0C
    }

    private static func isDigit(_ byte: UInt8?) -> Bool {
        guard let byte else { return false }
        return byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    /// Name-start bytes of ASCII text (non-ASCII ends the fast reading).
    private static func isNameStart(_ byte: UInt8?) -> Bool {
        guard let byte else { return false }
        switch byte {
        case 0x41...0x5A, 0x61...0x7A, 0x5F: return true
        default: return false
        }
    }

    private static func isNameCode(_ byte: UInt8?) -> Bool {
        isNameStart(byte) || isDigit(byte) || byte == UInt8(ascii: "-")
    }
}
