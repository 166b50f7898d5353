import CacheStore
import Dispatch
import Foundation
import HTTPCore
import LocalOrigin
import Sessions
import Synchronization
import Testing
import Transport
import WebCacheTestSupport

@testable import WebCache

/// Work begun for a user before ``WebCache/logout()`` does not bring the user back after it: a
/// response on its way is neither stored nor taken into the cookies, a body still arriving is not
/// stored, and a request waiting for its token is not sent.
@Suite(.timeLimit(.minutes(5)))
struct SignOutTests {
    /// Blocks the calling thread (an origin handler's) until `semaphore` is signalled, at most two minutes.
    private static func hold(_ semaphore: DispatchSemaphore) {
        _ = semaphore.wait(timeout: .now() + 120)
    }

    /// Waits until `semaphore` is signalled, false after two minutes, on a thread of its own: a
    /// blocked thread of the cooperative pool (two on two cores) would keep the load from running.
    static func arrival(_ semaphore: DispatchSemaphore) async -> Bool {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: semaphore.wait(timeout: .now() + 120) == .success)
            }
        }
    }

    /// Has the instance hold its answer to `path` back: `arrived` is signalled when the request comes,
    /// and the answer goes once `release` is.
    static func holdAnswer(to path: String, in fixture: InstanceFixture)
        -> (arrived: DispatchSemaphore, release: DispatchSemaphore)
    {
        let arrived = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let instance = fixture.instance
        fixture.override.value = { request in
            guard request.path == path else { return nil }
            arrived.signal()
            Self.hold(release)
            return instance.handle(request)
        }
        return (arrived, release)
    }

    @Test func aPageRecordWithdrawnByASignOutSaysSoInAWord() {
        let withdrawn = CacheStore.Error(code: .withdrawn, message: "The entry for https://i.test/ was not saved: …")
        #expect(Preloader.unrecordedReason(withdrawn)
            == "its list of requisites was not recorded: its user signed out during the run")
        let full = CacheStore.Error(code: .diskFull, message: "The disk is full.")
        #expect(Preloader.unrecordedReason(full) == "its list of requisites could not be stored: \(full)")
    }

    @Test func aResponseOnItsWayAtLogoutIsNeitherStoredNorTakenIntoTheCookies() async throws {
        try await withInstance { (fixture) async throws in
            fixture.instance.state.withLock { $0.pageCacheControl = "private, max-age=600" }
            let (arrived, release) = Self.holdAnswer(to: "/nav/slow", in: fixture)
            let alice = try fixture.cache(user: "alice")
            let load = Task { try await alice.data(for: WebRequest("nav/slow")) }
            #expect(await Self.arrival(arrived))
            try await alice.logout()
            release.signal()

            let error = await #expect(throws: WebCacheError.self) { try await load.value }
            #expect(error?.code == .authorization)
            #expect(error?.message.contains("signed out") == true, "\(String(describing: error))")
            #expect(try alice.storedVariants(fixture.origin.url("nav/slow")).isEmpty)
            // The session the slow answer set up is not this one's: the next request starts anew.
            _ = try await alice.data(for: WebRequest("nav/after"))
            #expect(fixture.pageRequests.suffix(2) == ["/nav/slow bearer", "/nav/after bearer"])
        }
    }

    @Test func aBodyStillArrivingAtLogoutIsNotStored() async throws {
        try await withInstance { (fixture) async throws in
            let halfSent = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            fixture.override.value = { request in
                guard request.path == "/nav/stream" else { return nil }
                return OriginResponse(status: 200, headers: ["Cache-Control": "private, max-age=600"],
                                      body: .stream(contentLength: 10) { writer in
                                          try writer.write("12345")
                                          halfSent.signal()
                                          Self.hold(release)
                                          try writer.write("67890")
                                      })
            }
            let alice = try fixture.cache(user: "alice")
            let response = try await alice.load(WebRequest("nav/stream"))
            #expect(await Self.arrival(halfSent))
            try await alice.logout()
            release.signal()

            let error = await #expect(throws: WebCacheError.self) { _ = try await response.body.collect(upTo: 100) }
            #expect(error?.message.contains("signed out while the response") == true, "\(String(describing: error))")
            #expect(try alice.storedVariants(fixture.origin.url("nav/stream")).isEmpty)
            #expect(try alice.store.totals().entryCount == 0)
        }
    }

    @Test func aRequestWaitingForItsTokenAtLogoutIsNotSent() async throws {
        try await withInstance { (fixture) async throws in
            let provider = HeldProvider(inner: fixture.provider(for: "alice"))
            let alice = try fixture.cache(user: "alice", provider: provider)
            let load = Task { try await alice.data(for: WebRequest("nav/profile")) }
            #expect(await Self.arrival(provider.asked))
            try await alice.logout()
            provider.release.signal()

            let error = await #expect(throws: WebCacheError.self) { try await load.value }
            #expect(error?.code == .authorization)
            #expect(error?.message.contains("signed out") == true, "\(String(describing: error))")
            #expect(fixture.pageRequests.isEmpty)
        }
    }

    /// A transport of one connection that signals `handed` when it is handed a request for `path`.
    struct OneConnection: HTTPTransport {
        let inner: CurlTransport
        let path: String
        let handed = DispatchSemaphore(value: 0)

        init(path: String) throws {
            var configuration = CurlTransport.Configuration()
            configuration.proxy = ""
            configuration.maxConnections = 1
            configuration.maxConnectionsPerHost = 1
            inner = try CurlTransport(configuration: configuration)
            self.path = path
        }

        func send(_ request: HTTPRequest) async throws -> TransportResponse {
            if request.url.path == path { handed.signal() }
            return try await inner.send(request)
        }
    }

    @Test func aRequestWaitingForAConnectionAtLogoutIsNotSentWithTheCookie() async throws {
        try await withInstance { (fixture) async throws in
            // Given: alice's session open, and the only connection busy with a held page
            let transport = try OneConnection(path: "/nav/second")
            let alice = try fixture.cache(user: "alice", transport: transport)
            _ = try await alice.data(for: WebRequest("nav/first"))
            let (arrived, release) = Self.holdAnswer(to: "/nav/held", in: fixture)
            let held = Task { try await alice.data(for: WebRequest("nav/held")) }
            #expect(await Self.arrival(arrived))
            // When: a second page is handed to the transport with her cookie, to wait for the connection,
            // and she signs out
            let second = Task { try await alice.data(for: WebRequest("nav/second")) }
            #expect(await Self.arrival(transport.handed))
            try await alice.logout()
            release.signal()
            _ = try? await held.value
            // Then: the second page does not leave with the signed-out session's cookie
            let error = await #expect(throws: WebCacheError.self) { try await second.value }
            #expect(error?.code == .authorization)
            #expect(error?.message == "The user signed out while the request for "
                + "\(fixture.origin.url("nav/second")) waited to be sent; it was not sent.")
            #expect(fixture.pageRequests == ["/nav/first bearer", "/nav/held cookie"], "\(fixture.pageRequests)")
        }
    }

    @Test func aCompletionHandlerLoadCanBeCancelled() async throws {
        try await withInstance { (fixture) async throws in
            let arrived = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            fixture.override.value = { request in
                guard request.path == "/public-slow" else { return nil }
                arrived.signal()
                Self.hold(release)
                return .text("late", headers: ["Cache-Control": "max-age=600"])
            }
            let guest = try fixture.cache()
            let result = Shared<Result<LoadedResponse, any Error>?>(nil)
            let finished = DispatchSemaphore(value: 0)
            let task = guest.data(for: WebRequest("public-slow")) { outcome in
                result.value = outcome
                finished.signal()
            }
            #expect(await Self.arrival(arrived))
            task.cancel()
            #expect(await Self.arrival(finished))
            release.signal()
            guard case .failure(let error) = result.value else {
                Issue.record("The cancelled load ended with \(String(describing: result.value))")
                return
            }
            #expect(error is CancellationError, "\(error)")
            #expect(try guest.storedVariants(fixture.origin.url("public-slow")).isEmpty)
        }
    }
}

/// A provider whose first token is handed out only after ``release`` is signalled; ``asked`` is
/// signalled when it is asked.
struct HeldProvider: AuthorizationProviding {
    let inner: RecordingProvider
    let asked = DispatchSemaphore(value: 0)
    let release = DispatchSemaphore(value: 0)

    func token(forceRefresh: Bool) async throws -> AuthorizationToken? {
        asked.signal()
        _ = await SignOutTests.arrival(release)
        return try await inner.token(forceRefresh: forceRefresh)
    }

    func removeCachedToken() async {
        await inner.removeCachedToken()
    }
}
