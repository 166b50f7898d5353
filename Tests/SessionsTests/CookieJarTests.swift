import Foundation
import HTTPCore
import Testing

@testable import Sessions

/// RFC 6265 §5.3 storage and §5.4 sending.
struct CookieJarTests {
    let jar = CookieJar()
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func url(_ string: String) -> URL { URL(string: string)! }

    // MARK: - Domain (§5.3 steps 4–6)

    @Test func hostOnlyCookieGoesOnlyToItsHost() {
        // Given
        #expect(jar.store(setCookie: "a=1", from: url("https://www.example.com/"), now: now) == .stored)
        // Then
        #expect(jar.cookieHeader(for: url("https://www.example.com/x"), now: now) == "a=1")
        #expect(jar.cookieHeader(for: url("https://sub.www.example.com/"), now: now) == nil)
        #expect(jar.cookieHeader(for: url("https://example.com/"), now: now) == nil)
    }

    @Test func domainCookieGoesToSubdomains() {
        jar.store(setCookie: "a=1; Domain=.example.com", from: url("https://www.example.com/"), now: now)
        #expect(jar.cookieHeader(for: url("https://example.com/"), now: now) == "a=1")
        #expect(jar.cookieHeader(for: url("https://deep.sub.example.com/"), now: now) == "a=1")
        #expect(jar.cookieHeader(for: url("https://notexample.com/"), now: now) == nil)
        let cookie = jar.snapshot(now: now).cookies[0]
        #expect(!cookie.isHostOnly && cookie.domain == "example.com")
    }

    @Test func rejectsDomainTheHostDoesNotMatch() {
        let decision = jar.store(setCookie: "a=1; Domain=other.com", from: url("https://www.example.com/"), now: now)
        #expect(decision == .rejected(.domainMismatch))
        #expect(jar.count == 0)
    }

    @Test(arguments: [
        ("Domain=com", "https://www.example.com/"),
        ("Domain=co.uk", "https://www.example.co.uk/"),
        ("Domain=.uk", "https://www.example.co.uk/"),
        ("Domain=github.io", "https://someone.github.io/"),
    ])
    func rejectsPublicSuffixDomains(attribute: String, origin: String) {
        // §5.3 step 5: a public suffix as Domain would reach every site under it.
        #expect(
            jar.store(setCookie: "a=1; \(attribute)", from: url(origin), now: now) == .rejected(.publicSuffixDomain)
        )
        #expect(jar.count == 0)
    }

    @Test func publicSuffixDomainEqualToHostBecomesHostOnly() throws {
        // §5.3 step 5: "If the domain-attribute is identical to the canonicalized request-host" keep it host-only.
        #expect(jar.store(setCookie: "a=1; Domain=github.io", from: url("https://github.io/"), now: now) == .stored)
        let cookie = try #require(jar.snapshot(now: now).cookies.first)
        #expect(cookie.isHostOnly && cookie.domain == "github.io")
    }

    @Test func domainMatchingIgnoresIPAddressSuffixes() {
        #expect(CookieJar.domainMatches(host: "10.0.0.1", domain: "0.0.1") == false)
        #expect(CookieJar.domainMatches(host: "10.0.0.1", domain: "10.0.0.1"))
        #expect(CookieJar.domainMatches(host: "a.example.com", domain: "example.com"))
        #expect(CookieJar.domainMatches(host: "aexample.com", domain: "example.com") == false)
    }

    // MARK: - Path (§5.1.4, §5.3 step 7)

    @Test(arguments: [
        ("/", "/"), ("/docs", "/"), ("/docs/", "/docs"), ("/docs/page.html", "/docs"), ("/a/b/c", "/a/b"), ("", "/"),
    ])
    func defaultPath(requestPath: String, expected: String) {
        #expect(CookieJar.defaultPath(of: url("https://example.com" + requestPath)) == expected)
    }

    @Test(arguments: [
        ("/docs", "/docs", true), ("/docs/page", "/docs", true), ("/docs/page", "/docs/", true),
        ("/docsearch", "/docs", false), ("/", "/docs", false), ("/doc", "/docs", false), ("/anything", "/", true),
    ])
    func pathMatch(requestPath: String, cookiePath: String, matches: Bool) {
        #expect(CookieJar.pathMatches(requestPath: requestPath, cookiePath: cookiePath) == matches)
    }

    @Test func cookieWithoutPathUsesDefaultPath() {
        jar.store(setCookie: "a=1", from: url("https://example.com/app/page"), now: now)
        #expect(jar.cookieHeader(for: url("https://example.com/app/other"), now: now) == "a=1")
        #expect(jar.cookieHeader(for: url("https://example.com/"), now: now) == nil)
    }

    // MARK: - Secure

    @Test func secureCookieIsSentOnlyToSecureContexts() {
        jar.store(setCookie: "s=1; Secure; Domain=example.com", from: url("https://example.com/"), now: now)
        jar.store(setCookie: "p=2; Domain=example.com", from: url("https://example.com/"), now: now)
        #expect(jar.cookieHeader(for: url("https://example.com/"), now: now) == "s=1; p=2")
        #expect(jar.cookieHeader(for: url("http://example.com/"), now: now) == "p=2")
    }

    @Test func secureCookieFromPlainHTTPIsRejected() {
        let decision = jar.store(setCookie: "s=1; Secure", from: url("http://example.com/"), now: now)
        #expect(decision == .rejected(.secureFromInsecureOrigin))
    }

    @Test(arguments: ["http://localhost:8080/", "http://127.0.0.1:9/", "http://[::1]/", "http://app.localhost/"])
    func loopbackHTTPIsASecureContext(origin: String) {
        #expect(CookieJar.isSecureContext(url(origin)))
        #expect(jar.store(setCookie: "s=1; Secure", from: url(origin), now: now) == .stored)
        #expect(jar.cookieHeader(for: url(origin), now: now) == "s=1")
    }

    @Test func plainHTTPCannotShadowSecureCookie() {
        jar.store(setCookie: "id=secret; Secure", from: url("https://example.com/"), now: now)
        let decision = jar.store(setCookie: "id=evil", from: url("http://example.com/"), now: now)
        #expect(decision == .rejected(.overwritesSecureCookie))
        #expect(jar.cookieHeader(for: url("https://example.com/"), now: now) == "id=secret")
    }

    // MARK: - Expiry (§5.3 step 3)

    @Test func maxAgeExpiresCookie() {
        jar.store(setCookie: "a=1; Max-Age=60", from: url("https://example.com/"), now: now)
        #expect(jar.cookieHeader(for: url("https://example.com/"), now: now.addingTimeInterval(59)) == "a=1")
        #expect(jar.cookieHeader(for: url("https://example.com/"), now: now.addingTimeInterval(60)) == nil)
        #expect(jar.count == 0)
    }

    @Test func maxAgeWinsOverExpires() {
        jar.store(
            setCookie: "a=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=60",
            from: url("https://example.com/"),
            now: now
        )
        #expect(jar.cookieHeader(for: url("https://example.com/"), now: now) == "a=1")
    }

    @Test func expiresInThePastDeletesCookie() {
        jar.store(setCookie: "a=1", from: url("https://example.com/"), now: now)
        let decision = jar.store(
            setCookie: "a=gone; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
            from: url("https://example.com/"),
            now: now
        )
        #expect(decision == .removed)
        #expect(jar.cookieHeader(for: url("https://example.com/"), now: now) == nil)
    }

    @Test func maxAgeZeroDeletesCookie() {
        jar.store(setCookie: "a=1", from: url("https://example.com/"), now: now)
        #expect(jar.store(setCookie: "a=; Max-Age=0", from: url("https://example.com/"), now: now) == .removed)
        #expect(jar.count == 0)
    }

    @Test(arguments: ["Max-Age=999999999", "Expires=Fri, 31 Dec 9999 23:59:59 GMT"])
    func lifetimeIsCappedAtFourHundredDays(attribute: String) throws {
        jar.store(setCookie: "a=1; \(attribute)", from: url("https://example.com/"), now: now)
        let cookie = try #require(jar.snapshot(now: now).cookies.first)
        #expect(cookie.expiresAt == now.addingTimeInterval(400 * 86_400))
    }

    @Test func sessionCookieHasNoExpiry() throws {
        jar.store(setCookie: "a=1", from: url("https://example.com/"), now: now)
        let cookie = try #require(jar.snapshot(now: now).cookies.first)
        #expect(!cookie.isPersistent)
        #expect(jar.cookieHeader(for: url("https://example.com/"), now: .distantFuture) == "a=1")
    }

    // MARK: - Ordering and replacement (§5.3 step 11, §5.4 step 2)

    @Test func longerPathsFirstThenEarlierCreation() {
        jar.store(setCookie: "root=1; Path=/", from: url("https://example.com/"), now: now)
        jar.store(setCookie: "deep=2; Path=/a/b", from: url("https://example.com/"), now: now.addingTimeInterval(1))
        jar.store(setCookie: "mid=3; Path=/a", from: url("https://example.com/"), now: now.addingTimeInterval(2))
        jar.store(setCookie: "root2=4; Path=/", from: url("https://example.com/"), now: now.addingTimeInterval(3))
        #expect(
            jar.cookieHeader(for: url("https://example.com/a/b/c"), now: now.addingTimeInterval(4))
                == "deep=2; mid=3; root=1; root2=4"
        )
    }

    @Test func replacementKeepsCreationTimeAndOrder() throws {
        jar.store(setCookie: "a=1", from: url("https://example.com/"), now: now)
        jar.store(setCookie: "b=2", from: url("https://example.com/"), now: now.addingTimeInterval(1))
        jar.store(setCookie: "a=3", from: url("https://example.com/"), now: now.addingTimeInterval(2))
        #expect(jar.count == 2)
        #expect(jar.cookieHeader(for: url("https://example.com/"), now: now.addingTimeInterval(3)) == "a=3; b=2")
        let replaced = try #require(jar.snapshot(now: now).cookies.first { $0.name == "a" })
        #expect(replaced.createdAt == now)
    }

    @Test func sameNameOnDifferentPathsAreDistinct() {
        jar.store(setCookie: "a=root; Path=/", from: url("https://example.com/"), now: now)
        jar.store(setCookie: "a=app; Path=/app", from: url("https://example.com/"), now: now)
        #expect(jar.count == 2)
        #expect(jar.cookieHeader(for: url("https://example.com/app"), now: now) == "a=app; a=root")
    }

    // MARK: - Prefixes (RFC 6265bis §4.1.3)

    @Test(arguments: [
        ("__Secure-id=1; Secure", CookieJar.Decision.stored),
        ("__Secure-id=1", .rejected(.prefixViolation)),
        ("__Host-id=1; Secure; Path=/", .stored),
        ("__Host-id=1; Secure", .rejected(.prefixViolation)),  // no explicit Path=/
        ("__Host-id=1; Secure; Path=/; Domain=example.com", .rejected(.prefixViolation)),
        ("__Host-id=1; Path=/", .rejected(.prefixViolation)),
        ("__host-id=1; Path=/", .rejected(.prefixViolation)),  // prefixes compare case-insensitively
    ])
    func prefixes(line: String, decision: CookieJar.Decision) {
        #expect(jar.store(setCookie: line, from: url("https://example.com/"), now: now) == decision)
    }

    // MARK: - Malformed lines and limits

    @Test(arguments: ["", "noequals", "=nameless", ";;;", "a=b\u{7}", "\u{0}=\u{0}"])
    func malformedLinesAreIgnored(line: String) {
        if case .stored = jar.store(setCookie: line, from: url("https://example.com/"), now: now) {
            Issue.record("stored a malformed line")
        }
        #expect(jar.count == 0)
    }

    @Test func oversizedCookieIsIgnored() {
        let line = "big=" + String(repeating: "x", count: 5000)
        #expect(jar.store(setCookie: line, from: url("https://example.com/"), now: now) == .rejected(.tooLarge))
    }

    @Test func perDomainCapEvictsLeastRecentlyUsed() {
        // Given
        let jar = CookieJar(configuration: .init(maximumCookiesPerDomain: 3))
        let origin = url("https://example.com/")
        for (index, name) in ["a", "b", "c"].enumerated() {
            jar.store(setCookie: "\(name)=1", from: origin, now: now.addingTimeInterval(Double(index)))
        }
        // Replacing "a" touches it, so "b" becomes the least recently used.
        jar.store(setCookie: "a=2", from: origin, now: now.addingTimeInterval(10))
        // When
        jar.store(setCookie: "d=1", from: origin, now: now.addingTimeInterval(11))
        // Then
        #expect(Set(jar.snapshot(now: now).cookies.map(\.name)) == ["a", "c", "d"])
        // Cookies of another domain do not count against this one.
        jar.store(setCookie: "e=1", from: url("https://other.example/"), now: now.addingTimeInterval(12))
        #expect(jar.count == 4)
    }

    @Test func responseSetCookieLinesAreAllApplied() {
        var headers = HTTPHeaders()
        headers.append(name: "Set-Cookie", value: "a=1; Expires=Wed, 09 Jun 2100 10:18:14 GMT")
        headers.append(name: "set-cookie", value: "b=2")
        jar.store(from: HTTPResponseHead(status: 200, headers: headers), for: url("https://example.com/"), now: now)
        #expect(jar.cookieHeader(for: url("https://example.com/"), now: now) == "a=1; b=2")
    }

    // MARK: - Snapshot, removal, descriptions

    @Test func snapshotRoundTripsThroughCodable() throws {
        jar.store(
            setCookie: "a=1; Max-Age=600; Secure; HttpOnly; SameSite=Strict",
            from: url("https://example.com/"),
            now: now
        )
        jar.store(setCookie: "b=2; Domain=example.com", from: url("https://example.com/"), now: now)
        let data = try JSONEncoder().encode(jar.snapshot(now: now))
        let restored = CookieJar()
        restored.restore(try JSONDecoder().decode(CookieJar.Snapshot.self, from: data), now: now)
        #expect(restored.snapshot(now: now) == jar.snapshot(now: now))
        #expect(restored.cookieHeader(for: url("https://www.example.com/"), now: now) == "b=2")
        #expect(restored.snapshot(now: now).cookies.first { $0.name == "a" }?.sameSite == .strict)
    }

    @Test func restoreSkipsExpiredCookies() {
        jar.store(setCookie: "a=1; Max-Age=10", from: url("https://example.com/"), now: now)
        let restored = CookieJar()
        restored.restore(CookieJar.Snapshot(cookies: jar.snapshot(now: now).cookies), now: now.addingTimeInterval(20))
        #expect(restored.count == 0)
    }

    @Test func removeAllEmptiesTheJar() {
        jar.store(setCookie: "a=1", from: url("https://example.com/"), now: now)
        jar.removeAll()
        #expect(jar.count == 0)
        #expect(jar.cookieHeader(for: url("https://example.com/"), now: now) == nil)
    }

    @Test func descriptionsNeverShowValues() throws {
        jar.store(setCookie: "SID=topsecretvalue; Secure; SameSite=None", from: url("https://example.com/"), now: now)
        let cookie = try #require(jar.snapshot(now: now).cookies.first)
        for text in [cookie.description, String(describing: cookie), "\(jar)", String(reflecting: jar)] {
            #expect(!text.contains("topsecretvalue"))
        }
        #expect(cookie.description.contains("SID=<redacted>"))
        #expect(cookie.description.contains("samesite=None"))
    }

    @Test func concurrentStoresAndReadsAreSafe() async {
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask { [jar, now] in
                    jar.store(
                        setCookie: "c\(index)=\(index)",
                        from: URL(string: "https://h\(index % 4).example/")!,
                        now: now
                    )
                    _ = jar.cookieHeader(for: URL(string: "https://h\(index % 4).example/")!, now: now)
                }
            }
        }
        #expect(jar.count == 40)
    }
}
