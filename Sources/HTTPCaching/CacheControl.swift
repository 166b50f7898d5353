import HTTPCore

/// The directives of every `Cache-Control` line of a message, in order (RFC 9111 §5.2).
///
/// Directive names are compared without regard to case; values may be tokens or quoted strings,
/// and quoted strings are unescaped (RFC 9110 §5.6.4). Repeated lines are read as one list
/// (RFC 9110 §5.3). Unknown directives are kept here and ignored by ``RequestCacheControl`` and
/// ``ResponseCacheControl``, as RFC 9111 §5.2.3 requires.
///
/// ```swift
/// let directives = CacheControl(#"max-age=60, no-cache="Set-Cookie""#)
/// directives.first("NO-CACHE")?.value // "Set-Cookie"
/// ```
public struct CacheControl: Sendable, Hashable {
    /// One directive: a lowercased name and an optional, unquoted value.
    public struct Directive: Sendable, Hashable {
        /// The directive name, lowercased.
        public var name: String
        /// The value after `=`, unquoted; `nil` when there is no `=`. A quoted string that is not
        /// closed is kept as written, so that numeric directives read it as invalid.
        public var value: String?

        /// Creates a directive.
        public init(name: String, value: String? = nil) {
            // Names arrive lowercase nearly always: checked as bytes before lowercasing a copy.
            self.name = name.utf8.allSatisfy { $0 < 0x80 && !(0x41...0x5A).contains($0) } ? name : name.lowercased()
            self.value = value
        }
    }

    /// The directives in the order they were received, duplicates included.
    public var directives: [Directive]

    /// Parses every `Cache-Control` line of `headers`.
    public init(headers: HTTPHeaders) {
        directives = headers.listValues(for: "Cache-Control").compactMap(CacheControl.parseDirective)
    }

    /// Parses one `Cache-Control` field value.
    public init(_ value: String) {
        directives = HTTPHeaders.splitList(value).compactMap(CacheControl.parseDirective)
    }

    /// The first directive named `name` (case-insensitive), or `nil`.
    ///
    /// RFC 9111 §4.2.1 lets a cache either use the first occurrence of a repeated directive or
    /// consider the response stale; this module uses the first occurrence everywhere, so that a
    /// response such as `max-age=60, max-age=30` is fresh for 60 seconds.
    public func first(_ name: String) -> Directive? {
        directives.first { $0.name.caseInsensitiveEquals(name) }
    }

    /// Whether a directive named `name` (case-insensitive) is present.
    public func contains(_ name: String) -> Bool {
        first(name) != nil
    }

    /// The value of the first `name` directive read as delta-seconds (RFC 9111 §1.2.2).
    public func deltaSeconds(_ name: String) -> DeltaSeconds {
        guard let directive = first(name) else { return .absent }
        guard let value = directive.value, let seconds = CacheControl.parseDeltaSeconds(value) else {
            return .invalid
        }
        return .seconds(seconds)
    }

    /// The field names listed in every `name` directive (as in `no-cache="Set-Cookie"`), lowercased.
    public func fieldNames(_ name: String) -> [String] {
        directives.filter { $0.name == name.lowercased() }.flatMap { directive in
            (directive.value.map(HTTPHeaders.splitList) ?? []).map { $0.lowercased() }
        }
    }

    // MARK: - Delta-seconds

    /// The outcome of reading a directive as delta-seconds.
    public enum DeltaSeconds: Sendable, Hashable {
        /// The directive is not present.
        case absent
        /// The directive is present without a value or with one that is not `1*DIGIT`.
        case invalid
        /// A valid value, clamped to ``CacheControl/maximumDeltaSeconds``.
        case seconds(Int)
    }

    /// The largest delta-seconds value kept: 2^31. RFC 9111 §1.2.2: a cache receiving a larger
    /// value "MUST consider the value to be 2147483648 (2^31)".
    public static let maximumDeltaSeconds = 2_147_483_648

    /// Reads `1*DIGIT`, clamping overflow to ``maximumDeltaSeconds``; `nil` for anything else
    /// (signs, spaces, fractions, an empty value).
    static func parseDeltaSeconds(_ text: some StringProtocol) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value = 0
        for byte in text.utf8 {
            value = value * 10 + Int(byte - 0x30)
            if value >= maximumDeltaSeconds { return maximumDeltaSeconds }
        }
        return value
    }

    // MARK: - Parsing

    /// One list member as a directive; the `=` and the spaces around it are found as bytes, since
    /// every response received and every stored one read is parsed.
    private static func parseDirective(_ member: String) -> Directive? {
        let bytes = member.utf8
        guard let equals = bytes.firstIndex(of: UInt8(ascii: "=")) else {
            let name = member.trimmingHTTPWhitespace()
            return name.isEmpty ? nil : Directive(name: name)
        }
        let name = trimmed(bytes[..<equals])
        guard !name.isEmpty else { return nil }
        let rawValue = trimmed(bytes[bytes.index(after: equals)...])
        return Directive(name: name, value: unquote(rawValue) ?? rawValue)
    }

    /// `bytes` as a string without the spaces and tabs around them.
    private static func trimmed(_ bytes: Substring.UTF8View) -> String {
        let isText = { (byte: UInt8) in byte != 0x20 && byte != 0x09 }
        guard let first = bytes.firstIndex(where: isText), let last = bytes.lastIndex(where: isText) else { return "" }
        return String(Substring(bytes[first...last]))
    }

    /// The content of a quoted string with its backslash escapes resolved (RFC 9110 §5.6.4);
    /// a token is returned as is; `nil` when a quoted string is not closed or is followed by text.
    static func unquote(_ text: String) -> String? {
        guard text.first == "\"" else { return text }
        var result = ""
        var escaped = false
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                return text.index(after: index) == text.endIndex ? result : nil
            } else {
                result.append(character)
            }
            index = text.index(after: index)
        }
        return nil
    }
}
