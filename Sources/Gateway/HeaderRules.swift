import HTTPCaching
import HTTPCore

/// Which header fields cross the gateway, in either direction.
enum HeaderRules {
    /// Request fields the gateway sets or decides itself: `Host` comes from the target URL, the
    /// origin is asked for no content coding (see ``ProxyHandler/makeWebRequest(_:url:)``), and
    /// the client's validators are answered from the response the store gives (see
    /// ``ConditionalRequest``).
    static let replacedInRequests: Set<String> = [
        "host", "accept-encoding", "content-length", "if-none-match", "if-modified-since", "expect",
    ]

    /// Response fields the HTTP server writes itself from the body it sends. `Date` is not one:
    /// the origin's is forwarded (RFC 9110 §6.6.1), since a downstream cache computes the age and
    /// an `Expires` lifetime from it; the server writes its own only when the response has none.
    static let replacedInResponses: Set<String> = ["content-length"]

    /// `headers` without hop-by-hop fields (``HopByHopFields``: `Connection` and the fields it names,
    /// `Keep-Alive`, `TE`, `Trailer`, `Transfer-Encoding`, `Upgrade`, every `Proxy-*`) and `extra`.
    /// They describe one connection and are never forwarded (RFC 9110 §7.6.1); the HTTP server
    /// frames each response itself.
    /// Compared in place, without building a set of names or lowering a name: every request and
    /// every response goes through here, and most carry none of these fields.
    static func forwardable(_ headers: HTTPHeaders, removing extra: Set<String>) -> HTTPHeaders {
        var kept = HopByHopFields.removed(from: headers)
        for name in extra where kept.contains(name) {
            kept.remove(name)
        }
        return kept
    }
}
