import Foundation
import HTTPCore

extension HTTPCachePolicy {
    // MARK: - Invalidation (RFC 9111 §4.4)

    /// The URLs whose stored responses must be invalidated after `response` to `request` (§4.4).
    ///
    /// Only an unsafe method (RFC 9110 §9.2.1, unknown methods included) answered with a non-error
    /// status (2xx or 3xx) invalidates. The list holds the target URI, then the `Location` and
    /// `Content-Location` values resolved against it, kept only when they share its origin (scheme,
    /// host and port, default ports included) so that one origin cannot evict another's entries.
    /// Fragments are removed, since cache keys never carry one; duplicates are dropped.
    public static func invalidatedURLs(request: HTTPRequest, response: HTTPResponseHead) -> [URL] {
        guard !request.method.isSafe, (200..<400).contains(response.status) else { return [] }
        let target = withoutFragment(request.url)
        var urls = [target]
        for name in ["Location", "Content-Location"] {
            guard let value = response.headers.values(for: name).first,
                let resolved = URL(string: value.trimmingHTTPWhitespace(), relativeTo: target)?.absoluteURL,
                sameOrigin(resolved, target)
            else { continue }
            let url = withoutFragment(resolved)
            if !urls.contains(url) { urls.append(url) }
        }
        return urls
    }

    private static func withoutFragment(_ url: URL) -> URL {
        guard url.fragment != nil, var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            return url.absoluteURL
        }
        components.fragment = nil
        return components.url ?? url.absoluteURL
    }

    private static func sameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        guard let leftScheme = lhs.scheme?.lowercased(), let rightScheme = rhs.scheme?.lowercased(),
            let leftHost = lhs.host?.lowercased(), let rightHost = rhs.host?.lowercased()
        else { return false }
        return leftScheme == rightScheme && leftHost == rightHost
            && effectivePort(lhs, scheme: leftScheme) == effectivePort(rhs, scheme: rightScheme)
    }

    private static func effectivePort(_ url: URL, scheme: String) -> Int? {
        url.port ?? ["http": 80, "https": 443][scheme]
    }
}
