import FoundationEssentials
import HTTPCore

/// A credential that starts a web session on the instance: `Authorization: <type> <value>`.
///
/// The value is a secret: ``description`` never shows it.
public struct AuthorizationToken: Sendable, Hashable {
    /// The authentication scheme of a token (RFC 9110 §11.1). Only `Bearer` (RFC 6750) is used today.
    public struct TokenType: RawRepresentable, Sendable, Hashable {
        /// The scheme name as sent, such as `Bearer`.
        public let rawValue: String

        /// Creates a scheme from its name, such as `Bearer`.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// An OAuth 2.0 bearer token (RFC 6750).
        public static let bearer = TokenType(rawValue: "Bearer")
    }

    /// The token itself: a secret.
    public var value: String
    /// The authentication scheme.
    public var type: TokenType
    /// When the token stops being valid, if known.
    public var expiresAt: Date?

    /// Creates a token.
    public init(value: String, type: TokenType = .bearer, expiresAt: Date? = nil) {
        self.value = value
        self.type = type
        self.expiresAt = expiresAt
    }

    /// Why `text`, read from a token command or file and trimmed, cannot be sent as a token, or `nil`
    /// when it can: a token is one word of visible ASCII (RFC 6750 §2.1), so several lines, a space,
    /// a control or a non-ASCII character mean something else was printed (a prompt, a message). The
    /// reason never quotes the text, which may hold the secret.
    public static func problem(with text: String) -> String? {
        if text.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) {
            return "it is more than one line, where a token is one word"
        }
        if text.utf8.contains(where: { $0 == 0x20 || $0 == 0x09 }) {
            return "it holds a space, where a token is one word"
        }
        if text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return "it holds a control character" }
        if text.utf8.contains(where: { $0 >= 0x80 }) { return "it holds a character that is not ASCII" }
        return nil
    }

    /// The `Authorization` field value, such as `Bearer mF_9.B5f-4.1JqM`.
    public var authorizationHeaderValue: String {
        "\(type.rawValue) \(value)"
    }

    /// Whether the token has expired at `now`, or will within `leeway` seconds.
    ///
    /// A token with no known expiry never expires by this test.
    public func isExpired(at now: Date, leeway: TimeInterval = 0) -> Bool {
        guard let expiresAt else { return false }
        return expiresAt.timeIntervalSince(now) <= leeway
    }
}

// MARK: - Description

extension AuthorizationToken: CustomStringConvertible, CustomDebugStringConvertible {
    /// The scheme and expiry; the value always reads `<redacted>`.
    public var description: String {
        let expiry = expiresAt.map { ", expires \(HTTPDate.format($0))" } ?? ""
        return "AuthorizationToken(\(type.rawValue) <redacted>\(expiry))"
    }

    /// The same as ``description``: the value is never shown.
    public var debugDescription: String { description }
}
