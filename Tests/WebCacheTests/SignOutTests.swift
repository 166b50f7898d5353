import CacheStore
import Dispatch
import Foundation
import HTTPCore
import LocalOrigin
import Sessions
import Synchronization
import Testing
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
            let arrived = DispatchSemaphore(value: 0)
            let release = DispatchSemaphore(value: 0)
            let instance = fixture.instance
            fixture.override.value = { request in
                guard request.path == "/nav/slow" else { return nil }
                arrived.signal()
                Self.hold(release)
                return instance.handle(request)
            }
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
