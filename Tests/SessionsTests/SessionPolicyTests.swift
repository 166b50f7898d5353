import Foundation
import HTTPCore
import Testing

@testable import Sessions

/// Login-page detection.
struct SessionPolicyTests {
    let policy = SessionPolicy()
    let page = URL(string: "https://instance.example.com/nav/home?x=1")!

    func redirect(_ status: Int, to location: String) -> HTTPResponseHead {
        HTTPResponseHead(status: status, headers: ["Location": location])
    }

    @Test(arguments: [
        "/login.do", "https://instance.example.com/login.do?sysparm_goto=%2Fnav", "/Login", "/app/login/",
        "/signin", "/auth/realms/x/protocol/openid-connect/auth", "/oauth/authorize?client_id=x", "/saml2/idp/sso",
        "/saml", "navpage/login.do",
    ])
    func recognisesLoginRedirects(location: String) {
        #expect(policy.isLoginRedirect(redirect(302, to: location), for: page))
    }

    @Test(arguments: ["/logins/report", "/nav/catalog", "/blog/authors", "/loginhelp", "/samlple"])
    func ignoresOrdinaryRedirects(location: String) {
        #expect(!policy.isLoginRedirect(redirect(302, to: location), for: page))
    }

    @Test(arguments: [302, 303, 307])
    func defaultRedirectStatusesCount(status: Int) {
        #expect(policy.isLoginRedirect(redirect(status, to: "/login.do"), for: page))
    }

    @Test(arguments: [200, 301, 304, 308, 401])
    func otherStatusesDoNotCount(status: Int) {
        #expect(!policy.isLoginRedirect(redirect(status, to: "/login.do"), for: page))
    }

    @Test func redirectWithoutLocationIsNotLogin() {
        #expect(!policy.isLoginRedirect(HTTPResponseHead(status: 302), for: page))
    }

    @Test func redirectToTheSamePathIsNeverLogin() {
        let loginPage = URL(string: "https://instance.example.com/login.do")!
        #expect(!policy.isLoginRedirect(redirect(302, to: "/login.do?lang=en"), for: loginPage))
    }

    @Test(arguments: [(401, true), (403, false), (200, false), (302, false), (407, false)])
    func unauthorizedIsTheDefaultExpiryStatus(status: Int, expires: Bool) {
        #expect(SessionPolicy().isExpiryStatus(HTTPResponseHead(status: status)) == expires)
        #expect(!SessionPolicy(expiryStatuses: []).isExpiryStatus(HTTPResponseHead(status: status)))
    }

    @Test func loginHostsMatchAnyPath() {
        let custom = SessionPolicy(loginHosts: ["SSO.Example.org"])
        #expect(custom.isLoginRedirect(redirect(303, to: "https://sso.example.org/start?rt=1"), for: page))
        #expect(!policy.isLoginRedirect(redirect(303, to: "https://sso.example.org/start?rt=1"), for: page))
    }

    @Test func customPatternsReplaceTheDefaults() {
        let custom = SessionPolicy(loginPathPatterns: ["/Welcome.do"], redirectStatuses: [302, 308])
        #expect(custom.isLoginRedirect(redirect(308, to: "/welcome.do"), for: page))
        #expect(!custom.isLoginRedirect(redirect(302, to: "/login.do"), for: page))
    }

    @Test func finalURLOfFollowedRedirectsCanBeTheLoginPage() {
        #expect(policy.isLoginPage(URL(string: "https://instance.example.com/login.do")!, for: page))
        #expect(!policy.isLoginPage(page, for: page))
    }
}
