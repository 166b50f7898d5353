import FoundationEssentials

/// How a load uses the store, after `URLRequest.CachePolicy`, plus an offline fallback.
public enum CachePolicy: Sendable, Hashable {
    /// RFC 9111: serve fresh entries, revalidate stale ones, store what may be stored.
    case useProtocolCachePolicy
    /// Ignore stored entries and go to the network; the response is still stored.
    case reloadIgnoringCacheData
    /// Serve a matching entry however stale; go to the network only when there is none.
    case returnCacheDataElseLoad
    /// Serve a matching entry however stale; never touch the network (a miss is an error).
    case returnCacheDataDontLoad
    /// As ``useProtocolCachePolicy``, but when the network fails (an error, or a 500, 502, 503 or 504)
    /// serve a stale entry if its `stale-if-error` allows it, or if it is stale by at most `maxStale`
    /// seconds (`nil`: however stale it is).
    case offlineFallback(maxStale: TimeInterval?)
}

/// Where a response came from.
public enum ResponseSource: String, Sendable, Hashable, CustomStringConvertible {
    /// A fresh stored entry; no request was sent.
    case hit
    /// A stored entry confirmed by a conditional request that got 304 Not Modified.
    case revalidated
    /// Fetched from the network (a miss, a reload, or a changed resource).
    case network
    /// A stored entry served past its freshness: allowed by the policy, `max-stale`,
    /// `stale-while-revalidate`, or `stale-if-error` when the network failed.
    case stale

    /// The source's name, such as `hit`.
    public var description: String { rawValue }
}

extension CachePolicy {
    /// Whether a load decides by RFC 9111's rules whether a stored response is served:
    /// ``useProtocolCachePolicy`` and ``offlineFallback(maxStale:)``.
    var followsProtocol: Bool {
        switch self {
        case .useProtocolCachePolicy, .offlineFallback: true
        case .reloadIgnoringCacheData, .returnCacheDataElseLoad, .returnCacheDataDontLoad: false
        }
    }

    /// How stale a stored response may be to stand in for the network by the caller's say
    /// (``offlineFallback(maxStale:)``; without a limit, however stale); `nil` for the other policies.
    var fallbackLimit: TimeInterval? {
        if case .offlineFallback(let maxStale) = self { maxStale ?? .infinity } else { nil }
    }
}
