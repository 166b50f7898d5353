import HTTPCaching
import HTTPCore

/// Which header fields cross the gateway, in either direction.
enum HeaderRules {
    /// Request fields the gateway sets or decides itself: `Host` comes from the target URL, and the
    /// origin is asked for no content coding (see ``ProxyHandler/makeWebRequest(_:url:)``).
    static let replacedInRequests: Set<String> = ["host", "accept-encoding", "content-length", "expect"]

    /// Request fields a `GET` or `HEAD` loses as well: the client's validators, which are answered
    /// from the response the store gives (see ``ConditionalRequest``). Any other method keeps them
    /// for the origin, which alone can evaluate them (`If-None-Match: *` on a `PUT` creates only
    /// what does not exist; RFC 9110 §13.1.2).
    static let replacedInReads: Set<String> = replacedInRequests.union(["if-none-match", "if-modified-since"])

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
