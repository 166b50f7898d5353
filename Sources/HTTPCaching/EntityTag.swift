import HTTPCore

/// An entity tag (RFC 9110 §8.8.3): an opaque quoted string, optionally marked weak with `W/`.
///
/// ```swift
/// let tag = EntityTag(parsing: #"W/"v1""#)!
/// tag.weaklyMatches(EntityTag(parsing: #""v1""#)!)   // true
/// tag.stronglyMatches(EntityTag(parsing: #""v1""#)!) // false
/// ```
public struct EntityTag: Sendable, Hashable, CustomStringConvertible {
    /// Whether the tag is weak (`W/` prefix).
    public var isWeak: Bool
    /// The characters between the quotes.
    public var opaqueTag: String

    /// Creates a tag from its parts.
    public init(opaqueTag: String, isWeak: Bool = false) {
        self.opaqueTag = opaqueTag
        self.isWeak = isWeak
    }

    /// Parses `"xyzzy"` or `W/"xyzzy"`; `nil` for anything else (a missing quote, a lowercase `w/`,
    /// a `"` or control character inside, text after the closing quote).
    public init?(parsing text: some StringProtocol) {
        var rest = Substring(text.trimmingHTTPWhitespace())
        let weak = rest.hasPrefix("W/")  // RFC 9110 §8.8.3: weak = %s"W/", case-sensitive
        if weak { rest = rest.dropFirst(2) }
        guard rest.count >= 2, rest.first == "\"", rest.last == "\"" else { return nil }
        let opaque = rest.dropFirst().dropLast()
        // etagc = %x21 / %x23-7E / obs-text
        guard opaque.utf8.allSatisfy({ $0 == 0x21 || ($0 >= 0x23 && $0 != 0x7F) }) else { return nil }
        self.init(opaqueTag: String(opaque), isWeak: weak)
    }

    /// The tag as sent in a field value, such as `W/"xyzzy"`.
    public var description: String {
        (isWeak ? "W/" : "") + "\"\(opaqueTag)\""
    }

    /// Strong comparison (RFC 9110 §8.8.3.2): neither tag is weak and the opaque tags are equal.
    public func stronglyMatches(_ other: EntityTag) -> Bool {
        !isWeak && !other.isWeak && opaqueTag == other.opaqueTag
    }

    /// Weak comparison (RFC 9110 §8.8.3.2): the opaque tags are equal, whatever the weakness.
    public func weaklyMatches(_ other: EntityTag) -> Bool {
        opaqueTag == other.opaqueTag
    }
}
