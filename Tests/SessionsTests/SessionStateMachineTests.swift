import Testing

@testable import Sessions

/// The session lifecycle without I/O.
struct SessionStateMachineTests {
    typealias Sent = SessionStateMachine.SentRequest

    static let firstBearer = Sent(isReplay: false, carriedBearer: true, isGuest: false)
    static let cookieRequest = Sent(isReplay: false, carriedBearer: false, isGuest: false)
    static let replay = Sent(isReplay: true, carriedBearer: true, isGuest: false)
    static let guest = Sent(isReplay: false, carriedBearer: false, isGuest: true)

    @Test func firstRequestCarriesTheBearer() {
        let machine = SessionStateMachine()
        #expect(machine.state == .noSession)
        #expect(machine.requestWillBeSent(isReplay: false, cookiesAvailable: false) == .sendBearer(forceRefresh: false))
    }

    @Test func cookiesAfterTheSessionIsEstablished() {
        // Given
        var machine = SessionStateMachine()
        // When
        let action = machine.responseReceived(
            sent: Self.firstBearer,
            sessionRejected: false,
            sessionCookiesPresent: true
        )
        // Then
        #expect(action == .proceed)
        #expect(machine.state == .established)
        #expect(machine.requestWillBeSent(isReplay: false, cookiesAvailable: true) == .sendCookies)
    }

    @Test func bearerResponseWithoutCookiesEstablishesNothing() {
        var machine = SessionStateMachine()
        _ = machine.responseReceived(sent: Self.firstBearer, sessionRejected: false, sessionCookiesPresent: false)
        #expect(machine.state == .noSession)
        #expect(machine.requestWillBeSent(isReplay: false, cookiesAvailable: false) == .sendBearer(forceRefresh: false))
    }

    @Test func establishedSessionWhoseCookiesExpiredFallsBackToTheBearer() {
        var machine = SessionStateMachine()
        _ = machine.responseReceived(sent: Self.firstBearer, sessionRejected: false, sessionCookiesPresent: true)
        #expect(machine.requestWillBeSent(isReplay: false, cookiesAvailable: false) == .sendBearer(forceRefresh: false))
    }

    @Test func loginRedirectAsksForOneReplayWithAFreshToken() {
        // Given an established session
        var machine = SessionStateMachine()
        _ = machine.responseReceived(sent: Self.firstBearer, sessionRejected: false, sessionCookiesPresent: true)
        // When a cookie request is redirected to the login page
        let action = machine.responseReceived(
            sent: Self.cookieRequest,
            sessionRejected: true,
            sessionCookiesPresent: true
        )
        // Then
        #expect(action == .replayWithFreshToken)
        #expect(machine.state == .reauthenticating)
        #expect(machine.requestWillBeSent(isReplay: true, cookiesAvailable: true) == .sendBearer(forceRefresh: true))
        #expect(machine.requestWillBeSent(isReplay: false, cookiesAvailable: true) == .sendBearer(forceRefresh: false))
        // And the successful replay re-establishes the session
        #expect(
            machine.responseReceived(sent: Self.replay, sessionRejected: false, sessionCookiesPresent: true) == .proceed
        )
        #expect(machine.state == .established)
    }

    @Test func secondLoginRedirectForTheSameRequestFails() {
        var machine = SessionStateMachine()
        #expect(
            machine.responseReceived(sent: Self.firstBearer, sessionRejected: true, sessionCookiesPresent: false)
                == .replayWithFreshToken
        )
        #expect(
            machine.responseReceived(sent: Self.replay, sessionRejected: true, sessionCookiesPresent: false)
                == .fail(.freshTokenRefused)
        )
    }

    @Test func guestLoginRedirectFailsWithoutReplay() {
        var machine = SessionStateMachine()
        #expect(
            machine.responseReceived(sent: Self.guest, sessionRejected: true, sessionCookiesPresent: false)
                == .fail(.guestRedirectedToLogin)
        )
        #expect(machine.state == .noSession)
    }

    @Test func guestResponsesNeverEstablishABearerSession() {
        var machine = SessionStateMachine()
        #expect(
            machine.responseReceived(sent: Self.guest, sessionRejected: false, sessionCookiesPresent: true) == .proceed
        )
        #expect(machine.state == .noSession)
    }

    @Test func logoutReturnsToNoSession() {
        var machine = SessionStateMachine()
        _ = machine.responseReceived(sent: Self.firstBearer, sessionRejected: false, sessionCookiesPresent: true)
        machine.loggedOut()
        #expect(machine.state == .noSession)
        #expect(machine.requestWillBeSent(isReplay: false, cookiesAvailable: true) == .sendBearer(forceRefresh: false))
    }
}
