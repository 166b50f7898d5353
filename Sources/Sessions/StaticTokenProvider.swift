import FoundationEssentials

/// An OAuth access token obtained elsewhere, used as is.
///
/// A forced refresh returns the same token: the instance usually redirects to its login page because
/// its *session cookies* expired, and the same still-valid token starts a new session. If the token
/// itself is no longer accepted, the replay is redirected again and ``Session`` fails with
/// ``SessionError/Code/freshTokenRefused``. A token whose known expiry has passed fails at once with
/// ``AuthorizationError/Code/tokenExpired``, since nothing here can renew it.
public struct StaticTokenProvider: AuthorizationProviding {
    /// The token handed out.
    public let token: AuthorizationToken

    /// Creates a provider for a token.
    public init(token: AuthorizationToken) {
        self.token = token
    }

    /// Creates a provider for a bearer access token with no known expiry.
    public init(accessToken: String) {
        self.token = AuthorizationToken(value: accessToken)
    }

    /// The configured token, whether or not `forceRefresh` is set.
    ///
    /// - Throws: ``AuthorizationError`` with code `tokenExpired` once its expiry has passed.
    public func token(forceRefresh: Bool) async throws -> AuthorizationToken? {
        if token.isExpired(at: Date()) {
            throw AuthorizationError(
                code: .tokenExpired,
                message: "The configured access token expired at \(token.expiresAt.map(String.init(describing:)) ?? "")"
                    + " and cannot be renewed; configure a new token or a refreshable provider."
            )
        }
        return token
    }
}
