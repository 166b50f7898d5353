import FoundationEssentials
import HTTPCore
import Synchronization

/// A thread-safe cookie store following the RFC 6265 §5 user-agent model, with the RFC 6265bis
/// additions a modern server relies on (`SameSite`, cookie name prefixes, secure-cookie protection).
///
/// The loader gives every response's `Set-Cookie` lines to ``store(from:for:now:)`` and asks
/// ``cookieHeader(for:now:)`` for the `Cookie` field of each request.
///
/// ```swift
/// let jar = CookieJar()
/// jar.store(setCookie: "SID=31d4d96e; Path=/; Secure; HttpOnly", from: instanceURL)
/// request.headers["Cookie"] = jar.cookieHeader(for: request.url)
/// ```
///
/// **Secure contexts.** A `Secure` cookie is stored from, and sent to, `https` URLs; like browsers
/// (W3C Secure Contexts, "potentially trustworthy origins") plain `http` to a loopback host
/// (`localhost`, `*.localhost`, `127.0.0.0/8`, `::1`) also counts as secure, because that traffic
/// never leaves the machine. This lets a local test origin exercise secure cookies.
///
/// **SameSite.** This client is always first-party to the instance, so `SameSite` never blocks a
/// cookie; it is recorded on each ``Cookie``.
public final class CookieJar: Sendable {
    /// Limits that keep a misbehaving server from filling memory.
    public struct Configuration: Sendable, Hashable {
        /// At most this many cookies per domain; the least recently used are evicted first (RFC 6265 §5.3).
        public var maximumCookiesPerDomain: Int
        /// At most this many cookies in all.
        public var maximumCookies: Int

        /// Creates limits; the defaults are those RFC 6265 §6.1 asks for at least (50 per domain, 3000 in all).
        public init(maximumCookiesPerDomain: Int = 50, maximumCookies: Int = 3000) {
            precondition(maximumCookiesPerDomain > 0 && maximumCookies > 0, "Cookie limits must be positive.")
            self.maximumCookiesPerDomain = maximumCookiesPerDomain
            self.maximumCookies = maximumCookies
        }
    }

    /// Every cookie of a jar, for a store to persist and later ``CookieJar/restore(_:now:)``.
    ///
    /// Snapshots hold cookie values: persist them only in files readable by their owner alone.
    public struct Snapshot: Sendable, Hashable, Codable {
        /// The cookies, ordered by creation time.
        public var cookies: [Cookie]

        /// Creates a snapshot from cookies.
        public init(cookies: [Cookie]) {
            self.cookies = cookies
        }
    }

    /// What ``CookieJar/store(setCookie:from:now:)`` did with a line.
    public enum Decision: Sendable, Hashable {
        /// The cookie was added or replaced a cookie of the same name, domain and path.
        case stored
        /// The cookie was already expired: any cookie of the same name, domain and path was removed.
        case removed
        /// The line was ignored, for the reason given.
        case rejected(Rejection)
    }

    /// Why a `Set-Cookie` line was ignored.
    public enum Rejection: Sendable, Hashable {
        /// The line has no `=` in its name-value pair or an empty name (RFC 6265 §5.2).
        case malformed
        /// The name and value exceed 4096 bytes (RFC 6265bis §5.6).
        case tooLarge
        /// The line holds a control character (RFC 6265bis §5.6).
        case forbiddenCharacter
        /// The `Domain` attribute is a public suffix such as `com` or `co.uk` (RFC 6265 §5.3 step 5).
        case publicSuffixDomain
        /// The request host does not domain-match the `Domain` attribute (RFC 6265 §5.3 step 6).
        case domainMismatch
        /// A `Secure` cookie came over an insecure connection (RFC 6265bis §5.7 step 8).
        case secureFromInsecureOrigin
        /// An insecure origin tried to overwrite a `Secure` cookie (RFC 6265bis §5.7 step 16).
        case overwritesSecureCookie
        /// A `__Secure-` or `__Host-` cookie without the attributes its prefix demands (RFC 6265bis §4.1.3).
        case prefixViolation
        /// The URL has no host, so no cookie can belong to it.
        case noHost
    }

    // MARK: - State

    private struct Key: Hashable {
        var name: String
        var domain: String
        var path: String
    }

    /// The cookies, and the order they were first stored in: RFC 6265 §5.4 orders cookies of equal path
    /// length by creation time, and lines of one response share a creation time.
    private struct Storage {
        var cookies: [Key: Cookie] = [:]
        var sequence: [Key: UInt64] = [:]
        var nextSequence: UInt64 = 0

        subscript(key: Key) -> Cookie? {
            get { cookies[key] }
            set {
                cookies[key] = newValue
                if newValue == nil {
                    sequence[key] = nil
                } else if sequence[key] == nil {
                    sequence[key] = nextSequence
                    nextSequence += 1
                }
            }
        }

        /// Whether `lhs` was created before `rhs`, by time and then by storing order.
        func createdBefore(_ lhs: Key, _ rhs: Key) -> Bool {
            let (left, right) = (cookies[lhs]!.createdAt, cookies[rhs]!.createdAt)
            return left != right ? left < right : sequence[lhs, default: 0] < sequence[rhs, default: 0]
        }

        mutating func removeExpired(at now: Date) {
            for (key, cookie) in cookies where cookie.isExpired(at: now) { self[key] = nil }
        }
    }

    private let configuration: Configuration
    /// RFC 6265bis: no cookie lives longer than 400 days.
    private static let maximumAge = 400 * 86_400
    private let storage = Mutex(Storage())

    /// Creates an empty jar.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The number of cookies held, expired ones included until the next access removes them.
    public var count: Int {
        storage.withLock { $0.cookies.count }
    }

    // MARK: - Storing (RFC 6265 §5.3)

    /// Applies every `Set-Cookie` line of `response`, received for `url`; `true` when a cookie was
    /// stored or removed.
    @discardableResult
    public func store(from response: HTTPResponseHead, for url: URL, now: Date = Date()) -> Bool {
        var changed = false
        for line in response.headers.values(for: "Set-Cookie") {
            switch store(setCookie: line, from: url, now: now) {
            case .stored, .removed: changed = true
            case .rejected: break
            }
        }
        return changed
    }

    /// Applies one `Set-Cookie` field value received for `url`.
    ///
    /// Malformed or refused lines are ignored, as RFC 6265 demands; the returned ``Decision`` says why.
    @discardableResult
    public func store(setCookie line: String, from url: URL, now: Date = Date()) -> Decision {
        let parsed: SetCookie
        switch SetCookie.parse(line) {
        case .success(let value): parsed = value
        case .failure(.tooLarge): return .rejected(.tooLarge)
        case .failure(.forbiddenCharacter): return .rejected(.forbiddenCharacter)
        case .failure(.missingEquals), .failure(.emptyName): return .rejected(.malformed)
        }
        guard let host = Self.canonicalHost(of: url) else { return .rejected(.noHost) }
        let secureOrigin = Self.isSecureContext(url)

        // Step 3: Max-Age wins over Expires; neither makes a session cookie. RFC 6265bis §5.6.1-2 caps
        // either at 400 days from now.
        var expiresAt: Date?
        if let maxAge = parsed.maxAge {
            expiresAt =
                maxAge <= 0 ? Date.distantPast : now.addingTimeInterval(TimeInterval(min(maxAge, Self.maximumAge)))
        } else if let expires = parsed.expires {
            expiresAt = min(expires, now.addingTimeInterval(TimeInterval(Self.maximumAge)))
        }

        // Steps 5 and 6: the Domain attribute.
        var domain = host
        var isHostOnly = true
        if let requested = parsed.domain {
            // A top-level name (`test`, `corp`, `localhost`) counts as a public suffix too: the list
            // leaves unknown ones out, but no site may set cookies for every name under one.
            if PublicSuffixList.isPublicSuffix(requested) || !requested.contains(".") {
                // "If the domain-attribute is identical to the canonicalized request-host" it is a host-only cookie.
                guard requested == host else { return .rejected(.publicSuffixDomain) }
            } else {
                guard Self.domainMatches(host: host, domain: requested) else { return .rejected(.domainMismatch) }
                domain = requested
                isHostOnly = false
            }
        }

        // Step 7: the path.
        let path = parsed.path ?? Self.defaultPath(of: url)

        // RFC 6265bis: Secure needs a secure origin; prefixes demand their attributes.
        if parsed.isSecure && !secureOrigin { return .rejected(.secureFromInsecureOrigin) }
        if parsed.name.lowercased().hasPrefix("__secure-") && !parsed.isSecure { return .rejected(.prefixViolation) }
        if parsed.name.lowercased().hasPrefix("__host-")
            && (!parsed.isSecure || parsed.domain != nil || parsed.path != "/")
        {
            return .rejected(.prefixViolation)
        }

        let cookie = Cookie(
            name: parsed.name,
            value: parsed.value,
            domain: domain,
            isHostOnly: isHostOnly,
            path: path,
            expiresAt: expiresAt,
            createdAt: now,
            lastAccessedAt: now,
            isSecure: parsed.isSecure,
            isHTTPOnly: parsed.isHTTPOnly,
            sameSite: parsed.sameSite
        )
        return storage.withLock { storage in
            insert(cookie, secureOrigin: secureOrigin, now: now, into: &storage)
        }
    }

    private func insert(_ new: Cookie, secureOrigin: Bool, now: Date, into storage: inout Storage) -> Decision {
        var new = new
        // RFC 6265bis §5.7 step 16: an insecure origin may not shadow a Secure cookie of the same name.
        if !secureOrigin && !new.isSecure {
            let shadows = storage.cookies.values.contains { old in
                old.isSecure && old.name == new.name
                    && (Self.domainMatches(host: old.domain, domain: new.domain)
                        || Self.domainMatches(host: new.domain, domain: old.domain))
                    && Self.pathMatches(requestPath: old.path, cookiePath: new.path)
            }
            if shadows { return .rejected(.overwritesSecureCookie) }
        }
        let key = Key(name: new.name, domain: new.domain, path: new.path)
        // Step 11: a replaced cookie keeps its creation time.
        if let old = storage[key] { new.createdAt = old.createdAt }
        if new.isExpired(at: now) {
            storage[key] = nil
            return .removed
        }
        storage[key] = new
        evict(in: new.domain, now: now, from: &storage)
        return .stored
    }

    /// Removes expired cookies, then the least recently used, until the limits hold (RFC 6265 §5.3).
    private func evict(in domain: String, now: Date, from storage: inout Storage) {
        let inDomain = storage.cookies.keys.filter { $0.domain == domain }
        if inDomain.count > configuration.maximumCookiesPerDomain {
            let excess = inDomain.count - configuration.maximumCookiesPerDomain
            for key in Self.evictionOrder(inDomain, in: storage, now: now).prefix(excess) { storage[key] = nil }
        }
        if storage.cookies.count > configuration.maximumCookies {
            let excess = storage.cookies.count - configuration.maximumCookies
            for key in Self.evictionOrder(Array(storage.cookies.keys), in: storage, now: now).prefix(excess) {
                storage[key] = nil
            }
        }
    }

    /// Expired cookies first, then the least recently accessed, then the oldest.
    private static func evictionOrder(_ keys: [Key], in storage: Storage, now: Date) -> [Key] {
        keys.sorted { lhs, rhs in
            let (left, right) = (storage.cookies[lhs]!, storage.cookies[rhs]!)
            if left.isExpired(at: now) != right.isExpired(at: now) { return left.isExpired(at: now) }
            if left.lastAccessedAt != right.lastAccessedAt { return left.lastAccessedAt < right.lastAccessedAt }
            return storage.createdBefore(lhs, rhs)
        }
    }

    // MARK: - Sending (RFC 6265 §5.4)

    /// The value of the `Cookie` field for a request to `url`, or `nil` when no cookie applies.
    ///
    /// Cookies are ordered longer paths first, then earlier creation first (§5.4 step 2; cookies created in the
    /// same instant in the order they were stored); each sent
    /// cookie's last-access time becomes `now`.
    public func cookieHeader(for url: URL, now: Date = Date()) -> String? {
        let selected = cookies(for: url, now: now)
        guard !selected.isEmpty else { return nil }
        return selected.map { "\($0.name)=\($0.value)" }.joined(separator: "; ")
    }

    /// The cookies a request to `url` carries, in the order of the `Cookie` field; marks them accessed.
    public func cookies(for url: URL, now: Date = Date()) -> [Cookie] {
        guard let host = Self.canonicalHost(of: url) else { return [] }
        let secure = Self.isSecureContext(url)
        let path = Self.requestPath(of: url)
        return storage.withLock { storage in
            storage.removeExpired(at: now)
            let selected = storage.cookies.filter { _, cookie in
                Self.applies(cookie, host: host, path: path, secure: secure)
            }.keys.sorted { lhs, rhs in
                lhs.path.utf8.count != rhs.path.utf8.count
                    ? lhs.path.utf8.count > rhs.path.utf8.count : storage.createdBefore(lhs, rhs)
            }
            return selected.map { key in
                storage.cookies[key]!.lastAccessedAt = now
                return storage.cookies[key]!
            }
        }
    }

    /// Whether a request to `url` would carry at least one cookie; does not mark cookies accessed.
    public func containsCookies(for url: URL, now: Date = Date()) -> Bool {
        guard let host = Self.canonicalHost(of: url) else { return false }
        let secure = Self.isSecureContext(url)
        let path = Self.requestPath(of: url)
        return storage.withLock { storage in
            storage.cookies.values.contains {
                !$0.isExpired(at: now) && Self.applies($0, host: host, path: path, secure: secure)
            }
        }
    }

    // MARK: - Export, import, removal

    /// Every unexpired cookie, for persistence.
    public func snapshot(now: Date = Date()) -> Snapshot {
        storage.withLock { storage in
            let keys = storage.cookies.filter { !$0.value.isExpired(at: now) }.keys.sorted(by: storage.createdBefore)
            return Snapshot(cookies: keys.map { storage.cookies[$0]! })
        }
    }

    /// Adds the unexpired cookies of `snapshot`, replacing held cookies of the same name, domain and path.
    public func restore(_ snapshot: Snapshot, now: Date = Date()) {
        storage.withLock { storage in
            for cookie in snapshot.cookies where !cookie.isExpired(at: now) {
                storage[Key(name: cookie.name, domain: cookie.domain, path: cookie.path)] = cookie
                evict(in: cookie.domain, now: now, from: &storage)
            }
        }
    }

    /// Removes every cookie, as logout does.
    public func removeAll() {
        storage.withLock { $0 = Storage() }
    }

    // MARK: - Matching rules

    /// The lowercase host of `url`, without IPv6 brackets or a trailing dot; `nil` when it has none.
    static func canonicalHost(of url: URL) -> String? {
        guard var host = url.host(percentEncoded: false)?.lowercased(), !host.isEmpty else { return nil }
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host.hasSuffix(".") { host.removeLast() }
        return host.isEmpty ? nil : host
    }

    /// Whether requests to `url` may carry `Secure` cookies: `https`, `wss`, or a loopback host.
    public static func isSecureContext(_ url: URL) -> Bool {
        switch url.scheme?.lowercased() {
        case "https", "wss": return true
        case "http", "ws":
            guard let host = canonicalHost(of: url) else { return false }
            return host == "localhost" || host.hasSuffix(".localhost") || host == "::1"
                || (isIPAddress(host) && host.hasPrefix("127."))
        default: return false
        }
    }

    /// RFC 6265 §5.4 step 1: whether `cookie` goes with a request to `host` and `path`.
    private static func applies(_ cookie: Cookie, host: String, path: String, secure: Bool) -> Bool {
        (cookie.isHostOnly ? host == cookie.domain : domainMatches(host: host, domain: cookie.domain))
            && pathMatches(requestPath: path, cookiePath: cookie.path) && (secure || !cookie.isSecure)
    }

    /// RFC 6265 §5.1.3 domain-match: identical, or `host` ends with `.domain` and is not an IP address.
    static func domainMatches(host: String, domain: String) -> Bool {
        if host == domain { return true }
        return host.hasSuffix("." + domain) && !isIPAddress(host)
    }

    /// RFC 6265 §5.1.4 path-match.
    static func pathMatches(requestPath: String, cookiePath: String) -> Bool {
        if requestPath == cookiePath { return true }
        guard requestPath.hasPrefix(cookiePath) else { return false }
        return cookiePath.hasSuffix("/") || requestPath.dropFirst(cookiePath.count).hasPrefix("/")
    }

    /// RFC 6265 §5.1.4 default-path: the request path up to, not including, its last `/`; `/` at least.
    static func defaultPath(of url: URL) -> String {
        let path = requestPath(of: url)
        guard let lastSlash = path.lastIndex(of: "/"), lastSlash != path.startIndex else { return "/" }
        return String(path[..<lastSlash])
    }

    private static func requestPath(of url: URL) -> String {
        let path = url.path(percentEncoded: true)
        return path.hasPrefix("/") ? path : "/"
    }

    private static func isIPAddress(_ host: String) -> Bool {
        if host.contains(":") { return true }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4
            && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isASCII) && UInt8($0) != nil }
    }
}

// MARK: - Description

extension CookieJar: CustomStringConvertible {
    /// The number of cookies; never their values.
    public var description: String {
        "CookieJar(\(count) cookies)"
    }
}
