/// Hands out the token that starts a web session on the instance.
///
/// `nil` means guest: requests carry no `Authorization` field. Implementations cache their token and
/// return it until it expires; `forceRefresh` asks for a new one because the instance refused the
/// session (it redirected to its login page). ``Session`` calls the provider from many tasks at once
/// and makes sure concurrent refreshes share one call.
///
/// Implementations: ``StaticTokenProvider``, ``GuestProvider``, ``CommandTokenProvider``,
/// ``FileTokenProvider``, ``JWTBearerProvider``.
public protocol AuthorizationProviding: Sendable {
    /// The token to start a session with, or `nil` for guest access.
    ///
    /// - Parameter forceRefresh: `true` to bypass any cached token.
    /// - Throws: ``AuthorizationError`` when no token can be obtained.
    func token(forceRefresh: Bool) async throws -> AuthorizationToken?

    /// Forgets any cached token, as logout does. The default does nothing.
    func removeCachedToken() async
}

extension AuthorizationProviding {
    /// Does nothing: the provider holds no cache.
    public func removeCachedToken() async {}

    /// The completion-handler form of ``token(forceRefresh:)``, for callers outside Swift concurrency.
    ///
    /// `completion` is called once, on an arbitrary thread.
    public func token(
        forceRefresh: Bool,
        completion: @escaping @Sendable (Result<AuthorizationToken?, any Error>) -> Void
    ) {
        // A bridge from a synchronous caller has no task to run in: it needs a task of its own.
        Task {
            do {
                completion(.success(try await token(forceRefresh: forceRefresh)))
            } catch {
                completion(.failure(error))
            }
        }
    }
}
