import FoundationEssentials
import Synchronization
import HTTPCore

/// The web session of one identity on one instance: its token, its cookies, and the decisions of
/// ``SessionStateMachine``.
///
/// The loader calls ``prepare(_:replaying:)`` before it sends a request and
/// ``process(response:finalURL:for:)`` when the response head arrives, or
/// ``requestEnded(withoutResponse:)`` when none does:
///
/// ```swift
/// var request = HTTPRequest(url: try InstanceURL.resolve("nav/home", against: instanceURL))
/// var ticket = try await session.prepare(&request)
/// while true {
///     let response: TransportResponse
///     do {
///         response = try await transport.send(request)
///     } catch {
///         await session.requestEnded(withoutResponse: ticket)
///         throw error
///     }
///     switch await session.process(response: response.head, for: ticket) {
///     case .proceed: return response
///     case .replayWithFreshToken: ticket = try await session.prepare(&request, replaying: ticket)
///     case .fail(let error): throw error
///     }
/// }
/// ```
///
/// The first requests carry `Authorization: Bearer <token>` and no cookies; once the instance
/// answers one with session cookies, requests carry the cookies and no bearer. A redirect to
/// the login page or an expiry status such as 401 (see ``SessionPolicy``) asks for one replay
/// with a fresh token; a second one for the same request fails with
/// ``SessionError/Code/freshTokenRefused``. Concurrent requests that need a fresh token share
/// one provider call, and a request whose token was already replaced by another request's
/// refresh uses that new token instead of refreshing again.
///
/// One bearer request opens a session: while it waits for its answer, other requests to the instance
/// that would carry the bearer wait too, and then carry the cookies it brought (a run of eight pages
/// at once opened eight sessions on the instance before). When the instance answers a bearer request
/// without opening a session, bearer requests go at once from then on. So a ticket whose request gets
/// no response must be handed to ``requestEnded(withoutResponse:)``.
///
/// Requests to other origins (a CDN) never carry the bearer token; they carry the jar's cookies that
/// domain-match them, and their responses never count as login redirects.
public actor Session {
    /// What the session is for.
    public struct Configuration: Sendable, Hashable {
        /// The instance: its origin receives the bearer token.
        public var instanceURL: URL
        /// Who the session acts for; names the store partition.
        public var identity: SessionIdentity
        /// How login redirects are recognised.
        public var policy: SessionPolicy
        /// A token expiring within this many seconds is renewed before use.
        public var tokenExpiryLeeway: TimeInterval

        /// Creates a configuration.
        public init(
            instanceURL: URL,
            identity: SessionIdentity,
            policy: SessionPolicy = SessionPolicy(),
            tokenExpiryLeeway: TimeInterval = 30
        ) {
            self.instanceURL = instanceURL
            self.identity = identity
            self.policy = policy
            self.tokenExpiryLeeway = tokenExpiryLeeway
        }
    }

    /// The configuration.
    public nonisolated let configuration: Configuration
    /// The session's cookies, for a store to snapshot and restore.
    public nonisolated let cookieJar: CookieJar
    /// Where tokens come from.
    public nonisolated let provider: any AuthorizationProviding
    /// The store partition of this session's identity (see ``SessionIdentity``).
    public nonisolated var partitionName: String { configuration.identity.partitionName }

    /// Counts ``logout()`` calls (``signOutCount``): changed only by ``logout()``, on the actor, and
    /// read without waiting for it.
    private let signOutCounter = Atomic<Int>(0)
    private var machine = SessionStateMachine()
    /// The token in use; meaningful once `hasToken` is set (`nil` then means guest).
    private var currentToken: AuthorizationToken?
    private var hasToken = false
    /// The generation of `currentToken`; each provider call gets the next number.
    private var tokenGeneration = 0
    private var generationCounter = 0
    private var refresh: (call: SharedCall<AuthorizationToken?>, generation: Int)?
    /// How many times a bearer request opened a session (its start and each renewal).
    private var sessionsOpened = 0
    private var opening = Opening.awaited
    private var openingCounter = 0
    /// Requests waiting for the request that opens the session, by number.
    private nonisolated let waitingForOpening = Mutex<[Int: CheckedContinuation<Void, Never>]>([:])
    private var waiterCounter = 0

    /// Whether a bearer request to the instance goes at once or waits for another one's answer.
    private enum Opening {
        /// The next bearer request opens the session; the others wait for its answer.
        case awaited
        /// The request with this number is opening the session.
        case inFlight(Int)
        /// The instance answered a bearer request without opening a session: bearer requests go at once.
        case unneeded
    }
    private let clock: @Sendable () -> Date
    private let established: (@Sendable () -> Void)?
    private let cookiesChanged: (@Sendable () -> Void)?

    /// Creates a session; nothing is sent until the first ``prepare(_:replaying:)``.
    ///
    /// When `cookieJar` already holds cookies for the instance (restored from a ``CookieJar/Snapshot``),
    /// the session starts established: its first requests carry those cookies instead of the bearer.
    ///
    /// - Parameters:
    ///   - established: called, on the session's executor, each time the instance answers a bearer
    ///     request with session cookies while the session was not established (its start, and each
    ///     renewal), so that a caller that keeps the cookies can save them then.
    ///   - cookiesChanged: called, on the session's executor, each time an answer of the instance to an
    ///     established session sets or removes a cookie (a rotated session id, a longer expiry), so
    ///     that a caller that keeps the cookies can save them again.
    public init(
        configuration: Configuration,
        provider: any AuthorizationProviding,
        cookieJar: CookieJar = CookieJar(),
        established: (@Sendable () -> Void)? = nil,
        cookiesChanged: (@Sendable () -> Void)? = nil
    ) {
        self.init(
            configuration: configuration, provider: provider, cookieJar: cookieJar, established: established,
            cookiesChanged: cookiesChanged, clock: { Date() })
    }

    init(
        configuration: Configuration,
        provider: any AuthorizationProviding,
        cookieJar: CookieJar,
        established: (@Sendable () -> Void)? = nil,
        cookiesChanged: (@Sendable () -> Void)? = nil,
        clock: @escaping @Sendable () -> Date
    ) {
        self.configuration = configuration
        self.provider = provider
        self.cookieJar = cookieJar
        self.established = established
        self.cookiesChanged = cookiesChanged
        self.clock = clock
        // A jar that already holds the instance's cookies (restored from an earlier run) carries on
        // that session: requests send the cookies, and a login redirect renews it with a fresh token.
        if cookieJar.containsCookies(for: configuration.instanceURL, now: clock()) {
            machine.sessionResumed()
        }
    }

    /// How many times the session has been signed out. Work that begins under one count and would
    /// send a request or take a response under a later one is refused (``SessionError/Code/signedOut``):
    /// pass the count read when the work began to ``prepare(_:replaying:signOutCount:)``.
    public nonisolated var signOutCount: Int { signOutCounter.load(ordering: .acquiring) }

    /// The state of the session (for tests and diagnostics).
    var state: SessionStateMachine.State { machine.state }

    // MARK: - Requests

    /// Sets the request's `Authorization` or `Cookie` field for the session.
    ///
    /// The session owns both fields: any value already there is replaced or removed.
    ///
    /// - Parameters:
    ///   - request: the request about to be sent.
    ///   - previous: the ticket of the attempt that ``process(response:finalURL:for:)`` asked to replay.
    ///   - signOutCount: ``signOutCount`` as it was when the request's work began (a background
    ///     revalidation: when it was scheduled); `nil` for now.
    /// - Returns: the ticket to hand to ``process(response:finalURL:for:)`` with the response.
    /// - Throws: ``SessionError`` with code `tokenUnavailable` when the provider fails, `signedOut` when
    ///   the session was signed out since `signOutCount` (or since `previous` was prepared).
    public func prepare(
        _ request: inout HTTPRequest,
        replaying previous: SessionTicket? = nil,
        signOutCount: Int? = nil
    ) async throws(SessionError) -> SessionTicket {
        request.headers.remove("Authorization")
        request.headers.remove("Cookie")
        let url = request.url
        if let begun = previous?.signOutCount ?? signOutCount, begun != self.signOutCount {
            throw SessionError(
                code: .signedOut,
                message: "The user signed out after the request for \(Self.name(of: url)) was begun; it was not sent.")
        }
        // Read before any wait: a sign-out while the provider is asked leaves the ticket behind.
        let begunUnder = self.signOutCount
        let attempt = previous.map { $0.attempt + 1 } ?? 0
        guard isInstance(url) else {
            attachCookies(to: &request)
            return SessionTicket(
                url: url,
                attempt: attempt,
                credential: .cookies,
                isGuest: false,
                isInstanceRequest: false,
                tokenGeneration: tokenGeneration,
                signOutCount: begunUnder
            )
        }
        var action: SessionStateMachine.RequestAction
        var opens: Int?
        // A replay may carry the cookies of a session another request opened since it was refused, once;
        // that does not count as its own re-authentication, which a second refusal then asks for.
        var borrows: Bool { previous.map { !$0.borrowedRenewal && sessionsOpened > $0.sessionsOpened } ?? false }
        deciding: while true {
            let cookiesAvailable = cookieJar.containsCookies(for: url, now: clock())
            action = machine.requestWillBeSent(
                isReplay: previous != nil, cookiesAvailable: cookiesAvailable, renewedSinceRejection: borrows)
            guard case .sendBearer = action else { break deciding }
            switch opening {
            case .inFlight where !Task.isCancelled:
                await waitForOpening()
                guard begunUnder == self.signOutCount else {
                    throw SessionError(
                        code: .signedOut,
                        message: "The user signed out while the request for \(Self.name(of: url)) waited for the "
                            + "session to open; it was not sent.")
                }
            case .awaited:
                openingCounter += 1
                opens = openingCounter
                opening = .inFlight(openingCounter)
                break deciding
            case .inFlight, .unneeded:
                break deciding
            }
        }
        switch action {
        case .sendCookies:
            attachCookies(to: &request)
            let borrowed = previous != nil
            return SessionTicket(
                url: url,
                attempt: borrowed ? previous?.attempt ?? 0 : attempt,
                credential: .cookies,
                isGuest: false,
                isInstanceRequest: true,
                tokenGeneration: tokenGeneration,
                signOutCount: begunUnder,
                sessionsOpened: sessionsOpened,
                borrowedRenewal: borrowed
            )
        case .sendBearer(let forceRefresh):
            let token: AuthorizationToken?
            let generation: Int
            do {
                (token, generation) = try await obtainToken(
                    forceRefresh: forceRefresh,
                    replacing: previous?.tokenGeneration,
                    for: url
                )
            } catch {
                endOpening(opens, answered: false)
                throw error
            }
            guard begunUnder == self.signOutCount else {
                endOpening(opens, answered: false)
                throw SessionError(
                    code: .signedOut,
                    message: "The user signed out while a token for the request for \(Self.name(of: url)) was "
                        + "asked for; it was not sent.")
            }
            if let token {
                request.headers["Authorization"] = token.authorizationHeaderValue
            } else {
                attachCookies(to: &request)
            }
            return SessionTicket(
                url: url,
                attempt: attempt,
                credential: token == nil ? .cookies : .bearer,
                isGuest: token == nil,
                isInstanceRequest: true,
                tokenGeneration: generation,
                signOutCount: begunUnder,
                sessionsOpened: sessionsOpened,
                borrowedRenewal: previous?.borrowedRenewal ?? false,
                opening: opens
            )
        }
    }

    /// Tells the session that the request `ticket` was prepared for got no response (the transport
    /// failed, it was cancelled, or it was never sent), so that the requests waiting for it to open the
    /// session go on, and the next one opens it.
    public func requestEnded(withoutResponse ticket: SessionTicket) {
        endOpening(ticket.opening, answered: false)
    }

    /// Stores the response's cookies and decides what the loader does next.
    ///
    /// - Parameters:
    ///   - response: the response head.
    ///   - finalURL: where the request ended up, when the transport followed redirects; `nil` otherwise.
    ///   - ticket: the ticket ``prepare(_:replaying:)`` returned for the request.
    public func process(response: HTTPResponseHead, finalURL: URL? = nil, for ticket: SessionTicket) -> SessionOutcome {
        guard ticket.signOutCount == self.signOutCount else {
            // Neither its cookies nor its answer may bring back the session that was signed out.
            return .fail(SessionError(
                code: .signedOut,
                message: "The user signed out while the request for \(Self.name(of: ticket.url)) was on its way; "
                    + "its response was dropped."))
        }
        let now = clock()
        let responseURL = finalURL ?? ticket.url
        let jarChanged = cookieJar.store(from: response, for: responseURL, now: now)
        guard ticket.isInstanceRequest else { return .proceed }
        let policy = configuration.policy
        let isLogin =
            policy.isLoginRedirect(response, for: responseURL)
            || (finalURL.map { policy.isLoginPage($0, for: ticket.url) } ?? false)
        let isExpiry = !isLogin && policy.isExpiryStatus(response)
        let refusal = isExpiry ? "answered with status \(response.status)" : "redirected to the login page"
        let sent = SessionStateMachine.SentRequest(
            isReplay: ticket.attempt > 0,
            carriedBearer: ticket.credential == .bearer,
            isGuest: ticket.isGuest
        )
        let wasEstablished = machine.state == .established
        let action = machine.responseReceived(
            sent: sent,
            sessionRejected: isLogin || isExpiry,
            sessionCookiesPresent: cookieJar.containsCookies(for: ticket.url, now: now)
        )
        if !wasEstablished, machine.state == .established {
            sessionsOpened += 1
            established?()
        } else if jarChanged, machine.state == .established {
            cookiesChanged?()
        }
        if action == .replayWithFreshToken, case .unneeded = opening {
            // The instance keeps sessions after all: the replays open one, one request first.
            opening = .awaited
        }
        endOpening(ticket.opening, answered: true)
        switch action {
        case .proceed:
            return .proceed
        case .replayWithFreshToken:
            return .replayWithFreshToken
        case .fail(.freshTokenRefused):
            return .fail(
                SessionError(
                    code: .freshTokenRefused,
                    message: "The instance refused a fresh token: the request for \(Self.name(of: ticket.url)) was "
                        + "\(refusal) again after re-authentication."
                )
            )
        case .fail(.guestRedirectedToLogin):
            return .fail(
                SessionError(
                    code: .guestRedirectedToLogin,
                    message: (isExpiry
                        ? "The instance refused the guest request for \(Self.name(of: ticket.url)) with status "
                            + "\(response.status)"
                        : "The instance redirected the guest request for \(Self.name(of: ticket.url)) to its "
                            + "login page")
                        + "; the page needs a signed-in user."
                )
            )
        }
    }

    /// Forgets the token (here and in the provider's cache) and removes every cookie.
    ///
    /// The store deletes the partition's private entries; the next request starts a new session.
    /// Requests prepared before, whose responses arrive after, are dropped (``SessionError/Code/signedOut``).
    public func logout() async {
        signOutCounter.wrappingAdd(1, ordering: .releasing)
        machine.loggedOut()
        opening = .awaited
        resumeWaitingForOpening()
        currentToken = nil
        hasToken = false
        refresh = nil
        cookieJar.removeAll()
        await provider.removeCachedToken()
    }

    // MARK: - Tokens

    /// The token to send and its generation, sharing one provider call between concurrent callers.
    ///
    /// - Parameter replaced: for a forced refresh, the generation of the token the instance refused; when a
    ///   newer token exists already, it is used without another refresh.
    private func obtainToken(
        forceRefresh: Bool,
        replacing replaced: Int?,
        for url: URL
    ) async throws(SessionError) -> (AuthorizationToken?, Int) {
        let call: SharedCall<AuthorizationToken?>
        let generation: Int
        if let refresh, !refresh.call.isAbandoned {
            (call, generation) = refresh
        } else if forceRefresh, hasToken, let replaced, tokenGeneration > replaced {
            return (currentToken, tokenGeneration)
        } else if !forceRefresh, hasToken,
            !(currentToken?.isExpired(at: clock(), leeway: configuration.tokenExpiryLeeway) ?? false)
        {
            return (currentToken, tokenGeneration)
        } else {
            generationCounter += 1
            generation = generationCounter
            let provider = provider
            // One call shared by every caller that arrives while it runs.
            call = SharedCall { try await provider.token(forceRefresh: forceRefresh) }
            refresh = (call, generation)
        }
        call.join()
        do {
            let token = try await call.value()
            if refresh?.generation == generation {
                currentToken = token
                hasToken = true
                tokenGeneration = generation
                refresh = nil
            }
            return (token, generation)
        } catch {
            if refresh?.generation == generation { refresh = nil }
            throw SessionError(
                code: .tokenUnavailable,
                message: "The authorization provider gave no token for the request for \(Self.name(of: url)).",
                cause: error
            )
        }
    }

    // MARK: - Opening a session

    /// Waits until the request opening the session has its answer (or none), or the task is cancelled.
    private func waitForOpening() async {
        waiterCounter += 1
        let number = waiterCounter
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                waitingForOpening.withLock { waiting in
                    if Task.isCancelled { continuation.resume() } else { waiting[number] = continuation }
                }
            }
        } onCancel: {
            waitingForOpening.withLock { $0.removeValue(forKey: number) }?.resume()
        }
    }

    /// The request `number` opened the session, or will not: the requests waiting for it go on. An
    /// answer that opened none (an instance that keeps no session, a guest's page) lets bearer requests
    /// go at once from then on; an opened session, a rejection or no answer has the next bearer request
    /// open one.
    private func endOpening(_ number: Int?, answered: Bool) {
        guard let number, case .inFlight(number) = opening else { return }
        opening = answered && machine.state == .noSession ? .unneeded : .awaited
        resumeWaitingForOpening()
    }

    private func resumeWaitingForOpening() {
        let waiting = waitingForOpening.withLock { waiting in
            defer { waiting = [:] }
            return waiting
        }
        for continuation in waiting.values { continuation.resume() }
    }

    // MARK: - Helpers

    private func attachCookies(to request: inout HTTPRequest) {
        if let header = cookieJar.cookieHeader(for: request.url, now: clock()) {
            request.headers["Cookie"] = header
        }
    }

    private func isInstance(_ url: URL) -> Bool {
        Self.origin(of: url) == Self.origin(of: configuration.instanceURL)
    }

    private static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(url.host(percentEncoded: true)?.lowercased() ?? ""):\(port)"
    }

    /// The URL without its query and fragment, which may carry secrets, for messages.
    static func name(of url: URL) -> String {
        var components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        components?.query = nil
        components?.fragment = nil
        components?.user = nil
        components?.password = nil
        return components?.string ?? url.path
    }
}
