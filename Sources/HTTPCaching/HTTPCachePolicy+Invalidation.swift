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
    /// Each URL is normalised as cache keys are: scheme and host lowercased, a default port (80 for
    /// http, 443 for https) and the fragment removed. Duplicates are dropped.
    public static func invalidatedURLs(request: HTTPRequest, response: HTTPResponseHead) -> [URL] {
        guard !request.method.isSafe, (200..<400).contains(response.status) else { return [] }
        let target = normalized(request.url)
        var urls = [target]
        for name in ["Location", "Content-Location"] {
            guard let value = response.headers.values(for: name).first,
                let resolved = URL(string: value.trimmingHTTPWhitespace(), relativeTo: target)?.absoluteURL,
                sameOrigin(resolved, target)
            else { continue }
            let url = normalized(resolved)
            if !urls.contains(url) { urls.append(url) }
        }
        return urls
    }

    private static func normalized(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url.absoluteURL }
        components.scheme = components.scheme?.lowercased()
        components.host = components.host?.lowercased()
        if let scheme = components.scheme, components.port == effectivePort(scheme: scheme) {
            components.port = nil
        }
        components.fragment = nil
        return components.url ?? url.absoluteURL
    }

    private static func sameOrigin(_ lhs: URL, _ rhs: URL) -> Bool {
        guard let leftScheme = lhs.scheme?.lowercased(), let rightScheme = rhs.scheme?.lowercased(),
            let leftHost = lhs.host?.lowercased(), let rightHost = rhs.host?.lowercased()
        else { return false }
        return leftScheme == rightScheme && leftHost == rightHost
            && (lhs.port ?? effectivePort(scheme: leftScheme)) == (rhs.port ?? effectivePort(scheme: rightScheme))
    }

    private static func effectivePort(scheme: String) -> Int? {
        ["http": 80, "https": 443][scheme]
    }
}
