import Foundation
import Testing

@testable import Sessions

/// A `Domain` attribute naming a top-level name (one the Public Suffix List leaves out, such as
/// `test`, `corp` or `internal`) would share a cookie with every host under that name: it is refused.
struct TopLevelDomainCookieTests {
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    @Test(arguments: ["test", ".test", "corp", "internal", "TEST"])
    func aCookieForATopLevelNameIsRefused(domain: String) throws {
        let jar = CookieJar()
        let host = "instance.\(domain.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: ".")))"
        let from = try #require(URL(string: "http://\(host)/"))
        let decision = jar.store(setCookie: "wide=1; Domain=\(domain)", from: from, now: now)
        #expect(decision == .rejected(.publicSuffixDomain))
        let other = try #require(URL(string: "http://other.\(host.split(separator: ".").last!)/"))
        #expect(jar.cookieHeader(for: other, now: now) == nil)
    }

    @Test func aSingleLabelHostStillGetsAHostOnlyCookieForItself() throws {
        let jar = CookieJar()
        let localhost = try #require(URL(string: "http://localhost:8080/"))
        #expect(jar.store(setCookie: "sid=1; Domain=localhost", from: localhost, now: now) == .stored)
        #expect(jar.cookieHeader(for: localhost, now: now) == "sid=1")
        #expect(jar.cookies(for: localhost, now: now).first?.isHostOnly == true)
    }

    @Test func aRegistrableDomainStillWorks() throws {
        let jar = CookieJar()
        let from = try #require(URL(string: "https://www.example.test/"))
        #expect(jar.store(setCookie: "a=1; Domain=example.test", from: from, now: now) == .stored)
        #expect(jar.cookieHeader(for: try #require(URL(string: "https://api.example.test/")), now: now) == "a=1")
    }
}
