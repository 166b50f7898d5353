import Foundation
import HTTPCore
import LocalOrigin
import Synchronization

/// The behaviour of an instance, for an ``OriginServer``: a JWT exchange endpoint (RFC 7523) that
/// issues access tokens, sessions started by a bearer token and kept by a `session` cookie, an idle
/// timeout after which requests are answered with a redirect to `/login.do` (or with
/// ``State/expiryStatus``), pages private to each user, and a public page.
///
/// Private paths ending in `.html` are pages that need `style.css` and `logo.png` beside them,
/// themselves private; other private paths are plain text naming the path and the user.
/// `/api/me` answers who the session's user is, as `{"sub": "<user>"}` (an OpenID Connect userinfo).
public final class TestInstance: Sendable {
    public struct State: Sendable {
        /// How long a session lives without requests.
        public var idleTimeout: TimeInterval = 600
        /// `Cache-Control` of the private pages.
        public var pageCacheControl = "private, no-cache"
        /// When set, pages refuse every bearer token (as if the user lost access).
        public var refuseBearer = false
        /// When set, a private request without a session is answered with this status and a
        /// `WWW-Authenticate` challenge instead of the redirect to the login page.
        public var expiryStatus: Int?
        /// Access tokens and the users they belong to.
        public var tokens: [String: String] = [:]
        /// Session ids and their users.
        public var sessions: [String: (user: String, lastSeen: Date)] = [:]
        /// Tokens issued by the exchange endpoint.
        public var tokenRequests = 0
        /// When set, where the redirect for a request without a session goes instead of `/login.do`
        /// (an external identity provider).
        public var loginLocation: String?
        /// When set, each request that carries a session cookie gets a new session id in its place.
        public var rotatesSessions = false
    }

    /// The form field of a JWT-bearer grant.
    public static let grantField = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer"

    public let state = Mutex(State())

    public init() {}

    /// Answers `request` as the instance would.
    public func handle(_ request: OriginRequest) -> OriginResponse {
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

    /// Exchanges an assertion `signed-<user>`, or a compact JWT whose `sub` is the user, for an access
    /// token of that user.
    private func issueToken(_ request: OriginRequest, _ state: inout State) -> OriginResponse {
        let form = String(decoding: request.body, as: UTF8.self)
        let fields = form.split(separator: "&").map { $0.split(separator: "=", maxSplits: 1).map(String.init) }
        let assertion = fields.first { $0.first == "assertion" }?.last ?? ""
        let user = assertion.hasPrefix("signed-") ? String(assertion.dropFirst("signed-".count)) : Self.subject(of: assertion)
        guard request.method == .post, form.hasPrefix(Self.grantField), let user else {
            return .text(#"{"error":"invalid_grant"}"#, status: 400, contentType: "application/json")
        }
        state.tokenRequests += 1
        let token = "access-\(state.tokenRequests)"
        state.tokens[token] = user
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
            if state.rotatesSessions {
                let rotated = UUID().uuidString
                state.sessions[id] = nil
                state.sessions[rotated] = (session.user, now)
                setCookie = "session=\(rotated); Path=/; HttpOnly"
            }
        }
        guard let user else {
            if let status = state.expiryStatus {
                return .text("session expired", status: status,
                             headers: ["WWW-Authenticate": #"Bearer realm="instance", error="invalid_token""#])
            }
            let location = state.loginLocation ?? "/login.do?goto=\(request.path)"
            return OriginResponse(status: 302, headers: ["Location": location])
        }
        if request.path == "/api/me" {
            var headers: HTTPHeaders = ["Cache-Control": "no-store"]
            if let setCookie { headers["Set-Cookie"] = setCookie }
            return .text(#"{"sub":"\#(user)"}"#, contentType: "application/json", headers: headers)
        }
        let etag = "\"\(user)\(request.path)\""
        var headers: HTTPHeaders = ["Cache-Control": state.pageCacheControl, "ETag": etag]
        if let setCookie { headers["Set-Cookie"] = setCookie }
        if request.headers["If-None-Match"] == etag {
            return OriginResponse(status: 304, headers: headers)
        }
        let text = "page \(request.path) for \(user)"
        if request.path.hasSuffix(".html") {
            let html = #"<!doctype html><link rel="stylesheet" href="style.css"><img src="logo.png"><p>\#(text)"#
            return .text(html, contentType: "text/html; charset=utf-8", headers: headers)
        }
        if request.path.hasSuffix(".css") {
            return .text("/* \(text) */", contentType: "text/css", headers: headers)
        }
        return .text(text, headers: headers)
    }

    /// The `sub` of a compact JWT (base64url JSON between the first and second dot), unverified.
    private static func subject(of jwt: String) -> String? {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var base64 = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard let data = Data(base64Encoded: base64),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return nil }
        return object["sub"] as? String
    }

    /// A compact JWT (unsigned, `alg: none`) whose payload is `{"sub": user}`, as a JWT command prints it.
    public static func jwt(subject user: String) -> String {
        func encoded(_ text: String) -> String {
            Data(text.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return encoded(#"{"alg":"none"}"#) + "." + encoded(#"{"sub":"\#(user)"}"#) + "."
    }

    private static func sessionID(in request: OriginRequest) -> String? {
        request.headers["Cookie"]?.split(separator: ";").lazy.map { $0.trimmingHTTPWhitespace() }
            .first { $0.hasPrefix("session=") }.map { String($0.dropFirst("session=".count)) }
    }
}
