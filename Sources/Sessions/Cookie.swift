import FoundationEssentials
import HTTPCore

/// One stored cookie, as RFC 6265 §5.3 keeps it in a cookie store.
///
/// Cookies of a signed-in user are secrets: ``description`` names the cookie and its scope but
/// never shows its ``value``.
public struct Cookie: Sendable, Hashable, Codable {
    /// The `SameSite` attribute (RFC 6265bis §4.1.2.7), recorded as received.
    ///
    /// A non-browser client is always first-party to the instance it talks to: it never sends a
    /// request on behalf of another site. `SameSite` therefore never blocks a cookie here; it is
    /// stored and reported (in snapshots and in ``Cookie/description``) so a store or an `inspect`
    /// command can show it.
    public enum SameSite: String, Sendable, Hashable, Codable, CaseIterable {
        case strict = "Strict"
        case lax = "Lax"
        case none = "None"
    }

    /// The cookie name.
    public var name: String
    /// The cookie value: a secret, never shown in descriptions.
    public var value: String
    /// The canonical (lowercase) domain the cookie belongs to, without a leading dot.
    public var domain: String
    /// Whether the cookie is sent only to exactly ``domain`` (no `Domain` attribute was given).
    public var isHostOnly: Bool
    /// The path the cookie applies to (RFC 6265 §5.1.4 path-match).
    public var path: String
    /// When the cookie expires; `nil` for a session cookie, which lives until ``CookieJar/removeAll()``.
    public var expiresAt: Date?
    /// When the cookie was first stored; kept when a newer `Set-Cookie` replaces it.
    public var createdAt: Date
    /// When the cookie was last sent or stored.
    public var lastAccessedAt: Date
    /// Whether the cookie is sent only over a secure context.
    public var isSecure: Bool
    /// Whether the cookie was marked `HttpOnly`. This client is an HTTP client, so it sends such cookies.
    public var isHTTPOnly: Bool
    /// The `SameSite` attribute, or `nil` when the server gave none (or an unknown value).
    public var sameSite: SameSite?

    /// Creates a cookie; ``CookieJar`` normally builds them from `Set-Cookie` lines.
    public init(
        name: String,
        value: String,
        domain: String,
        isHostOnly: Bool,
        path: String,
        expiresAt: Date?,
        createdAt: Date,
        lastAccessedAt: Date,
        isSecure: Bool,
        isHTTPOnly: Bool,
        sameSite: SameSite?
    ) {
        self.name = name
        self.value = value
        self.domain = domain
        self.isHostOnly = isHostOnly
        self.path = path
        self.expiresAt = expiresAt
        self.createdAt = createdAt
        self.lastAccessedAt = lastAccessedAt
        self.isSecure = isSecure
        self.isHTTPOnly = isHTTPOnly
        self.sameSite = sameSite
    }

    /// Whether the cookie outlives the session (it had `Max-Age` or `Expires`).
    public var isPersistent: Bool { expiresAt != nil }

    /// Whether the cookie has expired at `now`.
    public func isExpired(at now: Date) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt <= now
    }
}

// MARK: - Description

extension Cookie: CustomStringConvertible {
    /// The name and scope of the cookie; the value always reads `<redacted>`.
    public var description: String {
        var parts = ["\(name)=<redacted>", "domain=\(isHostOnly ? "" : ".")\(domain)", "path=\(path)"]
        if let expiresAt { parts.append("expires=\(HTTPDate.format(expiresAt))") }
        if isSecure { parts.append("secure") }
        if isHTTPOnly { parts.append("httponly") }
        if let sameSite { parts.append("samesite=\(sameSite.rawValue)") }
        return "Cookie(\(parts.joined(separator: "; ")))"
    }
}
