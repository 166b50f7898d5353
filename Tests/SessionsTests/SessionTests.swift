import Foundation
import HTTPCore
import Synchronization
import Testing

@testable import Sessions

/// A session driven as the loader drives it, with a counting provider.
@Suite(.timeLimit(.minutes(5)))
struct SessionTests {
    /// Hands out `token-1`, `token-2`, … and records each call's `forceRefresh`.
    final class CountingProvider: AuthorizationProviding {
        let calls = Mutex<[Bool]>([])
        let cacheClears = Mutex(0)
        let failure: AuthorizationError?

        init(failure: AuthorizationError? = nil) {
            self.failure = failure
        }

        func token(forceRefresh: Bool) async throws -> AuthorizationToken? {
            let number = calls.withLock { calls in
                calls.append(forceRefresh)
                return calls.count
            }
            if let failure { throw failure }
            return AuthorizationToken(value: "token-\(number)")
        }

        func removeCachedToken() async {
            cacheClears.withLock { $0 += 1 }
        }

        var forcedCount: Int { calls.withLock { $0.filter { $0 }.count } }
        var callCount: Int { calls.withLock { $0.count } }
    }

    let instance = URL(string: "https://instance.example.com/")!
    let page = URL(string: "https://instance.example.com/nav/home?secret=q")!

    func makeSession(_ provider: any AuthorizationProviding, identity: SessionIdentity = .user(id: "alice")) -> Session
    {
        Session(configuration: .init(instanceURL: instance, identity: identity), provider: provider)
    }

    static let sessionCookies = HTTPResponseHead(
        status: 200,
        headers: ["Set-Cookie": "JSESSIONID=abc123; Path=/; Secure; HttpOnly"]
    )
    static let loginRedirect = HTTPResponseHead(status: 302, headers: ["Location": "/login.do?sysparm_goto=nav"])

    /// Sends the first bearer request and answers it with session cookies.
    func establish(_ session: Session) async throws {
        var request = HTTPRequest(url: page)
        let ticket = try await session.prepare(&request)
        #expect(session.cookieJar.count == 0)
        guard case .proceed = await session.process(response: Self.sessionCookies, for: ticket) else {
            Issue.record("the session was not established")
            return
        }
    }

    // MARK: - Bearer, then cookies

    @Test func theEstablishedCallbackRunsAtTheStartAndAtEachRenewalOnly() async throws {
        let count = Mutex(0)
        let session = Session(
            configuration: .init(instanceURL: instance, identity: .user(id: "alice")), provider: CountingProvider(),
            established: { count.withLock { $0 += 1 } })
        try await establish(session)
        #expect(count.withLock { $0 } == 1)
        // A request with the cookie, answered normally: no new session.
        var request = HTTPRequest(url: page)
        let ticket = try await session.prepare(&request)
        _ = await session.process(response: HTTPResponseHead(status: 200), for: ticket)
        #expect(count.withLock { $0 } == 1)
        // A login redirect, then the replay answered with new cookies: renewed.
        guard case .replayWithFreshToken = await session.process(response: Self.loginRedirect, for: ticket) else {
            Issue.record("expected a replay")
            return
        }
        let replay = try await session.prepare(&request, replaying: ticket)
        _ = await session.process(response: Self.sessionCookies, for: replay)
        #expect(count.withLock { $0 } == 2)
    }

    @Test func cookiesChangedRunsWhenTheInstanceChangesTheCookiesOfAnEstablishedSession() async throws {
        let established = Mutex(0)
        let changed = Mutex(0)
        let session = Session(
            configuration: .init(instanceURL: instance, identity: .user(id: "alice")), provider: CountingProvider(),
            established: { established.withLock { $0 += 1 } }, cookiesChanged: { changed.withLock { $0 += 1 } })
        try await establish(session)
        #expect(established.withLock { $0 } == 1)
        #expect(changed.withLock { $0 } == 0, "the start is reported as established only")

        // An answer without cookies, then one that rotates the session id
        var request = HTTPRequest(url: page)
        var ticket = try await session.prepare(&request)
        _ = await session.process(response: HTTPResponseHead(status: 200), for: ticket)
        #expect(changed.withLock { $0 } == 0)
        ticket = try await session.prepare(&request)
        let rotated = HTTPResponseHead(status: 200, headers: ["Set-Cookie": "JSESSIONID=def456; Path=/; Secure"])
        _ = await session.process(response: rotated, for: ticket)
        #expect(changed.withLock { $0 } == 1)

        // A cookie line the jar refuses changes nothing; nor does a cookie of another site
        ticket = try await session.prepare(&request)
        let refused = HTTPResponseHead(status: 200, headers: ["Set-Cookie": "x=1; Domain=elsewhere.example"])
        _ = await session.process(response: refused, for: ticket)
        var other = HTTPRequest(url: URL(string: "https://cdn.example.net/logo.png")!)
        let otherTicket = try await session.prepare(&other)
        _ = await session.process(response: Self.sessionCookies, for: otherTicket)
        #expect(changed.withLock { $0 } == 1)
        #expect(established.withLock { $0 } == 1)
    }

    @Test func restoredCookiesResumeTheSession() async throws {
        // Given: the cookies of an earlier session, restored into a new jar
        let earlier = makeSession(CountingProvider())
        try await establish(earlier)
        let jar = CookieJar()
        jar.restore(earlier.cookieJar.snapshot())
        let provider = CountingProvider()
        let session = Session(configuration: .init(instanceURL: instance, identity: .user(id: "alice")),
                              provider: provider, cookieJar: jar)
        // When: the first request of the new session
        var request = HTTPRequest(url: page)
        let ticket = try await session.prepare(&request)
        // Then: it carries the cookies, and the provider is not asked
        #expect(await session.state == .established)
        #expect(request.headers["Cookie"] == "JSESSIONID=abc123")
        #expect(request.headers["Authorization"] == nil)
        #expect(ticket.credential == .cookies)
        #expect(provider.callCount == 0)
        // And an expired restored session is renewed with a fresh token
        guard case .replayWithFreshToken = await session.process(response: Self.loginRedirect, for: ticket) else {
            Issue.record("expected a replay")
            return
        }
        _ = try await session.prepare(&request, replaying: ticket)
        #expect(request.headers["Authorization"] == "Bearer token-1")
        #expect(provider.calls.withLock { $0 } == [true])
    }

    @Test func bearerFirstThenCookies() async throws {
        // Given
        let provider = CountingProvider()
        let session = makeSession(provider)
        // When: the first request
        var first = HTTPRequest(url: page)
        let firstTicket = try await session.prepare(&first)
        // Then: it carries the bearer and no cookie
        #expect(first.headers["Authorization"] == "Bearer token-1")
        #expect(first.headers["Cookie"] == nil)
        #expect(firstTicket.credential == .bearer)
        // When: the instance answers with session cookies
        guard case .proceed = await session.process(response: Self.sessionCookies, for: firstTicket) else {
            Issue.record("expected proceed")
            return
        }
        #expect(await session.state == .established)
        // Then: later requests carry the cookies and no bearer
        var second = HTTPRequest(url: page)
        let secondTicket = try await session.prepare(&second)
        #expect(second.headers["Authorization"] == nil)
        #expect(second.headers["Cookie"] == "JSESSIONID=abc123")
        #expect(secondTicket.credential == .cookies)
        #expect(provider.callCount == 1)
    }

    @Test func callerAuthorizationAndCookieFieldsAreReplaced() async throws {
        let session = makeSession(CountingProvider())
        var request = HTTPRequest(url: page, headers: ["Authorization": "Basic xyz", "Cookie": "stale=1"])
        _ = try await session.prepare(&request)
        #expect(request.headers.values(for: "Authorization") == ["Bearer token-1"])
        #expect(request.headers["Cookie"] == nil)
    }

    // MARK: - Re-authentication

    @Test func loginRedirectReplaysOnceWithAFreshToken() async throws {
        // Given
        let provider = CountingProvider()
        let session = makeSession(provider)
        try await establish(session)
        var request = HTTPRequest(url: page)
        let ticket = try await session.prepare(&request)
        // When
        let outcome = await session.process(response: Self.loginRedirect, for: ticket)
        // Then
        guard case .replayWithFreshToken = outcome else {
            Issue.record("expected a replay, got \(outcome)")
            return
        }
        let replay = try await session.prepare(&request, replaying: ticket)
        #expect(request.headers["Authorization"] == "Bearer token-2")
        #expect(request.headers["Cookie"] == nil)
        #expect(replay.attempt == 1)
        #expect(provider.calls.withLock { $0 } == [false, true])
        guard case .proceed = await session.process(response: Self.sessionCookies, for: replay) else {
            Issue.record("expected proceed")
            return
        }
        #expect(await session.state == .established)
    }

    @Test func secondLoginRedirectFailsClearly() async throws {
        let session = makeSession(CountingProvider())
        var request = HTTPRequest(url: page)
        let ticket = try await session.prepare(&request)
        guard case .replayWithFreshToken = await session.process(response: Self.loginRedirect, for: ticket) else {
            Issue.record("expected a replay")
            return
        }
        let replay = try await session.prepare(&request, replaying: ticket)
        guard case .fail(let error) = await session.process(response: Self.loginRedirect, for: replay) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .freshTokenRefused)
        #expect(error.message.contains("refused a fresh token"))
        #expect(error.message.contains("https://instance.example.com/nav/home"))
        #expect(!error.message.contains("secret=q"))
        #expect(!error.description.contains("token-"))
    }

    static let unauthorized = HTTPResponseHead(
        status: 401, headers: ["WWW-Authenticate": #"Bearer realm="instance", error="invalid_token""#])

    @Test func unauthorizedReplaysOnceWithAFreshTokenAndASecondOneFails() async throws {
        // An established session whose cookies the instance no longer accepts.
        let provider = CountingProvider()
        let session = makeSession(provider)
        try await establish(session)
        var request = HTTPRequest(url: page)
        let ticket = try await session.prepare(&request)
        #expect(request.headers["Cookie"] == "JSESSIONID=abc123")
        guard case .replayWithFreshToken = await session.process(response: Self.unauthorized, for: ticket) else {
            Issue.record("expected a replay")
            return
        }
        #expect(await session.state == .reauthenticating)
        let replay = try await session.prepare(&request, replaying: ticket)
        #expect(request.headers["Authorization"] == "Bearer token-2")
        #expect(provider.calls.withLock { $0 } == [false, true])

        // The fresh token is refused too: a clear error, no third attempt.
        guard case .fail(let error) = await session.process(response: Self.unauthorized, for: replay) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .freshTokenRefused)
        #expect(error.message.contains("answered with status 401 again"), "\(error.message)")
        #expect(!error.message.contains("secret=q"))
    }

    @Test func unauthorizedIsAnAnswerLikeAnyOtherWhenThePolicyHasNoExpiryStatuses() async throws {
        let session = Session(
            configuration: .init(
                instanceURL: instance, identity: .user(id: "alice"), policy: SessionPolicy(expiryStatuses: [])),
            provider: CountingProvider())
        var request = HTTPRequest(url: page)
        let ticket = try await session.prepare(&request)
        guard case .proceed = await session.process(response: Self.unauthorized, for: ticket) else {
            Issue.record("expected proceed")
            return
        }
    }

    @Test func unauthorizedGuestFailsNamingTheStatus() async throws {
        let session = makeSession(GuestProvider(), identity: .guest)
        var request = HTTPRequest(url: page)
        let ticket = try await session.prepare(&request)
        guard case .fail(let error) = await session.process(response: Self.unauthorized, for: ticket) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .guestRedirectedToLogin)
        #expect(error.message.contains("refused the guest request for https://instance.example.com/nav/home with "
            + "status 401; the page needs a signed-in user"), "\(error.message)")
    }

    @Test func unauthorizedFromAnotherOriginIsNotTheInstancesAnswer() async throws {
        let provider = CountingProvider()
        let session = makeSession(provider)
        var request = HTTPRequest(url: URL(string: "https://cdn.example.net/app.js")!)
        let ticket = try await session.prepare(&request)
        guard case .proceed = await session.process(response: Self.unauthorized, for: ticket) else {
            Issue.record("a 401 from another origin says nothing about the instance's session")
            return
        }
        #expect(provider.callCount == 0)
    }

    @Test func followedRedirectEndingOnTheLoginPageAsksForAReplay() async throws {
        let session = makeSession(CountingProvider())
        var request = HTTPRequest(url: page)
        let ticket = try await session.prepare(&request)
        let outcome = await session.process(
            response: HTTPResponseHead(status: 200),
            finalURL: URL(string: "https://instance.example.com/login.do")!,
            for: ticket
        )
        guard case .replayWithFreshToken = outcome else {
            Issue.record("expected a replay, got \(outcome)")
            return
        }
    }

    static let renewedSessionCookies = HTTPResponseHead(
        status: 200,
        headers: ["Set-Cookie": "JSESSIONID=renewed; Path=/; Secure; HttpOnly"]
    )

    /// Prepares a request for `page` as the loader does and, when it carries the bearer, answers it
    /// with `answer`; returns what the request carried (`Authorization`, else `Cookie`).
    func send(_ session: Session, replaying ticket: SessionTicket? = nil, answer: HTTPResponseHead) async throws
        -> String?
    {
        var request = HTTPRequest(url: page)
        let prepared = try await session.prepare(&request, replaying: ticket)
        if prepared.credential == .bearer { _ = await session.process(response: answer, for: prepared) }
        return request.headers["Authorization"] ?? request.headers["Cookie"]
    }

    @Test func fiftyConcurrentReplaysShareOneRefreshAndOpenOneSession() async throws {
        // Given: an established session and 50 requests sent with its cookies
        let provider = CountingProvider()
        let session = makeSession(provider)
        try await establish(session)
        var tickets: [SessionTicket] = []
        for _ in 0..<50 {
            var request = HTTPRequest(url: page)
            tickets.append(try await session.prepare(&request))
        }
        // When: all are redirected to the login page and replayed at once
        for ticket in tickets {
            guard case .replayWithFreshToken = await session.process(response: Self.loginRedirect, for: ticket) else {
                Issue.record("expected a replay")
                return
            }
        }
        let sent = try await withThrowingTaskGroup(of: String?.self) { group in
            for ticket in tickets {
                group.addTask { try await send(session, replaying: ticket, answer: Self.renewedSessionCookies) }
            }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        // Then: one forced refresh; one replay carries its token and opens the new session, the other
        // 49 wait for it and carry its cookie
        #expect(provider.forcedCount == 1)
        #expect(provider.callCount == 2)
        #expect(sent.filter { $0 == "Bearer token-2" }.count == 1, "\(sent)")
        #expect(sent.filter { $0 == "JSESSIONID=renewed" }.count == 49, "\(sent)")
    }

    @Test func fiftyConcurrentFirstRequestsShareOneTokenCallAndOpenOneSession() async throws {
        let provider = CountingProvider()
        let session = makeSession(provider)
        let sent = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<50 {
                group.addTask { try await send(session, answer: Self.sessionCookies) }
            }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(provider.callCount == 1)
        #expect(sent.filter { $0 == "Bearer token-1" }.count == 1, "\(sent)")
        #expect(sent.filter { $0 == "JSESSIONID=abc123" }.count == 49, "\(sent)")
        #expect(await session.state == .established)
    }

    @Test(.timeLimit(.minutes(1)))
    func anInstanceThatAnswersTheBearerWithoutASessionLetsBearerRequestsGoAtOnce() async throws {
        // Given: the first bearer request answered without cookies (an API kept by the bearer alone)
        let provider = CountingProvider()
        let session = makeSession(provider)
        #expect(try await send(session, answer: HTTPResponseHead(status: 200)) == "Bearer token-1")
        // When: ten requests are prepared at once and none is answered
        let sent = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<10 {
                group.addTask { [page] in
                    var request = HTTPRequest(url: page)
                    _ = try await session.prepare(&request)
                    return request.headers["Authorization"]
                }
            }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        // Then: each carries the bearer without waiting for another's answer
        #expect(sent == Array(repeating: "Bearer token-1", count: 10))
        // And: a login redirect later makes the replays open a session, one request first
        var request = HTTPRequest(url: page)
        let ticket = try await session.prepare(&request)
        guard case .replayWithFreshToken = await session.process(response: Self.loginRedirect, for: ticket) else {
            Issue.record("expected a replay")
            return
        }
        #expect(try await send(session, replaying: ticket, answer: Self.sessionCookies) == "Bearer token-2")
        #expect(try await send(session, answer: Self.sessionCookies) == "JSESSIONID=abc123")
    }

    /// A new session and the ticket of its first request, which opens the session and is not answered.
    func sessionBeingOpened() async throws -> (CountingProvider, Session, opening: SessionTicket) {
        let provider = CountingProvider()
        let session = makeSession(provider)
        var first = HTTPRequest(url: page)
        let opening = try await session.prepare(&first)
        #expect(opening.credential == .bearer)
        return (provider, session, opening)
    }

    @Test func aRequestThatGetsNoAnswerLetsTheNextOneOpenTheSession() async throws {
        let (provider, session, opening) = try await sessionBeingOpened()
        // The second waits for the first's answer, or finds the opening ended already: either way it
        // opens the session itself once the first gets none.
        let second = Task { [page] in
            var request = HTTPRequest(url: page)
            let ticket = try await session.prepare(&request)
            return (ticket.credential, request.headers["Authorization"])
        }
        await session.requestEnded(withoutResponse: opening)
        let (credential, authorization) = try await second.value
        #expect(credential == .bearer)
        #expect(authorization == "Bearer token-1")
        #expect(provider.callCount == 1)
    }

    @Test func aCancelledRequestStopsWaitingForTheSessionToOpen() async throws {
        let (_, session, _) = try await sessionBeingOpened()
        let second = Task { [page] in
            var request = HTTPRequest(url: page)
            return try await session.prepare(&request).credential
        }
        second.cancel()
        // It goes on (its transport then ends it, as the task is cancelled) while the first is unanswered.
        #expect(try await second.value == .bearer)
    }

    @Test func aSignOutEndsTheRequestsWaitingForTheSessionToOpen() async throws {
        let (_, session, _) = try await sessionBeingOpened()
        let begun = session.signOutCount
        let second = Task { [page] in
            var request = HTTPRequest(url: page)
            return try await session.prepare(&request, signOutCount: begun)
        }
        await session.logout()
        let error = await #expect(throws: SessionError.self) { try await second.value }
        #expect(error?.code == .signedOut)
    }

    // MARK: - Guests, failures, other origins

    @Test func guestSendsNothingAndCannotReauthenticate() async throws {
        let session = makeSession(GuestProvider(), identity: .guest)
        var request = HTTPRequest(url: page)
        let ticket = try await session.prepare(&request)
        #expect(request.headers["Authorization"] == nil)
        #expect(request.headers["Cookie"] == nil)
        #expect(ticket.isGuest)
        guard case .fail(let error) = await session.process(response: Self.loginRedirect, for: ticket) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.code == .guestRedirectedToLogin)
        #expect(session.partitionName == "guest")
    }

    @Test func guestCookiesAreSentBack() async throws {
        let session = makeSession(GuestProvider(), identity: .guest)
        var request = HTTPRequest(url: page)
        let ticket = try await session.prepare(&request)
        _ = await session.process(response: Self.sessionCookies, for: ticket)
        var next = HTTPRequest(url: page)
        _ = try await session.prepare(&next)
        #expect(next.headers["Cookie"] == "JSESSIONID=abc123")
        #expect(next.headers["Authorization"] == nil)
    }

    @Test func providerFailureIsASessionErrorWithItsCause() async {
        let failure = AuthorizationError(
            code: .commandFailed,
            message: "The token command `get-token` exited with status 2."
        )
        let session = makeSession(CountingProvider(failure: failure))
        var request = HTTPRequest(url: page)
        let error = await #expect(throws: SessionError.self) { try await session.prepare(&request) }
        #expect(error?.code == .tokenUnavailable)
        #expect((error?.cause as? AuthorizationError)?.code == .commandFailed)
        #expect(error?.description.contains("get-token") == true)
        #expect(request.headers["Authorization"] == nil)
    }

    @Test func otherOriginsNeverReceiveTheBearer() async throws {
        // Given a cookie the CDN set for itself
        let provider = CountingProvider()
        let session = makeSession(provider)
        let cdn = URL(string: "https://cdn.example.net/app.js")!
        session.cookieJar.store(setCookie: "edge=1", from: cdn)
        // When
        var request = HTTPRequest(url: cdn)
        let ticket = try await session.prepare(&request)
        // Then
        #expect(request.headers["Authorization"] == nil)
        #expect(request.headers["Cookie"] == "edge=1")
        #expect(!ticket.isInstanceRequest)
        #expect(provider.callCount == 0)
        guard case .proceed = await session.process(response: Self.loginRedirect, for: ticket) else {
            Issue.record("a redirect from another origin is not the instance's login page")
            return
        }
    }

    @Test func instanceOnAnotherPortIsAnotherOrigin() async throws {
        let session = makeSession(CountingProvider())
        var request = HTTPRequest(url: URL(string: "https://instance.example.com:8443/nav")!)
        _ = try await session.prepare(&request)
        #expect(request.headers["Authorization"] == nil)
    }

    // MARK: - Logout

    @Test func logoutClearsTokensAndCookies() async throws {
        // Given
        let provider = CountingProvider()
        let session = makeSession(provider)
        try await establish(session)
        #expect(session.cookieJar.count == 1)
        // When
        await session.logout()
        // Then
        #expect(session.cookieJar.count == 0)
        #expect(provider.cacheClears.withLock { $0 } == 1)
        #expect(await session.state == .noSession)
        var request = HTTPRequest(url: page)
        _ = try await session.prepare(&request)
        #expect(request.headers["Authorization"] == "Bearer token-2")
        #expect(request.headers["Cookie"] == nil)
    }
}
