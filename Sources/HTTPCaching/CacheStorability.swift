/// Whether a response may be stored, and if not why (RFC 9111 §3); see
/// ``HTTPCachePolicy/storability(request:response:directives:credentialsArePartitioned:)``.
public enum CacheStorability: Sendable, Hashable {
    /// The response may be stored.
    case storable
    /// The response must not be stored, for the given reason.
    case notStorable(Reason)

    /// Why a response is not stored; the raw value is a short phrase for logs.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// The request method is not GET. HEAD responses carry no content and are not stored.
        case methodNotCacheable = "request method is not GET"
        /// The status is informational (1xx), not final.
        case nonFinalStatus = "status is not final"
        /// 206 Partial Content that cannot be kept as a part (§3.3): not one range of a known length,
        /// or without a strong validator to combine it under (§3.4); see ``HTTPCachePolicy/storedPart(of:)``.
        case partialContent = "partial content without one range of known length and a strong ETag is not stored"
        /// 304 Not Modified updates stored responses (§4.3.4) and is never stored itself.
        case notModified = "not modified (304) responses update stored responses instead"
        /// `must-understand` is present and the status code is not one this cache understands (§5.2.2.3).
        case statusNotUnderstood = "must-understand with a status this cache does not understand"
        /// The request carries `Cache-Control: no-store` (§5.2.1.5).
        case requestNoStore = "request has no-store"
        /// The response carries `Cache-Control: no-store` (§5.2.2.5).
        case responseNoStore = "response has no-store"
        /// The request carries `Authorization` and the response lacks `public`, `must-revalidate`
        /// and `s-maxage` (§3.5).
        case authorizationWithoutPermission = "request has Authorization and response does not allow storing it"
        /// `Vary: *`: the response could never be selected again (§4.1).
        case varyAsterisk = "response has Vary: *"
        /// No explicit freshness, no `public`, no `private`, and a status that is not heuristically cacheable (§3).
        case noCachingPermission = "response has no explicit freshness and its status is not heuristically cacheable"
    }
}
