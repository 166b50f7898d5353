import Foundation
import HTTPCore
import LocalOrigin
import Sessions
import Synchronization
import Transport
import WebCacheTestSupport

@testable import WebCache

/// An origin that behaves like an instance: a JWT exchange endpoint (RFC 7523) that issues access
/// tokens, sessions started by a bearer token and kept by a `session` cookie, an idle timeout after
/// which pages redirect to `/login.do`, pages private to each user, and a public page.
final class TestInstance: Sendable {
    struct State {
        /// How long a session lives without requests.
        var idleTimeout: TimeInterval = 600
        /// `Cache-Control` of the private pages.
        var pageCacheControl = "private, no-cache"
        /// When set, pages refuse every bearer token (as if the user lost access).
        var refuseBearer = false
        var tokens: [String: String] = [:]
        var sessions: [String: (user: String, lastSeen: Date)] = [:]
        var tokenRequests = 0
    }

    static let grantField = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"

    let state = Mutex(State())

    func handle(_ request: OriginRequest) -> OriginResponse {
        state.withLock { state in
            switch request.path {
            case "/oauth_token.do":
                return issueToken(request, &state)
            case "/login.do":
                return .text("login page", headers: ["Cache-Control": "max-age=600"])
            case "/public":
                return .text("public page", headers: ["Cache-Control": "max-age=600"])
            default:
                return page(request, &state)
            }
        }
    }

    private func issueToken(_ request: OriginRequest, _ state: inout State) -> OriginResponse {
        let form = String(decoding: request.body, as: UTF8.self)
        let fields = form.split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
        let assertion = fields.first { $0.first == "assertion" }?.last ?? ""
        guard request.method == .post, form.hasPrefix(Self.grantField), assertion.hasPrefix("signed-") else {
            return .text(#"{"error":"invalid_grant"}"#, status: 400, contentType: "application/json")
        }
        state.tokenRequests += 1
        let token = "access-\(state.tokenRequests)"
        state.tokens[token] = String(assertion.dropFirst("signed-".count))
        return .text(#"{"access_token":"\#(token)","token_type":"Bearer","expires_in":3600}"#,
                     contentType: "application/json", headers: ["Cache-Control": "no-store"])
    }

    private func page(_ request: OriginRequest, _ state: inout State) -> OriginResponse {
        let now = Date()
        var user: String?
        var setCookie: String?
        if let authorization = request.headers["Authorization"], authorization.hasPrefix("Bearer "),
            let owner = state.tokens[String(authorization.dropFirst("Bearer ".count))], !state.refuseBearer
        {
            let id = UUID().uuidString
            state.sessions[id] = (owner, now)
            user = owner
            setCookie = "session=\(id); Path=/; HttpOnly"
        } else if let id = Self.sessionID(in: request), let session = state.sessions[id],
            now.timeIntervalSince(session.lastSeen) <= state.idleTimeout
        {
            state.sessions[id]?.lastSeen = now
            user = session.user
        }
        guard let user else {
            return OriginResponse(status: 302, headers: ["Location": "/login.do?goto=\(request.path)"])
        }
        let etag = "\"\(user)\(request.path)\""
        var headers: HTTPHeaders = ["Cache-Control": state.pageCacheControl, "ETag": etag]
        if let setCookie { headers["Set-Cookie"] = setCookie }
        if request.headers["If-None-Match"] == etag {
            return OriginResponse(status: 304, headers: headers)
        }
        return .text("page \(request.path) for \(user)", headers: headers)
    }

    private static func sessionID(in request: OriginRequest) -> String? {
        request.headers["Cookie"]?.split(separator: ";").lazy.map { $0.trimmingHTTPWhitespace() }
            .first { $0.hasPrefix("session=") }.map { String($0.dropFirst("session=".count)) }
    }
}

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
    private var caches: [WebCache] = []

    init() throws {
        folder = try TemporaryFolder()
        let instance = instance
        origin = OriginServer { instance.handle($0) }
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
        user: String? = nil, provider: (any AuthorizationProviding)? = nil, persistsCookies: Bool = false
    ) throws -> WebCache {
        var configuration = WebCache.Configuration(environment: [:])
        configuration.persistsCookies = persistsCookies
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
