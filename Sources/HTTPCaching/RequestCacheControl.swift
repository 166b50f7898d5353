import HTTPCore

/// The cache directives of a request (RFC 9111 §5.2.1, RFC 5861 §4), with `Pragma: no-cache`
/// honoured only when the request has no `Cache-Control` line (RFC 9111 §5.4).
///
/// A directive whose value is not valid delta-seconds is ignored, as an unknown directive would
/// be: `max-age=soon` in a request leaves ``maxAge`` `nil`.
public struct RequestCacheControl: Sendable, Hashable {
    /// How much staleness a client accepts with `max-stale` (RFC 9111 §5.2.1.2).
    public enum MaxStale: Sendable, Hashable {
        /// `max-stale` without a value: a stale response of any staleness.
        case unlimited
        /// `max-stale=n`: a response stale by at most `n` seconds.
        case seconds(Int)
    }

    /// `max-age`: the client wants a response whose age is at most this many seconds (§5.2.1.1).
    public var maxAge: Int?
    /// `max-stale`: the client accepts a stale response (§5.2.1.2).
    public var maxStale: MaxStale?
    /// `min-fresh`: the response must stay fresh for at least this many more seconds (§5.2.1.3).
    public var minFresh: Int?
    /// `no-cache`, or `Pragma: no-cache` without `Cache-Control`: validate before using a stored
    /// response (§5.2.1.4).
    public var noCache: Bool
    /// `no-store`: store nothing of this request or its response (§5.2.1.5).
    public var noStore: Bool
    /// `only-if-cached`: answer from the cache or with 504, never from the network (§5.2.1.7).
    public var onlyIfCached: Bool
    /// `stale-if-error=n`: on an origin error the client accepts a response stale by at most `n`
    /// seconds (RFC 5861 §4).
    public var staleIfError: Int?

    /// Reads the directives of `headers`.
    public init(headers: HTTPHeaders) {
        let directives = CacheControl(headers: headers)
        maxAge = directives.deltaSeconds("max-age").validValue
        minFresh = directives.deltaSeconds("min-fresh").validValue
        staleIfError = directives.deltaSeconds("stale-if-error").validValue
        if let maxStale = directives.first("max-stale") {
            if maxStale.value == nil {
                self.maxStale = .unlimited
            } else {
                self.maxStale = directives.deltaSeconds("max-stale").validValue.map(MaxStale.seconds)
            }
        }
        noStore = directives.contains("no-store")
        onlyIfCached = directives.contains("only-if-cached")
        if headers.contains("Cache-Control") {
            noCache = directives.contains("no-cache")
        } else {
            // RFC 9111 §5.4: Pragma is only read when Cache-Control is absent from the request.
            noCache = headers.listValues(for: "Pragma").contains { $0.caseInsensitiveEquals("no-cache") }
        }
    }
}

extension CacheControl.DeltaSeconds {
    /// The seconds of a valid value; `nil` when absent or invalid.
    var validValue: Int? {
        if case .seconds(let seconds) = self { return seconds }
        return nil
    }
}
