import FoundationEssentials

extension URL {
    /// Parses `text`, absolute or relative to `base`, as the URL Standard does where Foundation
    /// differs: characters a URL cannot hold after its host (non-ASCII ones as UTF-8, spaces,
    /// controls, `"<>[\]^`{|}`) are percent-encoded, escapes already there (`%20`) are kept, and a
    /// `%` that starts no escape becomes `%25`. For `http` and `https`, a `\` before the query reads
    /// as `/`. The host is left to Foundation, which converts an internationalised name to punycode.
    ///
    /// `URL(string:)` encodes such characters itself, but then encodes the `%` of the escapes
    /// already there too: `/ä%20b` would become `/%C3%A4%2520b`, another resource than the
    /// `/%C3%A4%20b` a browser requests.
    ///
    /// - Returns: `nil` when Foundation cannot parse the result (a malformed host, for example).
    public init?(parsing text: String, relativeTo base: URL? = nil) {
        self.init(string: URL.encodingForParsing(text, base: base), relativeTo: base)
    }

    /// `text` with what a URL cannot hold after its host percent-encoded; see ``init(parsing:relativeTo:)``.
    static func encodingForParsing(_ text: String, base: URL?) -> String {
        // Most references need nothing: ASCII that a URL holds as it is, without escapes.
        if text.utf8.allSatisfy(holdsAfterHost) { return text }
        InternationalNames.prepare(forURL: text)
        let bytes = Array(text.utf8)
        let explicitScheme = scheme(ofReference: text)
        let schemeEnd = explicitScheme.map { $0.utf8.count }
        let scheme = explicitScheme ?? base?.scheme?.lowercased()
        let isSpecial = scheme == "http" || scheme == "https"
        var rest = bytes[(schemeEnd.map { $0 + 1 } ?? 0)...]
        var result = schemeEnd.map { Array(bytes[...$0]) } ?? []
        result.reserveCapacity(bytes.count + 16)
        // Until the query, a special URL reads `\` as `/`, in its authority's delimiters too.
        var beforeQuery = true
        func next(_ byte: UInt8) -> UInt8 {
            if byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { beforeQuery = false }
            return isSpecial && beforeQuery && byte == UInt8(ascii: "\\") ? UInt8(ascii: "/") : byte
        }
        let slash = UInt8(ascii: "/")
        if rest.count >= 2, next(rest[rest.startIndex]) == slash, next(rest[rest.startIndex + 1]) == slash {
            result += [slash, slash]
            rest = rest.dropFirst(2)
            while let byte = rest.first {
                let read = next(byte)
                if read == slash || read == UInt8(ascii: "?") || read == UInt8(ascii: "#") { break }
                result.append(read)
                rest = rest.dropFirst()
            }
        }
        var index = rest.startIndex
        while index < rest.endIndex {
            let byte = next(rest[index])
            if byte == UInt8(ascii: "%") {
                let isEscape = rest.endIndex - index > 2 && isHexDigit(rest[index + 1]) && isHexDigit(rest[index + 2])
                result += isEscape ? [byte] : Array("%25".utf8)
            } else if holdsAfterHost(byte) {
                result.append(byte)
            } else {
                result += [UInt8(ascii: "%"), upperHexDigits[Int(byte >> 4)], upperHexDigits[Int(byte & 0x0F)]]
            }
            index += 1
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The scheme a URL reference starts with, in lower case (RFC 3986 §3.1: `ALPHA *( ALPHA /
    /// DIGIT / "+" / "-" / "." ) ":"`); `nil` for a relative reference. Inlinable, so that the
    /// scanner's call, once per reference found, is specialised rather than generic.
    @inlinable
    public static func scheme(ofReference text: some StringProtocol) -> String? {
        let bytes = text.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon > bytes.startIndex else { return nil }
        for (offset, byte) in bytes[..<colon].enumerated() {
            let isLetter = (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
            let isOther = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            guard isLetter || (offset > 0 && isOther) else { return nil }
        }
        return String(decoding: bytes[..<colon], as: UTF8.self).lowercased()
    }

    private static let upperHexDigits = Array("0123456789ABCDEF".utf8)

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    /// Whether a URL holds `byte` as it is after its host: RFC 3986's unreserved and reserved
    /// characters other than the brackets, which only an IPv6 host may hold; that is ASCII letters,
    /// digits and `-._~:/?#@!$&'()*+,;=`. The scanners' plain references are made of these bytes too.
    ///
    /// A bit per ASCII byte in two literal words, not a table: a static table is reached through a
    /// one-time initialisation check on every read, which costs more than the test itself.
    @inlinable
    public static func holdsAfterHost(_ byte: UInt8) -> Bool {
        holds(byte, low: afterHostBits.low, high: afterHostBits.high)
    }

    /// The bytes ``holdsAfterHost(_:)`` accepts as two words of bits: bit `b` of `low` is byte `b`
    /// (0 to 63), bit `b - 64` of `high` byte `b` (64 to 127); for tests of a subset of them.
    @inlinable
    public static var afterHostBits: (low: UInt64, high: UInt64) { (0xAFFF_FFDA_0000_0000, 0x47FF_FFFE_87FF_FFFF) }

    /// Whether `byte` is among the bytes two words of bits name (as in ``afterHostBits``).
    @inlinable
    public static func holds(_ byte: UInt8, low: UInt64, high: UInt64) -> Bool {
        byte < 64 ? low >> UInt64(byte) & 1 != 0 : byte < 128 && high >> UInt64(byte - 64) & 1 != 0
    }
}
