import FoundationEssentials
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
        let target = request.url.cacheKey
        var urls = [target]
        for name in ["Location", "Content-Location"] {
            guard let value = response.headers.values(for: name).first,
                let resolved = URL(parsing: value.trimmingHTTPWhitespace(), relativeTo: target)?.absoluteURL,
                resolved.isSameOrigin(as: target)
            else { continue }
            let url = resolved.cacheKey
            if !urls.contains(url) { urls.append(url) }
        }
        return urls
    }
}
