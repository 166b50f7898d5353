/// The characters a page may render, as far as `@font-face` `unicode-range` needs them (CSS Fonts
/// Level 4 §4.5): a browser downloads a face of a family split by range only for text with a
/// character in the face's range.
///
/// It over-approximates, so that a face is never left out for a character the page shows: ASCII is
/// kept as two classes, whitespace (rendered as U+0020) and printable (U+0021–007E, all of them
/// when any is there), which costs the scanners a word test per eight bytes of ASCII text; other
/// characters are kept exactly, the Basic Multilingual Plane in a bitset made on the first of them.
/// ``isUnbounded`` stands for text that may hold any character, such as a character reference
/// webcache does not know or a `content: attr(…)` whose attribute it does not keep.
public struct TextCharacters: Sendable, Hashable {
    /// Whether the text has whitespace, which renders as U+0020.
    public private(set) var hasSpace = false
    /// Whether the text has printable ASCII; all of U+0021–007E then count as present.
    public private(set) var hasPrintableASCII = false
    /// Whether the text may hold any character: every range meets it.
    public private(set) var isUnbounded = false
    /// One bit for each code point of U+0000–FFFF (those below U+0080 unused), or empty.
    private var basic: [UInt64] = []
    /// The code points above U+FFFF.
    private var supplementary: Set<UInt32> = []

    /// No character.
    public init() {}

    /// The characters of `text`.
    public init(_ text: String) {
        for scalar in text.unicodeScalars { insert(scalar.value) }
    }

    /// Whether no character is there.
    public var isEmpty: Bool {
        !hasSpace && !hasPrintableASCII && !isUnbounded && basic.isEmpty && supplementary.isEmpty
    }

    /// Adds a code point; ASCII control characters other than whitespace render nothing.
    public mutating func insert(_ codePoint: UInt32) {
        switch codePoint {
        case 0x09, 0x0A, 0x0C, 0x0D, 0x20: hasSpace = true
        case 0x21...0x7E: hasPrintableASCII = true
        case 0..<0x80: break
        case 0x80...0xFFFF:
            if basic.isEmpty { basic = [UInt64](repeating: 0, count: 1024) }
            basic[Int(codePoint >> 6)] |= 1 << (codePoint & 63)
        default: supplementary.insert(codePoint)
        }
    }

    /// Makes it stand for any character.
    public mutating func insertEverything() { isUnbounded = true }

    /// Adds `other`'s characters.
    public mutating func formUnion(_ other: TextCharacters) {
        hasSpace = hasSpace || other.hasSpace
        hasPrintableASCII = hasPrintableASCII || other.hasPrintableASCII
        isUnbounded = isUnbounded || other.isUnbounded
        if !other.basic.isEmpty {
            if basic.isEmpty {
                basic = other.basic
            } else {
                for index in basic.indices { basic[index] |= other.basic[index] }
            }
        }
        supplementary.formUnion(other.supplementary)
    }

    /// Whether every character of `other` is here.
    public func isSuperset(of other: TextCharacters) -> Bool {
        var copy = self
        copy.formUnion(other)
        return copy == self
    }

    /// Whether one of the characters is in `range` (a code point range, ends included).
    public func meets(_ range: ClosedRange<UInt32>) -> Bool {
        if isUnbounded { return true }
        if hasSpace && range.contains(0x20) { return true }
        if hasPrintableASCII && range.lowerBound <= 0x7E && range.upperBound >= 0x21 { return true }
        if !basic.isEmpty, range.upperBound >= 0x80, range.lowerBound <= 0xFFFF {
            let low = max(range.lowerBound, 0x80)
            let high = min(range.upperBound, 0xFFFF)
            var word = Int(low >> 6)
            while word <= Int(high >> 6) {
                var bits = basic[word]
                if word == Int(low >> 6) { bits &= ~0 << (low & 63) }
                if word == Int(high >> 6) { bits &= ~0 >> (63 - (high & 63)) }
                if bits != 0 { return true }
                word += 1
            }
        }
        return range.upperBound > 0xFFFF && supplementary.contains { range.contains($0) }
    }

    // MARK: - Text

    /// Adds the characters of UTF-8 `bytes` (broken sequences are U+FFFD), eight bytes at a time
    /// while they are ASCII and ASCII is known to be there.
    mutating func insert(utf8 bytes: UnsafeBufferPointer<UInt8>) {
        var index = 0
        let count = bytes.count
        while index < count {
            if index + 8 <= count {
                let word = UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self)
                if word & Self.highBits == 0 {
                    insertASCII(word)
                    index += 8
                    continue
                }
            }
            index = insertCharacter(bytes, at: index)
        }
    }

    /// The bits of a word's bytes above ASCII.
    static let highBits: UInt64 = 0x8080_8080_8080_8080

    /// Adds eight ASCII bytes packed in a word: a byte at least 0x21 plus 0x5F sets its high bit,
    /// and no byte carries into the next.
    @inline(__always)
    mutating func insertASCII(_ word: UInt64) {
        guard !(hasSpace && hasPrintableASCII) else { return }
        let printable = (word &+ 0x5F5F_5F5F_5F5F_5F5F) & Self.highBits
        if printable != 0 { hasPrintableASCII = true }
        if printable != Self.highBits {
            for shift in stride(from: 0, to: 64, by: 8) {
                insert(UInt32(truncatingIfNeeded: word >> UInt64(shift)) & 0x7F)
            }
        }
    }

    /// Adds the character of `bytes` that starts at `index`; returns where the next starts.
    @inline(__always)
    mutating func insertCharacter(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let byte = bytes[index]
        if byte < 0x80 {
            if !(hasSpace && hasPrintableASCII) { insert(UInt32(byte)) }
            return index + 1
        }
        let (scalar, length) = Self.decode(bytes, at: index)
        insert(scalar)
        return index + length
    }

    /// The code point of the UTF-8 sequence at `index`, and its length; U+FFFD and one byte for a
    /// broken sequence, as the Encoding Standard decodes it (at its maximal subpart).
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> (UInt32, Int) {
        let lead = bytes[index]
        guard lead >= 0x80 else { return (UInt32(lead), 1) }
        let length: Int
        var value: UInt32
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2; value = UInt32(lead & 0x1F)
        case 0xE0...0xEF:
            length = 3; value = UInt32(lead & 0x0F)
            if lead == 0xE0 { lower = 0xA0 }
            if lead == 0xED { upper = 0x9F }
        case 0xF0...0xF4:
            length = 4; value = UInt32(lead & 0x07)
            if lead == 0xF0 { lower = 0x90 }
            if lead == 0xF4 { upper = 0x8F }
        default: return (0xFFFD, 1)
        }
        for offset in 1..<length {
            guard index + offset < bytes.count else { return (0xFFFD, offset) }
            let byte = bytes[index + offset]
            guard byte >= lower && byte <= upper else { return (0xFFFD, offset) }
            lower = 0x80
            upper = 0xBF
            value = value << 6 | UInt32(byte & 0x3F)
        }
        return (value, length)
    }

    /// How many bytes at the end of `bytes` are the start of a UTF-8 sequence that more bytes may
    /// complete (0 when the last character is whole).
    static func incompleteTail(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var back = 1
        while back <= min(3, bytes.count) {
            let byte = bytes[bytes.count - back]
            if byte & 0xC0 != 0x80 {
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                return length > back ? back : 0
            }
            back += 1
        }
        return 0
    }
}
