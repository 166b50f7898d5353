/// Guest access: no token, so requests carry no `Authorization` field.
public struct GuestProvider: AuthorizationProviding {
    /// Creates a guest provider.
    public init() {}

    /// Always `nil`.
    public func token(forceRefresh: Bool) async throws -> AuthorizationToken? {
        nil
    }
}
