import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Sessions
import Synchronization
import Testing
import WebCacheTestSupport

@testable import WebCache

/// Web sessions through the loader against an origin that behaves like an instance: bearer first,
/// cookies after, re-authentication after the session's idle timeout, and responses kept apart per user.
@Suite(.timeLimit(.minutes(5)))
struct SessionLoaderTests {
    @Test func firstLoadSendsTheBearerAndLaterLoadsSendTheCookie() async throws {
        try await withInstance { (fixture) async throws in
            let cache = try fixture.cache(user: "alice")
            let home = try await cache.data(for: WebRequest("nav/home"))
            #expect(home.text == "page /nav/home for alice")
            let list = try await cache.data(for: WebRequest("nav/list"))
            #expect(list.text == "page /nav/list for alice")
            #expect(fixture.pageRequests == ["/nav/home bearer", "/nav/list cookie"])
            #expect(fixture.instance.state.withLock { $0.tokenRequests } == 1)
            // The private page is stored in the user's partition, not the guest's.
            #expect(try cache.storedVariants(fixture.origin.url("nav/home")).count == 1)
            #expect(cache.partition == SessionIdentity.user(id: "alice").partitionName)
            let guestEntries = try cache.store.variants(
                partition: "guest", url: fixture.origin.url("nav/home").absoluteString)
            #expect(guestEntries.isEmpty)
        }
    }

    @Test func theSessionCookieIsInTheJarNeverInTheStoreFile() async throws {
        try await withInstance { (fixture) async throws in
            fixture.instance.state.withLock { $0.pageCacheControl = "private, max-age=600" }
            let cache = try fixture.cache(user: "alice")
            let first = try await cache.data(for: WebRequest("nav/home"))
            let sessionID = try #require(fixture.instance.state.withLock { $0.sessions.keys.first })
            // The caller of the network response sees the field; the stored copy does not keep it.
            #expect(first.headers["Set-Cookie"]?.contains(sessionID) == true)
            #expect(try cache.storedVariants(fixture.origin.url("nav/home")).map { $0.headers["Set-Cookie"] } == [nil])
            let hit = try await cache.data(for: WebRequest("nav/home"))
            #expect(hit.source == .hit)
            #expect(hit.headers["Set-Cookie"] == nil)
            await fixture.close(cache)

            let bytes = try Data(contentsOf: URL(fileURLWithPath: fixture.folder.storePath))
            #expect(bytes.range(of: Data(sessionID.utf8)) == nil, "the store file holds the session id")
        }
    }

    /// An entry saved with its `Set-Cookie` (as versions before the rule above saved them) is served
    /// without it: an old session id from the store must not reach the caller.
    @Test func aStoredSetCookieIsNeverServed() async throws {
        try await withInstance { (fixture) async throws in
            let cache = try fixture.cache(user: "alice")
            let url = fixture.origin.url("nav/old")
            let now = Date()
            let entry = CacheEntry(
                partition: cache.partition, url: url.absoluteString, status: 200,
                headers: ["Content-Type": "text/plain", "Cache-Control": "max-age=600", "Set-Cookie": "JSESSIONID=old"],
                requestTime: now, responseTime: now, freshUntil: now.addingTimeInterval(600))
            try await cache.store.save(entry, body: Data("old page".utf8))
            let hit = try await cache.data(for: WebRequest("nav/old"))
            #expect(hit.source == .hit)
            #expect(hit.text == "old page")
            #expect(hit.headers["Set-Cookie"] == nil)
            #expect(hit.headers["Content-Type"] == "text/plain")
        }
    }

    /// A streamed body is spent once sent, so an expired session is not renewed by sending it again
    /// (which would send an empty body): the load fails and says why.
    @Test(arguments: [nil, 401] as [Int?])
    func anExpiredSessionFailsAStreamedUploadInsteadOfReplayingIt(expiryStatus: Int?) async throws {
        try await withInstance { (fixture) async throws in
            let cache = try fixture.cache(user: "alice")
            #expect(try await cache.data(for: WebRequest("nav/home")).text == "page /nav/home for alice")
            fixture.instance.state.withLock { state in
                state.sessions = [:]
                state.expiryStatus = expiryStatus
            }
            let stream = RequestBodyStream(length: 5)
            stream.write(Data("hello".utf8))
            stream.finish()

            let url = fixture.origin.url("nav/form").absoluteString
            let error = await #expect(throws: WebCacheError.self) {
                _ = try await cache.data(for: WebRequest("nav/form", method: .post, bodyStream: stream))
            }
            #expect(error?.code == .authorization)
            #expect(error?.message.contains(url) == true)
            #expect(error?.message.contains("streamed body") == true)
            #expect(fixture.pageRequests == ["/nav/home bearer", "/nav/form cookie"])
            #expect(fixture.origin.requests.last?.bodyLength == 5)
        }
    }

    /// The instance says the session expired with a redirect to its login page (`nil`) or with 401.
    @Test(arguments: [nil, 401] as [Int?])
    func expiredSessionIsRenewedWithAFreshTokenAndTheLoginPageIsNeverStored(expiryStatus: Int?) async throws {
        try await withInstance { (fixture) async throws in
            let provider = fixture.provider(for: "alice")
            let cache = try fixture.cache(user: "alice", provider: provider)
            #expect(try await cache.data(for: WebRequest("nav/home")).text == "page /nav/home for alice")
            fixture.instance.state.withLock { state in
                state.idleTimeout = 0.2
                state.expiryStatus = expiryStatus
            }
            try await Task.sleep(for: .milliseconds(400))

            let renewed = try await cache.data(for: WebRequest("nav/home"))
            #expect(renewed.status == 200)
            #expect(renewed.text == "page /nav/home for alice")
            #expect(renewed.redirects.isEmpty)
            #expect(provider.calls.value == [false, true])
            #expect(fixture.instance.state.withLock { $0.tokenRequests } == 2)
            #expect(fixture.pageRequests == ["/nav/home bearer", "/nav/home cookie", "/nav/home bearer"])
            #expect(!fixture.origin.requests.contains { $0.path == "/login.do" })
            let stored = try cache.storedVariants(fixture.origin.url("nav/home"))
            #expect(stored.map(\.status) == [200])
            #expect(stored.map(\.body) == [Data("page /nav/home for alice".utf8)])
            #expect(try cache.storedVariants(fixture.origin.url("login.do")).isEmpty)
            #expect(try cache.store.totals().entryCount == 1)
        }
    }

    @Test(arguments: [false, true])
    func failingProviderIsAClearAuthorizationError(tokenEndpointRejects: Bool) async throws {
        try await withInstance { (fixture) async throws in
            // Either the provider itself fails, or the token endpoint refuses its JWT.
            let provider: any AuthorizationProviding =
                tokenEndpointRejects
                ? JWTBearerProvider(
                    configuration: .init(tokenEndpoint: fixture.origin.url("oauth_token.do")),
                    assertionProvider: StaticTokenProvider(accessToken: "forged"),
                    transport: fixture.exchangeTransport)
                : FailingProvider()
            let cache = try fixture.cache(user: "alice", provider: provider)
            let error = await #expect(throws: WebCacheError.self) { try await cache.data(for: WebRequest("nav/home")) }
            #expect(error?.code == .authorization)
            #expect(error?.message.contains(fixture.origin.url("nav/home").absoluteString) == true)
            #expect(fixture.pageRequests.isEmpty)
            #expect(fixture.instance.state.withLock { $0.tokenRequests } == 0)
        }
    }

    @Test func signingInWithoutAUserIDIsRefused() async throws {
        try await withInstance { (fixture) async throws in
            let error = #expect(throws: WebCacheError.self) {
                _ = try fixture.cache(provider: fixture.provider(for: "alice"))
            }
            #expect(error?.code == .authorization)
            #expect(error?.message.contains("user id") == true)
            #expect(!FileManager.default.fileExists(atPath: fixture.folder.storePath))
        }
    }

    @Test(arguments: [nil, 401] as [Int?])
    func refusedFreshTokenFailsWithoutLooping(expiryStatus: Int?) async throws {
        try await withInstance { (fixture) async throws in
            let cache = try fixture.cache(user: "alice")
            _ = try await cache.data(for: WebRequest("nav/home"))
            fixture.instance.state.withLock { state in
                state.sessions.removeAll()
                state.refuseBearer = true
                state.expiryStatus = expiryStatus
            }
            let error = await #expect(throws: WebCacheError.self) { try await cache.data(for: WebRequest("nav/home")) }
            #expect(error?.code == .authorization)
            #expect(error?.message.contains("refused a fresh token") == true)
            let refusal = expiryStatus == nil ? "redirected to the login page again" : "answered with status 401 again"
            #expect(error?.message.contains(refusal) == true, "\(error?.message ?? "")")
            #expect(fixture.pageRequests == ["/nav/home bearer", "/nav/home cookie", "/nav/home bearer"])
            #expect(try cache.storedVariants(fixture.origin.url("nav/home")).map(\.status) == [200])
        }
    }

    @Test func guestGetsPublicPagesAndNeverAPrivateOne() async throws {
        try await withInstance { (fixture) async throws in
            fixture.instance.state.withLock { $0.pageCacheControl = "private, max-age=600" }
            let alice = try fixture.cache(user: "alice")
            #expect(try await alice.data(for: WebRequest("nav/profile")).text == "page /nav/profile for alice")

            let guest = try fixture.cache()
            #expect(try await guest.data(for: WebRequest("public")).text == "public page")
            // The instance's login redirect is the guest's answer: an error, not the login page.
            let refused = await #expect(throws: WebCacheError.self) {
                try await guest.data(for: WebRequest("nav/profile"))
            }
            #expect(refused?.code == .authorization)
            #expect((refused?.cause as? SessionError)?.code == .guestRedirectedToLogin,
                    "\(String(describing: refused))")
            #expect(fixture.origin.requests.suffix(2).map(\.path) == ["/public", "/nav/profile"])
            #expect(fixture.origin.requests.suffix(2).map { $0.headers["Authorization"] } == [nil, nil])
            #expect(try guest.storedVariants(fixture.origin.url("nav/profile")).isEmpty)
            #expect(try guest.storedVariants(fixture.origin.url("login.do")).isEmpty)
        }
    }

    @Test func oneUsersPagesAreNeverServedToAnother() async throws {
        try await withInstance { (fixture) async throws in
            fixture.instance.state.withLock { $0.pageCacheControl = "private, max-age=600" }
            let alice = try fixture.cache(user: "alice")
            let bob = try fixture.cache(user: "bob")
            #expect(try await alice.data(for: WebRequest("nav/profile")).text == "page /nav/profile for alice")
            let bobFirst = try await bob.data(for: WebRequest("nav/profile"))
            #expect(bobFirst.source == .network)
            #expect(bobFirst.text == "page /nav/profile for bob")

            let aliceAgain = try await alice.data(for: WebRequest("nav/profile"))
            let bobAgain = try await bob.data(for: WebRequest("nav/profile"))
            #expect(aliceAgain.source == .hit)
            #expect(aliceAgain.text == "page /nav/profile for alice")
            #expect(bobAgain.source == .hit)
            #expect(bobAgain.text == "page /nav/profile for bob")
            #expect(fixture.pageRequests == ["/nav/profile bearer", "/nav/profile bearer"])

            let guest = try fixture.cache()
            let error = await #expect(throws: WebCacheError.self) {
                try await guest.data(for: WebRequest("nav/profile"), policy: .returnCacheDataDontLoad)
            }
            #expect(error?.code == .notCached)
        }
    }

    @Test func logoutRemovesTheUsersEntriesAndCookiesAndKeepsGuestEntries() async throws {
        try await withInstance { (fixture) async throws in
            fixture.instance.state.withLock { $0.pageCacheControl = "private, max-age=600" }
            let alice = try fixture.cache(user: "alice")
            let guest = try fixture.cache()
            _ = try await alice.data(for: WebRequest("nav/profile"))
            _ = try await alice.data(for: WebRequest("nav/other"))
            _ = try await guest.data(for: WebRequest("public"))
            #expect(try alice.storedVariants(fixture.origin.url("nav/profile")).count == 1)

            try await alice.logout()
            #expect(try alice.storedVariants(fixture.origin.url("nav/profile")).isEmpty)
            #expect(try alice.storedVariants(fixture.origin.url("nav/other")).isEmpty)
            #expect(try guest.storedVariants(fixture.origin.url("public")).count == 1)

            // A new session starts with the bearer: the old cookie is gone.
            #expect(try await alice.data(for: WebRequest("nav/profile")).source == .network)
            #expect(fixture.pageRequests.suffix(1) == ["/nav/profile bearer"])
        }
    }

    // MARK: - Persisted cookies

    @Test func keptCookiesAreSavedWhenTheSessionStartsAndWhenItIsRenewedBeforeAnyClose() async throws {
        try await withInstance { (fixture) async throws in
            let cache = try fixture.cache(user: "alice", persistsCookies: true)
            let file = CookieFile(storePath: fixture.folder.storePath, partition: cache.partition)
            func savedSession() throws -> String? {
                try file.load()?.cookies.first { $0.name == "session" }?.value
            }
            #expect(try savedSession() == nil)

            _ = try await cache.data(for: WebRequest("nav/home"))
            let started = try #require(fixture.instance.state.withLock { $0.sessions.keys.first })
            #expect(try savedSession() == started, "the new session was not saved before close")

            // The instance forgets it; the renewed session is saved as soon as it exists.
            fixture.instance.state.withLock { $0.sessions.removeAll() }
            _ = try await cache.data(for: WebRequest("nav/list"))
            let renewed = try #require(fixture.instance.state.withLock { $0.sessions.keys.first })
            #expect(renewed != started)
            #expect(try savedSession() == renewed)
        }
    }

    @Test func aSessionIdTheInstanceRotatesIsSavedSoonAfterWithoutAClose() async throws {
        try await withInstance { (fixture) async throws in
            // Given: a kept session, which the instance then rotates on the next request
            let first = try fixture.cache(user: "alice", persistsCookies: true)
            let file = CookieFile(storePath: fixture.folder.storePath, partition: first.partition)
            _ = try await first.data(for: WebRequest("nav/home"))
            fixture.instance.state.withLock { $0.rotatesSessions = true }
            _ = try await first.data(for: WebRequest("nav/list"))
            fixture.instance.state.withLock { $0.rotatesSessions = false }
            let rotated = try #require(fixture.instance.state.withLock { $0.sessions.keys.first })

            // Then: the file holds the new id without a close, as a run killed now would leave it
            var saved: String?
            for _ in 0..<500 where saved != rotated {
                saved = try file.load()?.cookies.first { $0.name == "session" }?.value
                if saved != rotated { try await Task.sleep(for: .milliseconds(10)) }
            }
            #expect(saved == rotated)

            // And a next run carries on with it, without a new token
            let second = try fixture.cache(user: "alice", persistsCookies: true)
            #expect(try await second.data(for: WebRequest("nav/profile")).text == "page /nav/profile for alice")
            #expect(fixture.pageRequests.suffix(1) == ["/nav/profile cookie"])
            #expect(fixture.instance.state.withLock { $0.tokenRequests } == 1)
        }
    }

    @Test func persistedCookiesCarryTheSessionToTheNextRunAndLogoutDeletesThem() async throws {
        try await withInstance { (fixture) async throws in
            let first = try fixture.cache(user: "alice", persistsCookies: true)
            _ = try await first.data(for: WebRequest("nav/home"))
            await fixture.close(first)
            let path = CookieFile(storePath: fixture.folder.storePath, partition: first.partition).path
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

            let second = try fixture.cache(user: "alice", persistsCookies: true)
            #expect(try await second.data(for: WebRequest("nav/list")).text == "page /nav/list for alice")
            #expect(fixture.pageRequests == ["/nav/home bearer", "/nav/list cookie"])
            #expect(fixture.instance.state.withLock { $0.tokenRequests } == 1)

            await fixture.close(second)
            #expect(FileManager.default.fileExists(atPath: path))

            // A run that does not persist cookies still deletes them at logout.
            let third = try fixture.cache(user: "alice")
            try await third.logout()
            #expect(!FileManager.default.fileExists(atPath: path))

            // A persisting run that logs out leaves no file behind when it closes.
            let fourth = try fixture.cache(user: "alice", persistsCookies: true)
            _ = try await fourth.data(for: WebRequest("nav/home"))
            try await fourth.logout()
            await fixture.close(fourth)
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }

    @Test func unreadableCookieFileIsAnErrorNamingIt() async throws {
        try await withInstance { (fixture) async throws in
            let partition = SessionIdentity.user(id: "alice").partitionName
            let path = CookieFile(storePath: fixture.folder.storePath, partition: partition).path
            try Data("not json".utf8).write(to: URL(fileURLWithPath: path))
            let error = #expect(throws: WebCacheError.self) {
                _ = try fixture.cache(user: "alice", persistsCookies: true)
            }
            #expect(error?.message.contains(path) == true)
        }
    }
}
