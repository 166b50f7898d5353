import FoundationEssentials
import HTTPCore

/// Maps a request target onto the URL to load (RFC 9112 §3.2).
enum RequestTarget {
    /// Why a target cannot be mapped; the message is a complete sentence for the client.
    struct Unmappable: Error, Sendable {
        var message: String
    }

    /// The URL for `target`: absolute-form as it is (forward proxy); origin-form appended to
    /// `upstream` (reverse proxy).
    static func url(for target: String, upstream: URL?) throws(Unmappable) -> URL {
        if target.hasPrefix("/") {
            guard let upstream else {
                let shown = excerpt(of: target)
                throw Unmappable(message: """
                    The request target '\(shown)' is a path, and this gateway has no upstream to send it to. \
                    Use the gateway as an HTTP proxy (absolute URLs), or start it with --upstream.
                    """)
            }
            var base = upstream.absoluteString
            while base.hasSuffix("/") { base.removeLast() }
            InternationalNames.prepare(forURL: base + target)
            guard let url = URL(string: base + target), url.host != nil else {
                throw Unmappable(message: "The request target '\(excerpt(of: target))' is not a valid path.")
            }
            return url
        }
        InternationalNames.prepare(forURL: target)
        guard let url = URL(string: target), let scheme = url.scheme?.lowercased(),
            scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            let shown = excerpt(of: target)
            throw Unmappable(message: "The request target '\(shown)' is neither a path nor an absolute http URL.")
        }
        return url
    }

    /// `target` as an error message quotes it: its first 197 characters and "..." when it is longer
    /// than 200 (counted only for a message: counting characters walks the whole string).
    private static func excerpt(of target: String) -> String {
        target.count > 200 ? String(target.prefix(197)) + "..." : target
    }

    /// A `Location` from the upstream, rewritten to point at the gateway so that a client of a
    /// reverse proxy follows redirects through it; other locations are returned unchanged.
    static func rewriteLocation(_ location: String, upstream: URL?, gateway: URL) -> String {
        guard let upstream else { return location }
        var base = upstream.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        guard location.hasPrefix(base + "/") || location == base else { return location }
        var gatewayBase = gateway.absoluteString
        while gatewayBase.hasSuffix("/") { gatewayBase.removeLast() }
        let rest = location.dropFirst(base.count)
        return gatewayBase + (rest.isEmpty ? "/" : rest)
    }
}
