import FoundationEssentials

/// What ``Session/prepare(_:replaying:)`` did to one request, for ``Session/process(response:finalURL:for:)``.
///
/// The loader keeps the ticket with the request it sent and hands it back with the response. It holds
/// no secret.
public struct SessionTicket: Sendable, Hashable {
    /// The credential a request carried.
    public enum Credential: Sendable, Hashable {
        /// `Authorization: Bearer …` (and no cookies).
        case bearer
        /// The jar's cookies, if any (an established session, a guest, or a URL outside the instance).
        case cookies
    }

    /// The request URL.
    public let url: URL
    /// 0 for the first attempt (and a replay that carried a session another request had renewed), 1 for
    /// the replay with a fresh token.
    public let attempt: Int
    /// What the request carried.
    public let credential: Credential
    /// Whether the provider gave no token (guest access).
    public let isGuest: Bool
    /// Whether the URL belongs to the instance; other origins never receive the bearer token.
    public let isInstanceRequest: Bool
    /// Which token the session held when the request was prepared; a refresh increments it.
    let tokenGeneration: Int
    /// How many times the session had been signed out (``Session/signOutCount``) when the request's
    /// work began.
    public let signOutCount: Int
    /// How many sessions the instance had opened for this one when the request was prepared.
    var sessionsOpened = 0
    /// Whether the request, refused once, carried a session another request had opened since.
    var borrowedRenewal = false
    /// Set when this request opens a session: the others wait for its answer.
    var opening: Int?
}
