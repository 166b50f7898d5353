import FoundationEssentials

/// A stored response with its whole body, as returned by ``CacheStore/lookup(partition:method:url:varyKey:at:)``.
public struct CachedResponse: Sendable, Hashable {
    /// The entry, as read before this hit was recorded.
    public var entry: CacheEntry
    /// The body bytes.
    public var body: Data
}
