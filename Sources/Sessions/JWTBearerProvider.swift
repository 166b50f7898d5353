import FoundationEssentials
import HTTPCore

/// Exchanges a signed JWT for an OAuth access token (RFC 7523 §2.1, the JWT bearer grant).
///
/// The JWT comes from a closure or another provider (for example a ``CommandTokenProvider`` that
/// signs one). It is posted to the token endpoint as
/// `grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer&assertion=<jwt>`; the JSON answer's
/// `access_token`, `token_type` and `expires_in` (RFC 6749 §5.1) become the token, cached until
/// shortly before it expires. A forced refresh asks for a new JWT and exchanges it again. Concurrent
/// callers share one exchange.
///
/// ```swift
/// let provider = JWTBearerProvider(
///     configuration: .init(
///         tokenEndpoint: URL(string: "https://instance.example.com/oauth_token.do")!,
///         clientAuthentication: .basic(clientID: "app", clientSecret: secret)),
///     assertionProvider: CommandTokenProvider(command: "sign-jwt --audience instance"),
///     exchange: { request in try await transport.exchange(request) })
/// ```
public struct JWTBearerProvider: AuthorizationProviding {
    /// Produces the JWT to exchange; `forceRefresh` asks for a new one rather than a cached one.
    public typealias AssertionSource = @Sendable (_ forceRefresh: Bool) async throws -> String

    /// How the client authenticates to the token endpoint (RFC 6749 §2.3.1).
    public enum ClientAuthentication: Sendable, Hashable {
        /// No client authentication: the JWT alone identifies the client.
        case none
        /// `Authorization: Basic` with the form-encoded client id and secret.
        case basic(clientID: String, clientSecret: String)
        /// `client_id` (and `client_secret` when given) as form fields of the request body.
        case formFields(clientID: String, clientSecret: String?)
    }

    /// Where and how to exchange the JWT.
    public struct Configuration: Sendable, Hashable {
        /// The token endpoint URL.
        public var tokenEndpoint: URL
        /// How the client authenticates.
        public var clientAuthentication: ClientAuthentication
        /// The `scope` form field, if any.
        public var scope: String?
        /// A token expiring within this many seconds is renewed before use.
        public var expiryLeeway: TimeInterval

        /// Creates a configuration.
        public init(
            tokenEndpoint: URL,
            clientAuthentication: ClientAuthentication = .none,
            scope: String? = nil,
            expiryLeeway: TimeInterval = 30
        ) {
            self.tokenEndpoint = tokenEndpoint
            self.clientAuthentication = clientAuthentication
            self.scope = scope
            self.expiryLeeway = expiryLeeway
        }
    }

    /// The grant type of RFC 7523 §2.1.
    public static let grantType = "urn:ietf:params:oauth:grant-type:jwt-bearer"

    /// The endpoint and client authentication.
    public let configuration: Configuration
    private let assertion: AssertionSource
    private let exchange: HTTPExchange
    private let clock: @Sendable () -> Date
    private let cache: TokenCache

    /// Creates a provider that exchanges the JWTs `assertion` produces, sending requests with `exchange`.
    public init(configuration: Configuration, assertion: @escaping AssertionSource, exchange: @escaping HTTPExchange) {
        self.init(configuration: configuration, assertion: assertion, exchange: exchange, clock: { Date() })
    }

    /// Creates a provider whose JWT is the token of another provider, such as a command that signs one.
    public init(
        configuration: Configuration,
        assertionProvider: any AuthorizationProviding,
        exchange: @escaping HTTPExchange
    ) {
        self.init(
            configuration: configuration,
            assertion: { forceRefresh in
                guard let jwt = try await assertionProvider.token(forceRefresh: forceRefresh) else {
                    throw AuthorizationError(
                        code: .invalidTokenResponse,
                        message: "The JWT provider for \(configuration.tokenEndpoint.absoluteString) returned no JWT."
                    )
                }
                return jwt.value
            },
            exchange: exchange
        )
    }

    init(
        configuration: Configuration,
        assertion: @escaping AssertionSource,
        exchange: @escaping HTTPExchange,
        clock: @escaping @Sendable () -> Date
    ) {
        self.configuration = configuration
        self.assertion = assertion
        self.exchange = exchange
        self.clock = clock
        self.cache = TokenCache(leeway: configuration.expiryLeeway, clock: clock)
    }

    /// The cached access token while it is valid, else a fresh one from the token endpoint.
    ///
    /// - Throws: the assertion source's error, or ``AuthorizationError`` with code
    ///   `tokenEndpointRejected` (an OAuth error answer), `invalidTokenResponse` or `tokenEndpointUnreachable`.
    public func token(forceRefresh: Bool) async throws -> AuthorizationToken? {
        let (configuration, assertion, exchange, clock) = (configuration, assertion, exchange, clock)
        return try await cache.token(forceRefresh: forceRefresh) { forceRefresh in
            let jwt = try await assertion(forceRefresh)
            let request = Self.makeRequest(configuration: configuration, assertion: jwt)
            let head: HTTPResponseHead
            let body: Data
            do {
                (head, body) = try await exchange(request)
            } catch {
                throw AuthorizationError(
                    code: .tokenEndpointUnreachable,
                    message: "The token endpoint \(configuration.tokenEndpoint.absoluteString) could not be reached.",
                    cause: error
                )
            }
            return try Self.parseResponse(head: head, body: body, endpoint: configuration.tokenEndpoint, now: clock())
        }
    }

    /// The `sub` claim of the JWT the exchange would send (``JWTClaims/subject(of:)``): who the
    /// instance will take the user to be. The assertion source runs as for an exchange, so a source
    /// that caches its JWT (a ``CommandTokenProvider``) hands the same one to the next exchange.
    ///
    /// - Returns: the subject, or `nil` when the JWT has none.
    /// - Throws: the assertion source's error.
    public func assertionSubject() async throws -> String? {
        JWTClaims.subject(of: try await assertion(false))
    }

    /// Forgets the cached access token.
    public func removeCachedToken() async {
        await cache.clear()
    }

    // MARK: - Request

    static func makeRequest(configuration: Configuration, assertion: String) -> HTTPRequest {
        var fields = [("grant_type", grantType), ("assertion", assertion)]
        var headers: HTTPHeaders = [
            "Content-Type": "application/x-www-form-urlencoded",
            "Accept": "application/json",
        ]
        switch configuration.clientAuthentication {
        case .none:
            break
        case .basic(let clientID, let clientSecret):
            // RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined and base64-encoded.
            let credentials = FormEncoding.encode(clientID) + ":" + FormEncoding.encode(clientSecret)
            headers["Authorization"] = "Basic " + Data(credentials.utf8).base64EncodedString()
        case .formFields(let clientID, let clientSecret):
            fields.append(("client_id", clientID))
            if let clientSecret { fields.append(("client_secret", clientSecret)) }
        }
        if let scope = configuration.scope { fields.append(("scope", scope)) }
        let body = fields.map { FormEncoding.encode($0.0) + "=" + FormEncoding.encode($0.1) }.joined(separator: "&")
        return HTTPRequest(method: .post, url: configuration.tokenEndpoint, headers: headers, body: Data(body.utf8))
    }

    // MARK: - Response (RFC 6749 §5.1, §5.2)

    static func parseResponse(head: HTTPResponseHead, body: Data, endpoint: URL, now: Date) throws -> AuthorizationToken
    {
        let name = endpoint.absoluteString
        let json: [String: JSONValue]? =
            if case .object(let members)? = try? JSONValue.parse(body) { members } else { nil }
        guard (200...299).contains(head.status) else {
            if let error = json?["error"]?.stringValue {
                let detail = json?["error_description"]?.stringValue.map { " (\($0))" } ?? ""
                throw AuthorizationError(
                    code: .tokenEndpointRejected,
                    message: "The token endpoint \(name) refused the JWT assertion with HTTP status \(head.status): "
                        + "\(error)\(detail)."
                )
            }
            throw AuthorizationError(
                code: .invalidTokenResponse,
                message: "The token endpoint \(name) answered with HTTP status \(head.status) and no OAuth error."
            )
        }
        guard let json else {
            throw AuthorizationError(
                code: .invalidTokenResponse,
                message: "The token endpoint \(name) answered with a body that is not a JSON object."
            )
        }
        guard let accessToken = json["access_token"]?.stringValue, !accessToken.isEmpty else {
            throw AuthorizationError(
                code: .invalidTokenResponse,
                message: "The token endpoint \(name) answered without an access_token."
            )
        }
        // RFC 6749 §7.1: the client must understand the token type; only bearer tokens are used here.
        let tokenType = json["token_type"]?.stringValue ?? "Bearer"
        guard tokenType.caseInsensitiveEquals("Bearer") else {
            throw AuthorizationError(
                code: .invalidTokenResponse,
                message: "The token endpoint \(name) issued a token of unsupported type \"\(tokenType)\"; "
                    + "only Bearer is supported."
            )
        }
        // Some servers send expires_in as a string; both forms are accepted (and, as Foundation's
        // NSNumber read them, true and false as 1 and 0).
        let field = json["expires_in"]
        let expiresIn: Double? =
            switch field {
            case .string(let text)?: Double(text)
            case .bool(let flag)?: flag ? 1 : 0
            default: field?.doubleValue
            }
        return AuthorizationToken(
            value: accessToken,
            type: .bearer,
            expiresAt: expiresIn.map { now.addingTimeInterval($0) }
        )
    }
}

// MARK: - Descriptions

extension JWTBearerProvider: CustomStringConvertible {
    /// The token endpoint and client authentication mode; never a secret.
    public var description: String {
        "JWTBearerProvider(tokenEndpoint: \(configuration.tokenEndpoint.absoluteString), "
            + "clientAuthentication: \(configuration.clientAuthentication))"
    }
}

extension JWTBearerProvider.ClientAuthentication: CustomStringConvertible, CustomDebugStringConvertible {
    /// The mode and client id; the secret always reads `<redacted>`.
    public var description: String {
        switch self {
        case .none: "none"
        case .basic(let clientID, _): "basic(clientID: \(clientID), clientSecret: <redacted>)"
        case .formFields(let clientID, let secret):
            "formFields(clientID: \(clientID), clientSecret: \(secret == nil ? "none" : "<redacted>"))"
        }
    }

    /// The same as ``description``.
    public var debugDescription: String { description }
}
