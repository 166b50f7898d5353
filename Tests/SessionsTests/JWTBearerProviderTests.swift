import Foundation
import HTTPCore
import Synchronization
import Testing

@testable import Sessions

/// RFC 7523 §2.1 exchange against a fake token endpoint.
@Suite(.timeLimit(.minutes(5)))
struct JWTBearerProviderTests {
    /// A token endpoint that records requests and answers from a script.
    final class FakeEndpoint: Sendable {
        let requests = Mutex<[HTTPRequest]>([])
        let answer: @Sendable (Int) -> (Int, String)

        init(answer: @escaping @Sendable (Int) -> (Int, String)) {
            self.answer = answer
        }

        var exchange: HTTPExchange {
            { request in
                let count = self.requests.withLock { requests in
                    requests.append(request)
                    return requests.count
                }
                let (status, body) = self.answer(count)
                return (
                    HTTPResponseHead(status: status, headers: ["Content-Type": "application/json"]), Data(body.utf8)
                )
            }
        }

        var count: Int { requests.withLock { $0.count } }
    }

    /// A clock the test moves by hand.
    final class Clock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        func advance(_ seconds: TimeInterval) { now.withLock { $0 += seconds } }
        var read: @Sendable () -> Date { { self.now.withLock { $0 } } }
    }

    let endpointURL = URL(string: "https://idp.example.com/oauth_token.do")!
    let clock = Clock()

    /// A JWT source that counts calls and marks forced ones.
    final class Assertions: Sendable {
        let calls = Mutex<[Bool]>([])
        var source: JWTBearerProvider.AssertionSource {
            { force in
                let number = self.calls.withLock { calls in
                    calls.append(force)
                    return calls.count
                }
                return "eyJhbGciOi.jwt\(number).sig"
            }
        }
    }

    func makeProvider(
        _ endpoint: FakeEndpoint,
        assertions: Assertions = Assertions(),
        authentication: JWTBearerProvider.ClientAuthentication = .basic(clientID: "my app", clientSecret: "s3cr3t:+")
    ) -> JWTBearerProvider {
        JWTBearerProvider(
            configuration: .init(
                tokenEndpoint: endpointURL,
                clientAuthentication: authentication,
                scope: "useraccount"
            ),
            assertion: assertions.source,
            exchange: endpoint.exchange,
            clock: clock.read
        )
    }

    static func success(_ number: Int) -> (Int, String) {
        (200, #"{"access_token":"access-\#(number)","token_type":"Bearer","expires_in":1800,"scope":"useraccount"}"#)
    }

    // MARK: - Request

    @Test func postsTheJWTGrantWithBasicClientAuthentication() async throws {
        // Given
        let endpoint = FakeEndpoint(answer: Self.success)
        // When
        let token = try #require(try await makeProvider(endpoint).token(forceRefresh: false))
        // Then
        #expect(token.value == "access-1")
        #expect(token.expiresAt == clock.read().addingTimeInterval(1800))
        let request = try #require(endpoint.requests.withLock { $0.first })
        #expect(request.method == .post)
        #expect(request.url == endpointURL)
        #expect(request.headers["Content-Type"] == "application/x-www-form-urlencoded")
        let body = String(decoding: try #require(request.body), as: UTF8.self)
        #expect(
            body == "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"
                + "&assertion=eyJhbGciOi.jwt1.sig&scope=useraccount"
        )
        // RFC 6749 §2.3.1: form-encode id and secret, then base64 "id:secret".
        let expected = "Basic " + Data("my+app:s3cr3t%3A%2B".utf8).base64EncodedString()
        #expect(request.headers["Authorization"] == expected)
    }

    @Test func formFieldClientAuthenticationPutsCredentialsInTheBody() async throws {
        let endpoint = FakeEndpoint(answer: Self.success)
        let provider = makeProvider(endpoint, authentication: .formFields(clientID: "app", clientSecret: "pw"))
        _ = try await provider.token(forceRefresh: false)
        let request = try #require(endpoint.requests.withLock { $0.first })
        let body = String(decoding: try #require(request.body), as: UTF8.self)
        #expect(body.hasSuffix("&client_id=app&client_secret=pw&scope=useraccount"))
        #expect(request.headers["Authorization"] == nil)
    }

    // MARK: - Caching

    @Test func cachesTheAccessTokenUntilItExpires() async throws {
        // Given
        let endpoint = FakeEndpoint(answer: Self.success)
        let assertions = Assertions()
        let provider = makeProvider(endpoint, assertions: assertions)
        #expect(try await provider.token(forceRefresh: false)?.value == "access-1")
        // When: 20 minutes later the token is still valid.
        clock.advance(1200)
        #expect(try await provider.token(forceRefresh: false)?.value == "access-1")
        // When: within the 30-second leeway of expiry it is renewed.
        clock.advance(580)
        #expect(try await provider.token(forceRefresh: false)?.value == "access-2")
        // Then
        #expect(endpoint.count == 2)
        #expect(assertions.calls.withLock { $0 } == [false, false])
    }

    @Test func forcedRefreshGetsANewJWTAndExchangesAgain() async throws {
        let endpoint = FakeEndpoint(answer: Self.success)
        let assertions = Assertions()
        let provider = makeProvider(endpoint, assertions: assertions)
        #expect(try await provider.token(forceRefresh: false)?.value == "access-1")
        #expect(try await provider.token(forceRefresh: true)?.value == "access-2")
        #expect(assertions.calls.withLock { $0 } == [false, true])
        let body = String(decoding: endpoint.requests.withLock { $0[1].body ?? Data() }, as: UTF8.self)
        #expect(body.contains("assertion=eyJhbGciOi.jwt2.sig"))
    }

    @Test func fiftyConcurrentCallersShareOneExchange() async throws {
        let endpoint = FakeEndpoint(answer: Self.success)
        let provider = makeProvider(endpoint)
        let values = try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 0..<50 { group.addTask { try await provider.token(forceRefresh: false)?.value } }
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        #expect(Set(values) == ["access-1"])
        #expect(values.count == 50)
        #expect(endpoint.count == 1)
    }

    @Test func jwtCanComeFromAnotherProvider() async throws {
        let endpoint = FakeEndpoint(answer: Self.success)
        let provider = JWTBearerProvider(
            configuration: .init(tokenEndpoint: endpointURL),
            assertionProvider: CommandTokenProvider(command: "echo jwt.from.cmd"),
            exchange: endpoint.exchange
        )
        #expect(try await provider.token(forceRefresh: false)?.value == "access-1")
        let body = String(decoding: endpoint.requests.withLock { $0[0].body ?? Data() }, as: UTF8.self)
        #expect(body.contains("assertion=jwt.from.cmd"))
    }

    // MARK: - Errors (RFC 6749 §5.2)

    @Test func oauthErrorAnswerBecomesAClearError() async {
        let endpoint = FakeEndpoint { _ in
            (400, #"{"error":"invalid_grant","error_description":"JWT signature does not match"}"#)
        }
        let error = await #expect(throws: AuthorizationError.self) {
            try await makeProvider(endpoint).token(forceRefresh: false)
        }
        #expect(error?.code == .tokenEndpointRejected)
        #expect(error?.message.contains("invalid_grant") == true)
        #expect(error?.message.contains("JWT signature does not match") == true)
        #expect(error?.message.contains(endpointURL.absoluteString) == true)
        #expect(error?.description.contains("jwt1") == false)
    }

    @Test(arguments: [
        (500, "<html>oops</html>"),
        (200, "not json"),
        (200, #"{"token_type":"Bearer"}"#),
        (200, #"{"access_token":"x","token_type":"mac"}"#),
    ])
    func unusableAnswersAreErrors(status: Int, body: String) async {
        let endpoint = FakeEndpoint { _ in (status, body) }
        let error = await #expect(throws: AuthorizationError.self) {
            try await makeProvider(endpoint).token(forceRefresh: false)
        }
        #expect(error?.code == .invalidTokenResponse)
        #expect(error?.message.contains(endpointURL.absoluteString) == true)
    }

    @Test func transportFailureNamesTheEndpoint() async {
        struct Offline: Error {}
        let provider = JWTBearerProvider(
            configuration: .init(tokenEndpoint: endpointURL),
            assertion: { _ in "jwt" },
            exchange: { _ in throw Offline() }
        )
        let error = await #expect(throws: AuthorizationError.self) { try await provider.token(forceRefresh: false) }
        #expect(error?.code == .tokenEndpointUnreachable)
        #expect(error?.message.contains(endpointURL.absoluteString) == true)
    }

    @Test func expiresInAsAStringIsAccepted() throws {
        let now = Date(timeIntervalSince1970: 0)
        let token = try JWTBearerProvider.parseResponse(
            head: HTTPResponseHead(status: 200),
            body: Data(#"{"access_token":"a","expires_in":"60"}"#.utf8),
            endpoint: endpointURL,
            now: now
        )
        #expect(token.expiresAt == Date(timeIntervalSince1970: 60))
    }

    @Test func descriptionHidesTheClientSecret() {
        let provider = makeProvider(FakeEndpoint(answer: Self.success))
        for text in [provider.description, String(describing: provider.configuration), String(reflecting: provider)] {
            #expect(!text.contains("s3cr3t"))
        }
        #expect(provider.description.contains("my app"))
    }
}
