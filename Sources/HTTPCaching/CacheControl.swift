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
        var directives: [Directive] = []
        for field in headers where field.name.caseInsensitiveEquals("Cache-Control") {
            Self.appendDirectives(of: field.value, to: &directives)
        }
        self.directives = directives
    }

    /// Parses one `Cache-Control` field value.
    public init(_ value: String) {
        var directives: [Directive] = []
        Self.appendDirectives(of: value, to: &directives)
        self.directives = directives
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

    /// Appends the directives of one field value: each member of the list
    /// (``HTTPCore/HTTPHeaders/forEachListMember(of:_:)``) read as `name` or `name=value`, from its
    /// bytes: every response received and every stored one read is parsed, and only a directive's
    /// name and value become strings.
    private static func appendDirectives(of value: String, to directives: inout [Directive]) {
        HTTPHeaders.forEachListMember(of: value) { appendDirective($0, to: &directives) }
    }

    /// Appends one list member as a directive, unless its name is empty: the `=` splits the name
    /// from the value, and a quoted value is unquoted (kept as written when it is not closed at its
    /// end).
    private static func appendDirective(_ member: UnsafeBufferPointer<UInt8>, to directives: inout [Directive]) {
        guard let equals = member.firstIndex(of: UInt8(ascii: "=")) else {
            directives.append(Directive(name: String(decoding: member, as: UTF8.self)))
            return
        }
        let name = trimmed(UnsafeBufferPointer(rebasing: member[..<equals]))
        guard !name.isEmpty else { return }
        let value = trimmed(UnsafeBufferPointer(rebasing: member[(equals + 1)...]))
        directives.append(Directive(
            name: String(decoding: name, as: UTF8.self),
            value: unquoted(value) ?? String(decoding: value, as: UTF8.self)))
    }

    /// `bytes` without the spaces and tabs around them.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        let isText = { (byte: UInt8) in byte != 0x20 && byte != 0x09 }
        guard let first = bytes.firstIndex(where: isText), let last = bytes.lastIndex(where: isText) else {
            return UnsafeBufferPointer(rebasing: bytes[0..<0])
        }
        return UnsafeBufferPointer(rebasing: bytes[first...last])
    }

    /// The content of a quoted string with its backslash escapes resolved (RFC 9110 §5.6.4); `nil`
    /// for a token, and for a quoted string that is not closed or is followed by more.
    private static func unquoted(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard bytes.first == UInt8(ascii: "\"") else { return nil }
        var content: [UInt8] = []
        var escaped = false
        for index in 1..<bytes.count {
            let byte = bytes[index]
            if escaped {
                content.append(byte)
                escaped = false
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
            } else if byte == UInt8(ascii: "\"") {
                return index == bytes.count - 1 ? String(decoding: content, as: UTF8.self) : nil
            } else {
                content.append(byte)
            }
        }
        return nil
    }
}
