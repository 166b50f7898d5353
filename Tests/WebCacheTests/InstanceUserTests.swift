import Foundation
import HTTPCore
import LocalOrigin
import Sessions
import Synchronization
import Testing
import WebCacheTestSupport

@testable import WebCache

/// ``WebCache/instanceUser(at:field:configuration:)`` against an instance on 127.0.0.1: the id read
/// from answers of the test's own, and the session the question opened carried on by the cache.
@Suite struct InstanceUserTests {
    /// The id the instance answers with, read through a signed-in session.
    private func userID(answering json: String, field: String) async throws -> String {
        var id = ""
        try await withInstance { fixture in
            fixture.override.value = { request in
                guard request.path == "/api/me" else { return nil }
                return OriginResponse(headers: ["Content-Type": "application/json"], body: .bytes(Data(json.utf8)))
            }
            var configuration = WebCache.Configuration(environment: [:])
            configuration.instanceURL = fixture.origin.baseURL
            configuration.authorization = fixture.provider(for: "alice")
            id = try await WebCache.instanceUser(
                at: fixture.origin.url("api/me"), field: field, configuration: configuration).id
        }
        return id
    }

    @Test func aNumericIdAboveTwoToTheFiftyThirdKeepsEveryDigit() async throws {
        // 2^53 + 1 has no Double of its own: read as one, it came back as ...992.
        #expect(try await userID(answering: #"{"result":{"id":9007199254740993}}"#, field: "result.id")
            == "9007199254740993")
        #expect(try await userID(answering: #"{"id":-9223372036854775808}"#, field: "id") == "-9223372036854775808")
    }

    @Test func aWholeNumberWrittenWithAFractionOrExponentIsStillAnInteger() async throws {
        #expect(try await userID(answering: #"{"id":42.0}"#, field: "id") == "42")
        #expect(try await userID(answering: #"{"id":4.2e1}"#, field: "id") == "42")
        #expect(try await userID(answering: #"{"id":"u-42"}"#, field: "id") == "u-42")
    }

    @Test func anIdThatIsNoWholeNumberIsTakenAsWritten() async throws {
        #expect(try await userID(answering: #"{"id":1.5}"#, field: "id") == "1.5")
    }

    @Test func theCompletionHandlerFormAnswersAsTheAsyncOne() async throws {
        try await withInstance { fixture in
            let configuration = configuration(fixture, user: "alice", persistsCookies: false)
            let result = await withCheckedContinuation { continuation in
                WebCache.instanceUser(at: fixture.origin.url("api/me"), field: "sub", configuration: configuration) {
                    continuation.resume(returning: $0)
                }
            }
            let user = try result.get()
            #expect(user.id == "alice")
            #expect(user.cookies.cookies.map(\.name) == ["session"])
        }
    }

    // MARK: - One session

    /// A signed-in configuration for `user` of `fixture`'s instance over its store.
    private func configuration(_ fixture: InstanceFixture, user: String, persistsCookies: Bool)
        -> WebCache.Configuration
    {
        var configuration = WebCache.Configuration(environment: [:])
        configuration.storePath = fixture.folder.storePath
        configuration.instanceURL = fixture.origin.baseURL
        configuration.authorization = fixture.provider(for: user)
        configuration.persistsCookies = persistsCookies
        return configuration
    }

    @Test func theCacheCarriesOnTheSessionOpenedToAskWhoTheUserIs() async throws {
        try await withInstance { fixture in
            // Given the instance was asked who the user is
            var configuration = configuration(fixture, user: "alice", persistsCookies: false)
            let user = try await WebCache.instanceUser(
                at: fixture.origin.url("api/me"), field: "sub", configuration: configuration)
            #expect(user.id == "alice")

            // When a cache given that session's cookies loads a private page
            configuration.userID = IdentityKey.instanceUser(user.id, instance: fixture.origin.baseURL)
            configuration.sessionCookies = user.cookies
            let cache = try WebCache(configuration: configuration)
            let page = try await cache.data(for: WebRequest("private/a.txt"))
            await cache.close()

            // Then the instance opened one session: the page came with its cookie, no bearer token
            #expect(String(decoding: page.body, as: UTF8.self) == "page /private/a.txt for alice")
            #expect(fixture.instance.state.withLock { $0.sessions.count } == 1)
            #expect(fixture.pageRequests == ["/api/me bearer", "/private/a.txt cookie"])
        }
    }

    @Test func aKeptSessionAnswersTheNextQuestion() async throws {
        try await withInstance { fixture in
            // Given a run that kept its session asked, then loaded a page
            var configuration = configuration(fixture, user: "alice", persistsCookies: true)
            let first = try await WebCache.instanceUser(
                at: fixture.origin.url("api/me"), field: "sub", configuration: configuration)
            configuration.userID = IdentityKey.instanceUser(first.id, instance: fixture.origin.baseURL)
            configuration.sessionCookies = first.cookies
            let cache = try WebCache(configuration: configuration)
            _ = try await cache.data(for: WebRequest("private/a.txt"))
            await cache.close()

            // When the next run asks again, naming the user it found
            configuration.sessionCookies = nil
            let second = try await WebCache.instanceUser(
                at: fixture.origin.url("api/me"), field: "sub", configuration: configuration)

            // Then the kept session answered: still one session on the instance
            #expect(second.id == "alice")
            #expect(fixture.instance.state.withLock { $0.sessions.count } == 1)
            #expect(fixture.pageRequests == ["/api/me bearer", "/private/a.txt cookie", "/api/me cookie"])
        }
    }
}
