import FoundationEssentials
import HTTPCore

/// Sends one request and returns the response head and body.
///
/// The module makes HTTP calls of its own only to exchange a JWT for an access token
/// (``JWTBearerProvider``). It does not depend on a transport: the caller passes this closure,
/// usually a thin wrapper around its transport. The closure must not apply a ``Session`` to the
/// request, and must not follow redirects.
public typealias HTTPExchange = @Sendable (HTTPRequest) async throws -> (HTTPResponseHead, Data)
