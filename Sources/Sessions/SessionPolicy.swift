import FoundationEssentials
import HTTPCore

/// Decides whether a response means "the session expired: this is the instance's login page".
///
/// An instance whose session has expired answers a page request with a redirect (302, 303 or 307)
/// to its login page, or, when redirects were followed, with the login page itself. The policy
/// recognises the login page by its path, or by its host when logins happen on a separate identity
/// provider.
///
/// **Path patterns** are compared case-insensitively with the resolved `Location` path. A pattern
/// matches where it occurs at the start of a path segment (it begins with `/`, or follows one) and
/// ends at a segment boundary (it ends with `/`, or is followed by the end of the path, `/`, `.` or
/// `;`). So `/login` matches `/login`, `/app/login/`, `/login.do`, but not `/logins/report`.
///
/// A redirect to the request's own path is never a login redirect (an instance normalising
/// `/login` to `/login?lang=en` is not expiring a session).
///
/// An instance may also say so with a status: by default, `401 Unauthorized` to a request that
/// carried the session's cookies or its bearer token means they are no longer accepted (an expired
/// session, or an access token revoked before its time, RFC 6750 §3.1).
public struct SessionPolicy: Sendable, Hashable {
    /// Path patterns that identify a login page.
    public var loginPathPatterns: [String]
    /// Hosts whose every page is a login page (an external identity provider); compared case-insensitively.
    public var loginHosts: Set<String>
    /// Redirect statuses that can lead to the login page.
    public var redirectStatuses: Set<Int>
    /// Statuses that by themselves mean the instance no longer accepts the request's credentials.
    public var expiryStatuses: Set<Int>

    /// Patterns common to instances and identity providers.
    public static let defaultLoginPathPatterns = [
        "/login", "/signin", "/sign-in", "/logon", "/auth/", "/oauth/authorize", "/oauth2/authorize",
        "login.do", "/saml", "/saml/", "/saml2/", "/sso/",
    ]

    /// Creates a policy; the defaults recognise the usual login paths after a 302, 303 or 307, and a 401.
    public init(
        loginPathPatterns: [String] = SessionPolicy.defaultLoginPathPatterns,
        loginHosts: Set<String> = [],
        redirectStatuses: Set<Int> = [302, 303, 307],
        expiryStatuses: Set<Int> = [401]
    ) {
        self.loginPathPatterns = loginPathPatterns
        self.loginHosts = loginHosts
        self.redirectStatuses = redirectStatuses
        self.expiryStatuses = expiryStatuses
    }

    // MARK: - Decisions

    /// Whether `response`'s status says the instance no longer accepts the request's credentials.
    public func isExpiryStatus(_ response: HTTPResponseHead) -> Bool {
        expiryStatuses.contains(response.status)
    }

    /// Whether `response`, received for `requestURL`, redirects to a login page.
    public func isLoginRedirect(_ response: HTTPResponseHead, for requestURL: URL) -> Bool {
        guard redirectStatuses.contains(response.status), let location = response.headers["Location"],
            let target = URL(parsing: location.trimmingHTTPWhitespace(), relativeTo: requestURL)?.absoluteURL
        else { return false }
        return isLoginPage(target, for: requestURL)
    }

    /// Whether `finalURL`, where `requestURL` ended up after redirects, is a login page.
    public func isLoginPage(_ finalURL: URL, for requestURL: URL) -> Bool {
        let path = finalURL.path(percentEncoded: true).lowercased()
        // Never a login redirect when the request already was for this page.
        if path == requestURL.path(percentEncoded: true).lowercased()
            && finalURL.host?.lowercased() == requestURL.host?.lowercased()
        {
            return false
        }
        if let host = finalURL.host, loginHosts.contains(where: { $0.caseInsensitiveEquals(host) }) { return true }
        return loginPathPatterns.contains { Self.path(path, matches: $0.lowercased()) }
    }

    static func path(_ path: String, matches pattern: String) -> Bool {
        guard !pattern.isEmpty else { return false }
        var searchStart = path.startIndex
        while let range = path[searchStart...].firstRange(of: pattern) {
            let startsSegment =
                pattern.hasPrefix("/") || range.lowerBound == path.startIndex
                || path[path.index(before: range.lowerBound)] == "/"
            let endsSegment =
                pattern.hasSuffix("/") || range.upperBound == path.endIndex
                || "/.;".contains(path[range.upperBound])
            if startsSegment && endsSegment { return true }
            searchStart = path.index(after: range.lowerBound)
        }
        return false
    }
}
