import Foundation
import HTTPCore
import Synchronization
import Testing

@testable import Sessions

/// A session against a real HTTP origin on 127.0.0.1 that behaves like an instance: a JWT token
/// endpoint, bearer-started sessions kept by cookies, and login redirects once a session expires.
@Suite(.timeLimit(.minutes(5)))
final class SessionEndToEndTests {
    /// The instance's server-side state.
    final class FakeInstance: Sendable {
        struct State {
            var issuedTokens: Set<String> = []
            var sessions: Set<String> = []
            var tokenRequests = 0
            var refuseTokens = false
            /// For each page request: whether it carried a bearer and a cookie.
            var pageRequests: [(bearer: Bool, cookie: Bool)] = []
            var lastTokenRequestBody = ""
            var lastTokenRequestAuthorization: String?
        }

        let state = Mutex(State())

        func handle(_ request: TestOrigin.Request) -> TestOrigin.Response {
            state.withLock { state in
                if request.method == "POST" && request.path == "/oauth_token.do" {
                    state.tokenRequests += 1
                    state.lastTokenRequestBody = String(decoding: request.body, as: UTF8.self)
                    state.lastTokenRequestAuthorization = request.headers["Authorization"]
                    guard state.lastTokenRequestBody.contains("assertion=jwt-") else {
                        return TestOrigin.Response(status: 400, body: Data(#"{"error":"invalid_grant"}"#.utf8))
                    }
                    let token = "access-\(state.tokenRequests)"
                    state.issuedTokens.insert(token)
                    let json = #"{"access_token":"\#(token)","token_type":"Bearer","expires_in":3600}"#
                    return TestOrigin.Response(
                        status: 200,
                        headers: ["Content-Type": "application/json"],
                        body: Data(json.utf8)
                    )
                }
                guard request.path.hasPrefix("/nav/") else {
                    return TestOrigin.Response(status: 200, body: Data("login page".utf8))
                }
                let bearer = request.headers["Authorization"].map { $0.dropFirst("Bearer ".count) }.map(String.init)
                let sessionID = request.headers["Cookie"]?.split(separator: ";").lazy
                    .map { $0.trimmingHTTPWhitespace() }.first { $0.hasPrefix("JSESSIONID=") }
                    .map { String($0.dropFirst("JSESSIONID=".count)) }
                state.pageRequests.append((bearer != nil, sessionID != nil))
                if let bearer, state.issuedTokens.contains(bearer), !state.refuseTokens {
                    let id = "s\(state.sessions.count + 1)-\(state.tokenRequests)"
                    state.sessions.insert(id)
                    return TestOrigin.Response(
                        status: 200,
                        headers: ["Set-Cookie": "JSESSIONID=\(id); Path=/; HttpOnly"]
                    )
                }
                if let sessionID, state.sessions.contains(sessionID) {
                    return TestOrigin.Response(status: 200, body: Data("page".utf8))
                }
                return TestOrigin.Response(status: 302, headers: ["Location": "/login.do?sysparm_goto=\(request.path)"])
            }
        }
    }

    let instance = FakeInstance()
    let origin: TestOrigin
    let session: Session

    init() throws {
        let instance = instance
        origin = try TestOrigin { instance.handle($0) }
        let provider = JWTBearerProvider(
            configuration: .init(
                tokenEndpoint: origin.baseURL.appending(path: "oauth_token.do"),
                clientAuthentication: .basic(clientID: "webcache", clientSecret: "pw")
            ),
            assertion: { force in force ? "jwt-forced" : "jwt-first" },
            exchange: TestOrigin.send
        )
        session = Session(
            configuration: .init(instanceURL: origin.baseURL, identity: .user(id: "alice")),
            provider: provider
        )
    }

    deinit {
        origin.stop()
    }

    /// Loads `path` the way the loader does: prepare, send, process, replay when asked.
    func load(_ path: String) async throws -> HTTPResponseHead {
        var request = HTTPRequest(url: try InstanceURL.resolve(path, against: origin.baseURL))
        var ticket = try await session.prepare(&request)
        while true {
            let (head, _) = try await TestOrigin.send(request)
            switch await session.process(response: head, for: ticket) {
            case .proceed: return head
            case .replayWithFreshToken: ticket = try await session.prepare(&request, replaying: ticket)
            case .fail(let error): throw error
            }
        }
    }

    @Test func sessionStartsWithTheBearerContinuesWithCookiesAndRecoversFromExpiry() async throws {
        // First page: bearer, answered with a session cookie.
        #expect(try await load("nav/home").status == 200)
        // Second page: the cookie only.
        #expect(try await load("nav/list?sysparm_query=x").status == 200)
        #expect(
            instance.state.withLock { $0.pageRequests.map { [$0.bearer, $0.cookie] } } == [
                [true, false], [false, true],
            ]
        )
        #expect(instance.state.withLock { $0.tokenRequests } == 1)
        let tokenRequest = instance.state.withLock { ($0.lastTokenRequestBody, $0.lastTokenRequestAuthorization) }
        #expect(tokenRequest.0.hasPrefix("grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="))
        #expect(tokenRequest.1 == "Basic " + Data("webcache:pw".utf8).base64EncodedString())

        // When the instance forgets the session, the page is replayed once with a fresh token.
        instance.state.withLock { $0.sessions.removeAll() }
        #expect(try await load("nav/home").status == 200)
        #expect(instance.state.withLock { $0.tokenRequests } == 2)
        #expect(instance.state.withLock { $0.lastTokenRequestBody.contains("assertion=jwt-forced") })
        #expect(
            instance.state.withLock { $0.pageRequests.suffix(2).map { [$0.bearer, $0.cookie] } } == [
                [false, true], [true, false],
            ]
        )
        #expect(try await load("nav/after").status == 200)
        #expect(instance.state.withLock { $0.pageRequests.last.map { [$0.bearer, $0.cookie] } } == [false, true])
    }

    @Test func instanceRefusingFreshTokensFailsAfterOneReplay() async throws {
        #expect(try await load("nav/home").status == 200)
        instance.state.withLock { state in
            state.sessions.removeAll()
            state.refuseTokens = true
        }
        let error = await #expect(throws: SessionError.self) { try await self.load("nav/home") }
        #expect(error?.code == .freshTokenRefused)
        // the cookie request, then exactly one replay
        #expect(instance.state.withLock { $0.pageRequests.count } == 3)
    }

    @Test func logoutStartsANewSessionWithTheBearer() async throws {
        #expect(try await load("nav/home").status == 200)
        await session.logout()
        #expect(session.cookieJar.count == 0)
        #expect(try await load("nav/home").status == 200)
        #expect(instance.state.withLock { $0.pageRequests.map(\.bearer) } == [true, true])
        #expect(instance.state.withLock { $0.tokenRequests } == 2)
    }
}
