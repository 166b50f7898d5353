/// The lifecycle of one web session, as pure state and decisions (no I/O), shared by every request
/// of a ``Session``.
///
/// ```
///              bearer response with session cookies
/// noSession ─────────────────────────────────────────▶ established
///                                                   ▲       │ login redirect or 401
///              bearer response with session cookies │       ▼
///                                                  reauthenticating
///
/// logout, from any state ─▶ noSession
/// ```
///
/// Requests carry the bearer token until the instance has answered one with session cookies; from
/// then on they carry the cookies and no bearer. A rejection (a login redirect, or an expiry status
/// such as 401) moves the session to `reauthenticating` and asks for the request to be replayed,
/// once, with a fresh token; a rejection of that replay is a failure. Each request's own history
/// lives in its ``SessionTicket``.
struct SessionStateMachine: Sendable, Hashable {
    enum State: Sendable, Hashable {
        /// No session yet (or after logout): requests carry the bearer token.
        case noSession
        /// The instance answered a bearer request with session cookies: requests carry the cookies.
        case established
        /// A rejection was seen: requests carry a fresh bearer token until a session is established.
        case reauthenticating
    }

    /// What a request about to be sent carries.
    enum RequestAction: Sendable, Hashable {
        /// The bearer token (a fresh one if `forceRefresh`); a guest provider's `nil` sends the cookies instead.
        case sendBearer(forceRefresh: Bool)
        /// The session cookies, no bearer.
        case sendCookies
    }

    /// What the loader does with a response.
    enum ResponseAction: Sendable, Hashable {
        case proceed
        case replayWithFreshToken
        case fail(Failure)
    }

    enum Failure: Sendable, Hashable {
        /// The replay, made with a fresh token, was rejected again.
        case freshTokenRefused
        /// A guest request was rejected: there is no token to offer.
        case guestRedirectedToLogin
    }

    /// How a request was sent, as its ticket remembers it.
    struct SentRequest: Sendable, Hashable {
        var isReplay: Bool
        var carriedBearer: Bool
        var isGuest: Bool
    }

    private(set) var state: State = .noSession

    // MARK: - Events

    /// A request to the instance is about to be sent.
    ///
    /// - Parameters:
    ///   - isReplay: the request is the replay after a rejection.
    ///   - cookiesAvailable: the jar holds cookies for the request's URL.
    ///   - renewedSinceRejection: for a replay, another request opened a new session since this one
    ///     was rejected; the replay carries its cookies instead of asking for yet another token.
    func requestWillBeSent(isReplay: Bool, cookiesAvailable: Bool, renewedSinceRejection: Bool = false)
        -> RequestAction
    {
        if isReplay {
            return renewedSinceRejection && state == .established && cookiesAvailable
                ? .sendCookies : .sendBearer(forceRefresh: true)
        }
        switch state {
        case .established where cookiesAvailable: return .sendCookies
        case .established, .noSession, .reauthenticating: return .sendBearer(forceRefresh: false)
        }
    }

    /// The response to a request to the instance arrived (its cookies are already stored).
    ///
    /// - Parameters:
    ///   - sent: how the request was sent.
    ///   - sessionRejected: the policy recognised the login page or an expiry status.
    ///   - sessionCookiesPresent: the jar now holds cookies for the instance.
    mutating func responseReceived(
        sent: SentRequest,
        sessionRejected: Bool,
        sessionCookiesPresent: Bool
    ) -> ResponseAction {
        if sessionRejected {
            if sent.isGuest { return .fail(.guestRedirectedToLogin) }
            // At most one re-authentication per request.
            if sent.isReplay { return .fail(.freshTokenRefused) }
            state = .reauthenticating
            return .replayWithFreshToken
        }
        if sent.carriedBearer && sessionCookiesPresent { state = .established }
        return .proceed
    }

    /// Cookies of an earlier session were restored: requests carry them, as after a bearer response.
    mutating func sessionResumed() {
        state = .established
    }

    /// The user logged out: the next request starts a new session.
    mutating func loggedOut() {
        state = .noSession
    }
}
