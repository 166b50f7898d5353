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

/// Preloading a signed-in user's pages from an instance: one sign-in for the whole run, requisites
/// that need the session, and a session that expires during the run.
@Suite(.timeLimit(.minutes(5)))
struct SessionPreloadTests {
    static let pages = ["nav/a.html", "nav/b.html"]
    static let stored = ["nav/a.html", "nav/b.html", "nav/style.css", "nav/logo.png"]

    @Test func preloadSignsInOnceAndStoresEveryPrivatePageAndRequisite() async throws {
        try await withInstance { (fixture) async throws in
            let provider = fixture.provider(for: "alice")
            let cache = try fixture.cache(user: "alice", provider: provider)

            let report = await cache.preload(Self.pages)

            #expect(report.failures.isEmpty, "\(report.failures)")
            #expect(report.pages == 2)
            #expect(report.completed == 4)
            for path in Self.stored {
                let variants = try cache.storedVariants(fixture.origin.url(path))
                #expect(variants.map(\.status) == [200], "\(path)")
                #expect(variants.allSatisfy { String(decoding: $0.body, as: UTF8.self).contains("for alice") })
            }
            #expect(provider.calls.value == [false])
            #expect(fixture.instance.state.withLock { $0.tokenRequests } == 1)
            // The pages started the session; what they need was fetched with its cookie.
            let requisiteRequests = fixture.pageRequests.filter { !$0.hasPrefix("/nav/a.html") && !$0.hasPrefix("/nav/b.html") }
            #expect(requisiteRequests.sorted() == ["/nav/logo.png cookie", "/nav/style.css cookie"])
            #expect(try cache.store.variants(partition: "guest", url: fixture.origin.url("nav/a.html").absoluteString)
                .isEmpty)
        }
    }

    /// The instance says the session expired with a redirect to its login page (`nil`) or with 401.
    @Test(arguments: [nil, 401] as [Int?])
    func aSessionThatExpiresBeforeThePreloadIsRenewedOnceForEveryPage(expiryStatus: Int?) async throws {
        try await withInstance { (fixture) async throws in
            let provider = fixture.provider(for: "alice")
            let cache = try fixture.cache(user: "alice", provider: provider)
            _ = try await cache.data(for: WebRequest("nav/home"))
            fixture.instance.state.withLock { state in
                state.sessions.removeAll()
                state.expiryStatus = expiryStatus
            }
            let before = fixture.origin.requests.count

            let report = await cache.preload(Self.pages)

            #expect(report.failures.isEmpty, "\(report.failures)")
            #expect(report.completed == 4)
            // The run counts what reached the instance: the refused requests and their replays.
            let sent = fixture.origin.requests.dropFirst(before).filter { $0.path != "/oauth_token.do" }
            #expect(report.requests == sent.count, "\(sent.map(\.path))")
            // Both pages were refused at once, and share one fresh token.
            #expect(provider.calls.value == [false, true])
            #expect(!fixture.origin.requests.contains { $0.path == "/login.do" })
            for path in Self.stored {
                #expect(try cache.storedVariants(fixture.origin.url(path)).map(\.status) == [200], "\(path)")
            }
            #expect(try cache.store.totals().entryCount == 5)
        }
    }

    @Test func onlyTheRequestsThatNeedTheNewSessionWaitForIt() async throws {
        try await withInstance { (fixture) async throws in
            // Another site's page is held at its origin until the token refresh has started; its
            // stylesheet can then only be fetched while the refresh waits, which it does until
            // that stylesheet is in.
            let provider = GatedProvider(inner: fixture.provider(for: "alice"))
            let heldUntilRefresh = Mutex<Bool?>(nil)
            let other = OriginServer { request in
                if request.path == "/page.html" {
                    let started = provider.refreshStarted.wait(timeout: .now() + 120) == .success
                    heldUntilRefresh.withLock { $0 = started }
                    return .text(#"<link rel="stylesheet" href="style.css">"#, contentType: "text/html")
                }
                return .text("body { color: teal }", contentType: "text/css")
            }
            try other.start()
            defer { other.stop() }
            let stylesheet = other.url("style.css")
            let cache = try fixture.cache(user: "alice", provider: provider)
            _ = try await cache.data(for: WebRequest("nav/home"))
            fixture.instance.state.withLock { $0.sessions.removeAll() }
            let watchdog = Task {
                try await Task.sleep(for: .seconds(120))
                provider.gate.open(by: "the watchdog")
            }

            let report = await cache.preload(["nav/a.html", other.url("page.html").absoluteString]) { event in
                if case .fetched(let url, _, _, _) = event, url == stylesheet {
                    provider.gate.open(by: "the other site's stylesheet")
                }
            }
            watchdog.cancel()

            #expect(heldUntilRefresh.withLock { $0 } == true)
            #expect(provider.gate.openedBy == "the other site's stylesheet")
            #expect(report.failures.isEmpty, "\(report.failures)")
            #expect(report.completed == 5)
            #expect(provider.inner.calls.value == [false, true])
        }
    }
}

/// A provider whose forced refreshes signal ``refreshStarted``, then wait for ``gate``.
struct GatedProvider: AuthorizationProviding {
    let inner: RecordingProvider
    let refreshStarted = DispatchSemaphore(value: 0)
    let gate = Gate()

    func token(forceRefresh: Bool) async throws -> AuthorizationToken? {
        if forceRefresh {
            refreshStarted.signal()
            await gate.wait()
        }
        return try await inner.token(forceRefresh: forceRefresh)
    }

    func removeCachedToken() async {
        await inner.removeCachedToken()
    }
}

/// Holds waiters until it is opened, once, by someone it remembers.
final class Gate: Sendable {
    private struct State {
        var openedBy: String?
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Who opened the gate, if anyone has.
    var openedBy: String? { state.withLock { $0.openedBy } }

    func open(by opener: String) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard state.openedBy == nil else { return [] }
            state.openedBy = opener
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { continuation in
            let isOpen = state.withLock { state in
                if state.openedBy != nil { return true }
                state.waiters.append(continuation)
                return false
            }
            if isOpen { continuation.resume() }
        }
    }
}
