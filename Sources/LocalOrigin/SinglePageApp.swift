import Foundation
import HTTPCore
import Synchronization

/// Serves a single-page application (such as `examples/app`) the way an instance does: its
/// scripts, styles, images and fonts as static files anyone may load, and its routes and JSON API
/// only within a session.
///
/// - A request with `Authorization: Bearer <token>` for a known token starts a session: the answer
///   sets a `session` cookie.
/// - A request with the cookie of a live session is answered within it.
/// - Without either, or once the session expired, a route or API request is redirected to
///   `/login.do` (the path webcache's default session policy recognises).
///
/// Routes (`/`, `/notes`, any path without an extension outside the static folders) get the shell
/// page, `index.html`. `GET /api/NAME.json` serves `api/NAME.json` from the folder with an `ETag`
/// and `Cache-Control: private, no-cache`, and 304 to a matching `If-None-Match`.
/// `POST /api/analytics` is counted and answered 204.
public final class SinglePageApp: Sendable {
    /// What the app has seen and how it behaves now.
    public struct State: Sendable {
        /// Tokens that start a session.
        public var tokens: Set<String>
        /// Live sessions by id.
        public var sessions: Set<String> = []
        /// Sessions started by a bearer token.
        public var sessionStarts = 0
        /// Analytics posts received.
        public var analyticsPosts = 0
        /// When set, every session ends right after a response to this path has been made (as if
        /// it expired then).
        public var expireSessionsAfter: String?
    }

    /// The folders whose files are static, public and served as they are.
    public static let staticFolders = ["/js/", "/css/", "/img/", "/fonts/"]

    /// The app's state; tests change it and read it.
    public let state: Mutex<State>
    private let site: StaticSite
    private let root: URL

    /// Serves the app in `root`, starting sessions for `tokens`.
    public init(root: URL, tokens: Set<String>) {
        self.root = root
        state = Mutex(State(tokens: tokens))
        var site = StaticSite(root: root)
        // The shell is revalidated each time, as the instance's pages are.
        site.cacheControlByPath["/index.html"] = "no-cache"
        self.site = site
    }

    /// This app as an ``OriginServer/Handler``.
    public var handler: OriginServer.Handler {
        { request in self.respond(to: request) }
    }

    /// Answers one request.
    public func respond(to request: OriginRequest) -> OriginResponse {
        let path = request.path
        if Self.staticFolders.contains(where: path.hasPrefix) || path == "/favicon.ico" {
            return site.respond(to: request)
        }
        if path == "/login.do" {
            return .text("<!doctype html><title>Sign in</title><p>Sign in to continue.", contentType: "text/html",
                         headers: ["Cache-Control": "no-store"])
        }
        guard let cookie = session(for: request) else {
            return OriginResponse(status: 302, headers: ["Location": "/login.do?goto=\(path)",
                                                         "Cache-Control": "no-store"])
        }
        var response = answer(request)
        if let cookie { response.headers["Set-Cookie"] = cookie }
        state.withLock { state in
            if state.expireSessionsAfter == path {
                state.sessions.removeAll()
                state.expireSessionsAfter = nil
            }
        }
        return response
    }

    /// The request's session: `.some(cookie)` when a bearer token started one now (the cookie to set),
    /// `.some(nil)` within a live session, `nil` without one.
    private func session(for request: OriginRequest) -> String?? {
        state.withLock { state -> String?? in
            if let authorization = request.headers["Authorization"], authorization.hasPrefix("Bearer "),
                state.tokens.contains(String(authorization.dropFirst("Bearer ".count)))
            {
                let id = UUID().uuidString
                state.sessions.insert(id)
                state.sessionStarts += 1
                return .some("session=\(id); Path=/; HttpOnly")
            }
            let id = request.headers["Cookie"]?.split(separator: ";").lazy.map { $0.trimmingHTTPWhitespace() }
                .first { $0.hasPrefix("session=") }.map { String($0.dropFirst("session=".count)) }
            if let id, state.sessions.contains(id) { return .some(nil) }
            return nil
        }
    }

    /// The answer within a session.
    private func answer(_ request: OriginRequest) -> OriginResponse {
        let path = request.path
        if path == "/api/analytics" {
            guard request.method == .post else { return .text("POST only\n", status: 405) }
            state.withLock { $0.analyticsPosts += 1 }
            return OriginResponse(status: 204, headers: ["Cache-Control": "no-store"])
        }
        if path.hasPrefix("/api/") {
            var data = site.respond(to: OriginRequest(method: request.method, target: path, headers: request.headers))
            guard data.status == 200 || data.status == 304 else { return data }
            data.headers.remove("Cache-Control")
            data.headers.remove("Last-Modified")
            data.headers["Cache-Control"] = "private, no-cache"
            return data
        }
        // Every route is the shell; its script picks the route from the path.
        return site.respond(to: OriginRequest(method: request.method, target: "/index.html", headers: request.headers))
    }
}
