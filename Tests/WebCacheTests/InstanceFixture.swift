import Foundation
import HTTPCore
import LocalOrigin
import Sessions
import Synchronization
import Transport
import WebCacheTestSupport

@testable import WebCache

/// A provider that records every call and forwards to another.
struct RecordingProvider: AuthorizationProviding {
    let inner: any AuthorizationProviding
    let calls = Shared<[Bool]>([])

    func token(forceRefresh: Bool) async throws -> AuthorizationToken? {
        calls.update { $0.append(forceRefresh) }
        return try await inner.token(forceRefresh: forceRefresh)
    }

    func removeCachedToken() async {
        await inner.removeCachedToken()
    }
}

/// A provider that cannot hand out tokens.
struct FailingProvider: AuthorizationProviding {
    struct Unavailable: Error {}

    func token(forceRefresh: Bool) async throws -> AuthorizationToken? {
        throw Unavailable()
    }
}

/// An instance on 127.0.0.1 and the caches a test opens over one store file; everything is closed
/// and removed by ``close()``.
final class InstanceFixture {
    let instance = TestInstance()
    let origin: OriginServer
    let folder: TemporaryFolder
    let exchangeTransport: CurlTransport
    /// Answers a request in the instance's place when it returns a response (a held or streamed
    /// answer); runs on the server's threads.
    let override = Shared<(@Sendable (OriginRequest) -> OriginResponse?)?>(nil)
    private var caches: [WebCache] = []

    init() throws {
        folder = try TemporaryFolder()
        let instance = instance
        let override = override
        origin = OriginServer { request in override.value?(request) ?? instance.handle(request) }
        try origin.start()
        exchangeTransport = try CurlTransport()
    }

    /// A JWT-bearer provider for `user`, recording its calls.
    func provider(for user: String) -> RecordingProvider {
        RecordingProvider(inner: JWTBearerProvider(
            configuration: .init(tokenEndpoint: origin.url("oauth_token.do")),
            assertionProvider: StaticTokenProvider(accessToken: "signed-\(user)"),
            transport: exchangeTransport))
    }

    /// A cache over the shared store file: signed in as `user` with `provider`, or a guest.
    func cache(
        user: String? = nil, provider: (any AuthorizationProviding)? = nil, persistsCookies: Bool = false,
        transport: (any HTTPTransport)? = nil
    ) throws -> WebCache {
        var configuration = WebCache.Configuration(environment: [:])
        configuration.persistsCookies = persistsCookies
        configuration.transport = transport
        configuration.storePath = folder.storePath
        configuration.instanceURL = origin.baseURL
        configuration.userID = user
        configuration.authorization = provider ?? user.map { self.provider(for: $0) }
        let cache = try WebCache(configuration: configuration)
        caches.append(cache)
        return cache
    }

    /// The page requests the instance received (not the token exchanges), as `path bearer? cookie?`.
    var pageRequests: [String] {
        origin.requests.filter { $0.path != "/oauth_token.do" }.map { request in
            let credentials = [
                request.headers["Authorization"] == nil ? nil : "bearer",
                request.headers["Cookie"] == nil ? nil : "cookie",
            ].compactMap { $0 }
            return ([request.path] + credentials).joined(separator: " ")
        }
    }

    /// Closes a cache before the end of the test (closing twice is harmless).
    func close(_ cache: WebCache) async {
        await cache.close()
        caches.removeAll { $0 === cache }
    }

    func close() async {
        for cache in caches { await cache.close() }
        origin.stop()
        folder.remove()
    }
}

/// Runs `body` with a fresh instance fixture, closing it afterwards.
func withInstance(_ body: (InstanceFixture) async throws -> Void) async throws {
    let fixture = try InstanceFixture()
    do {
        try await body(fixture)
        await fixture.close()
    } catch {
        await fixture.close()
        throw error
    }
}
