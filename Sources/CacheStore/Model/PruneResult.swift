/// What ``CacheStore/prune(_:dryRun:)``, ``CacheStore/evict(toFit:)`` or
/// ``CacheStore/removeAll(partition:)`` removed, or would remove in a dry run.
public struct PruneResult: Sendable, Hashable {
    /// Number of entries.
    public var entryCount: Int
    /// Sum of the entries' body sizes.
    public var entryBytes: Int64
    /// Bytes of bodies actually deleted (0 in a dry run: shared bodies may stay).
    public var freedBytes: Int64
    /// The URLs of the entries, in removal order.
    public var urls: [String]
    /// The pages whose records (their edges) went, or would go: see ``PruneCriteria/page``.
    public var pages: [StoredPage] = []
    /// How many page records went, or would go, because every entry of the page itself did: a page
    /// the store no longer holds is no page of the store.
    public var pageRecordCount = 0
    /// For ``CacheStore/evict(toFit:)`` and ``CacheStore/evictionPlan(toFit:)``: the bytes of bodies
    /// the store holds after the eviction (or would), counted in its own transaction, so that what
    /// other processes store meanwhile is not taken for what the eviction could not remove.
    public var bodyBytesLeft: Int64?

    static let empty = PruneResult(entryCount: 0, entryBytes: 0, freedBytes: 0, urls: [])
}
