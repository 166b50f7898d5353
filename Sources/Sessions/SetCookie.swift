import FoundationEssentials
import HTTPCore

/// One `Set-Cookie` line parsed as RFC 6265 §5.2 says, before the storage model (§5.3) applies it.
struct SetCookie: Sendable, Hashable {
    var name: String
    var value: String
    /// The `Expires` attribute, when it parsed as a cookie date.
    var expires: Date?
    /// The `Max-Age` attribute in seconds (zero or negative means "expire now").
    var maxAge: Int?
    /// The `Domain` attribute, lowercased, leading dot removed; `nil` when absent or empty.
    var domain: String?
    /// The `Path` attribute when it starts with `/`; `nil` means "use the default path" (§5.2.4).
    var path: String?
    var isSecure = false
    var isHTTPOnly = false
    var sameSite: Cookie.SameSite?

    /// RFC 6265bis §5.6: name and value together may not exceed 4096 bytes.
    static let maximumNameValueBytes = 4096
    /// RFC 6265bis §5.6: longer attribute values are ignored.
    static let maximumAttributeValueBytes = 1024

    /// Why a line was ignored.
    enum Malformation: Error, Hashable, Sendable {
        case missingEquals
        case emptyName
        case tooLarge
        case forbiddenCharacter
    }

    // MARK: - Parsing

    /// Parses one `Set-Cookie` field value.
    ///
    /// - Returns: the cookie, or why the line must be ignored entirely (§5.2: "ignore the set-cookie-string").
    static func parse(_ line: String) -> Result<SetCookie, Malformation> {
        // A control character other than HTAB in the line (RFC 6265bis §5.6 step 1) makes it unusable.
        if line.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
            return .failure(.forbiddenCharacter)
        }
        let pieces = line.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)
        let nameValuePair = pieces[0]
        guard let equals = nameValuePair.firstIndex(of: "=") else { return .failure(.missingEquals) }
        let name = nameValuePair[..<equals].trimmingHTTPWhitespace()
        let value = nameValuePair[nameValuePair.index(after: equals)...].trimmingHTTPWhitespace()
        guard !name.isEmpty else { return .failure(.emptyName) }
        guard name.utf8.count + value.utf8.count <= maximumNameValueBytes else { return .failure(.tooLarge) }

        var cookie = SetCookie(name: name, value: value)
        guard pieces.count == 2 else { return .success(cookie) }
        // §5.2 step 4 onwards: each attribute in turn; a later occurrence overrides an earlier one.
        for attribute in pieces[1].split(separator: ";", omittingEmptySubsequences: true) {
            let attributeName: String
            let attributeValue: String
            if let equals = attribute.firstIndex(of: "=") {
                attributeName = attribute[..<equals].trimmingHTTPWhitespace()
                attributeValue = attribute[attribute.index(after: equals)...].trimmingHTTPWhitespace()
            } else {
                attributeName = attribute.trimmingHTTPWhitespace()
                attributeValue = ""
            }
            guard attributeValue.utf8.count <= maximumAttributeValueBytes else { continue }
            cookie.apply(attribute: attributeName.lowercased(), value: attributeValue)
        }
        return .success(cookie)
    }

    private mutating func apply(attribute: String, value: String) {
        switch attribute {
        case "expires":
            // §5.2.1: "If the attribute-value failed to parse as a cookie date, ignore the cookie-av."
            if let date = CookieDate.parse(value) { expires = date }
        case "max-age":
            // §5.2.2: first character a DIGIT or "-", the rest DIGITs; otherwise ignore the cookie-av.
            let bytes = Array(value.utf8)
            guard let first = bytes.first, first == UInt8(ascii: "-") || Self.isDigit(first),
                bytes.dropFirst().allSatisfy(Self.isDigit), bytes != [UInt8(ascii: "-")]
            else { return }
            // Values beyond Int's range saturate: they mean "very far" or "already gone".
            maxAge = Int(value) ?? (first == UInt8(ascii: "-") ? Int.min : Int.max)
        case "domain":
            // §5.2.3: an empty value is ignored; a leading "." is removed; the domain is lowercased.
            var domain = Substring(value)
            if domain.hasPrefix(".") { domain = domain.dropFirst() }
            self.domain = domain.isEmpty ? nil : domain.lowercased()
        case "path":
            // §5.2.4: a value that is empty or does not start with "/" means the default path.
            path = value.hasPrefix("/") ? value : nil
        case "secure":
            isSecure = true
        case "httponly":
            isHTTPOnly = true
        case "samesite":
            // RFC 6265bis §5.6.7: an unknown value is the same as no attribute.
            sameSite = Cookie.SameSite.allCases.first { $0.rawValue.caseInsensitiveEquals(value) }
        default:
            break  // §5.2 step 6: unrecognised attributes are ignored.
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
}

extension SetCookie {
    init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
