/// Font family names and `@font-face` sources as CSS Fonts Level 4 writes them.
enum FontFamilies {
    /// The generic families (§2.1.1), which no `@font-face` defines, and the CSS-wide keywords.
    static let genericWords: [StaticString] = [
        "serif", "sans-serif", "cursive", "fantasy", "monospace", "system-ui", "emoji", "math", "fangsong",
        "ui-serif", "ui-sans-serif", "ui-monospace", "ui-rounded", "inherit", "initial", "unset", "revert",
        "revert-layer", "-apple-system", "blinkmacsystemfont",
    ]
    private static let generic = Set(genericWords.map(\.description))

    /// The families of a `font-family` value (§2.1): strings, and runs of identifiers joined by a
    /// space, in lower case; generic families left out.
    static func names(inFamilyList value: String) -> [String] {
        CSSValueTokenizer.tokens(value).splitAtTopLevelCommas().compactMap(familyName)
    }

    /// Whether the custom property value `bytes` may name a family, decided from its bytes alone:
    /// `false` only when it is one comma-free part whose first token is a number, a hash, a
    /// parenthesis or a function (`12px`, `#fff`, `.5`, `var(--x)`, `rgba(0, 0, 0, .1)`), which
    /// ``names(inFamilyList:)`` would find no family in. The custom properties of a stylesheet are
    /// mostly such values, and this spares each a tokenization.
    static func mayNameAFamily(_ bytes: ArraySlice<UInt8>) -> Bool {
        var depth = 0
        for byte in bytes {
            switch byte {
            // Strings, escapes and comments change what the bytes mean: the tokenizer decides.
            case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "\\"), UInt8(ascii: "/"): return true
            case UInt8(ascii: "("): depth += 1
            case UInt8(ascii: ")"): depth = max(0, depth - 1)
            case UInt8(ascii: ",") where depth == 0: return true
            default: continue
            }
        }
        guard let start = bytes.firstIndex(where: { !isWhitespace($0) }) else { return false }
        func isDigit(_ index: Int) -> Bool {
            index < bytes.endIndex && bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")
        }
        switch bytes[start] {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "#"), UInt8(ascii: "."), UInt8(ascii: "+"),
            UInt8(ascii: "("):
            return false
        case UInt8(ascii: "-") where isDigit(start + 1) || (start + 1 < bytes.endIndex && bytes[start + 1] == UInt8(ascii: ".")):
            return false
        default:
            // An ASCII name right before `(` is a function.
            var index = start
            while index < bytes.endIndex, isASCIINameByte(bytes[index]) { index += 1 }
            return !(index > start && index < bytes.endIndex && bytes[index] == UInt8(ascii: "("))
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
            || byte == UInt8(ascii: "\r") || byte == 0x0C
    }

    private static func isASCIINameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }

    /// The keywords of `<absolute-size>` and `<relative-size>` (§2.5).
    static let sizeKeywordWords: [StaticString] = [
        "xx-small", "x-small", "small", "medium", "large", "x-large", "xx-large", "xxx-large", "smaller", "larger",
    ]
    private static let sizeKeywords = Set(sizeKeywordWords.map(\.description))

    /// The families of a `font` shorthand (§2.8): what follows the size (and `/ line-height`).
    static func names(inFontShorthand value: String) -> [String] {
        var parts = CSSValueTokenizer.tokens(value).splitAtTopLevelCommas()
        guard !parts.isEmpty else { return [] }
        let first = parts[0]
        guard var index = first.lastIndex(where: { token in
            switch token {
            case .dimension, .percentage, .number, .function: return true
            case .ident(let name): return sizeKeywords.contains(name.lowercased())
            default: return false
            }
        }) else {
            // A system font (`font: menu`) names no family.
            return []
        }
        if case .function = first[index] {
            // A calc() size: skip to its end.
            var depth = 0
            while index < first.count {
                if case .function = first[index] { depth += 1 }
                if first[index] == .closeParen { depth -= 1; if depth == 0 { break } }
                index += 1
            }
        }
        parts[0] = Array(first[min(index + 1, first.count)...])
        return parts.compactMap(familyName)
    }

    private static func familyName(_ tokens: [CSSValueToken]) -> String? {
        var words: [String] = []
        for token in tokens {
            switch token {
            case .string(let name): return name.lowercased()
            case .ident(let name): words.append(name)
            case .whitespace: continue
            default: return nil
            }
        }
        let name = words.joined(separator: " ").lowercased()
        return name.isEmpty || isGeneric(name) ? nil : name
    }

    /// Whether `name` (in lower case) is a generic family or a CSS-wide keyword.
    static func isGeneric(_ name: String) -> Bool { generic.contains(name) }

    /// The entries of a `src` descriptor (§4.3): `url()` or `local()`, each with its `format()`
    /// and `tech()` names in lower case.
    static func sourceEntries(_ value: String) -> [Reference.FontFaceSource.Entry] {
        CSSValueTokenizer.tokens(value).splitAtTopLevelCommas().map { part in
            var cursor = CSSValueCursor(part)
            var entry = Reference.FontFaceSource.Entry(isURL: false)
            while let token = cursor.next() {
                guard case .function(let name) = token else {
                    continue
                }
                let arguments = cursor.takeBlock().compactMap { token -> String? in
                    switch token {
                    case .string(let text), .ident(let text): text.lowercased()
                    default: nil
                    }
                }
                switch name {
                case "url", "src": entry.isURL = true
                case "format": entry.formats = arguments
                case "tech": entry.technologies = arguments
                default: break
                }
            }
            return entry
        }
    }
}

/// A font family that a declaration names, with the selector of the rule that holds it: a face is
/// fetched when some element of the page matches such a rule (`nil` for a `style` attribute).
///
/// A rule's selector is often long (90 bytes in a typical stylesheet) and named with each family of
/// its `font` shorthand, so a use keeps the selector's hash, computed once per declaration, and the
/// family's, computed once per value (``RecentFontValues``): a set of uses then hashes each text
/// once, not once per use and again at each growth.
public struct FontFamilyUse: Sendable, Hashable {
    /// The family in lower case.
    public var family: String {
        get { storedFamily }
        set {
            storedFamily = newValue
            familyHash = Self.hash(of: newValue)
        }
    }
    /// The selector of the style rule, or `nil` when the declaration applies to an element itself.
    public var selector: String? {
        get { storedSelector }
        set {
            storedSelector = newValue
            selectorHash = Self.hash(of: newValue)
        }
    }

    private var storedFamily: String
    /// ``family``'s hash (``hash(of:)``).
    private var familyHash: Int
    private var storedSelector: String?
    /// ``selector``'s hash (``hash(of:)``).
    private var selectorHash: Int

    /// Creates a use.
    public init(family: String, selector: String?) {
        self.init(family: family, familyHash: Self.hash(of: family), selector: selector,
                  selectorHash: Self.hash(of: selector))
    }

    /// Creates a use whose family's and selector's hashes, ``hash(of:)``, are known.
    init(family: String, familyHash: Int, selector: String?, selectorHash: Int) {
        self.storedFamily = family
        self.familyHash = familyHash
        self.storedSelector = selector
        self.selectorHash = selectorHash
    }

    /// The hash of a family or selector a use keeps, for ``init(family:familyHash:selector:selectorHash:)``.
    static func hash(of text: String?) -> Int {
        var hasher = Hasher()
        hasher.combine(text)
        return hasher.finalize()
    }

    /// Whether both name the same family under the same selector.
    public static func == (left: FontFamilyUse, right: FontFamilyUse) -> Bool {
        left.selectorHash == right.selectorHash && left.familyHash == right.familyHash
            && left.storedFamily == right.storedFamily && left.storedSelector == right.storedSelector
    }

    /// Hashes the family's and the selector's kept hashes, mixed into one word (the family's
    /// multiplied by the 64-bit golden-ratio constant, negated to fit an `Int`): both are already
    /// seeded hashes of their texts, and one word costs the hasher one round fewer.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(familyHash &* 0x61C8_8646_80B5_83EB ^ selectorHash)
    }

    /// The hash a set of uses files one by, for its `seed`: the two kept hashes, already seeded
    /// hashes of their texts, mixed with the seed (``mixed(_:seed:)``) instead of by a `Hasher`,
    /// whose rounds were most of the cost of adding a use to a set, and of each use again when the
    /// set grows.
    public func _rawHashValue(seed: Int) -> Int {
        Self.mixed(familyHash &* 0x61C8_8646_80B5_83EB ^ selectorHash, seed: seed)
    }

    /// `word`, made of hashes that are seeded already, mixed with a table's `seed` by the 64-bit
    /// finalizer of MurmurHash3: every bit of the result depends on every bit of both.
    static func mixed(_ word: Int, seed: Int) -> Int {
        var bits = UInt64(truncatingIfNeeded: word ^ seed)
        bits = (bits ^ bits >> 33) &* 0xFF51_AFD7_ED55_8CCD
        bits = (bits ^ bits >> 33) &* 0xC4CE_B9FE_1A85_EC53
        return Int(truncatingIfNeeded: bits ^ bits >> 33)
    }
}
