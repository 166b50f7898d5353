/// Figures for `inspect`, computed at one instant from one snapshot of the store.
public struct StoreStatistics: Sendable, Hashable {
    /// Counts and bytes of one host or one partition.
    public struct Group: Sendable, Hashable {
        /// The host or partition name.
        public var name: String
        /// Number of entries.
        public var entryCount: Int64
        /// Sum of their body sizes.
        public var entryBytes: Int64
    }

    /// The counts and bytes of entries and bodies, counted from the rows.
    public var totals: StoreTotals
    /// The running totals the store keeps (``CacheStore/totals()``), which eviction goes by: equal to
    /// ``totals`` unless the file was damaged or changed around the store's triggers, which
    /// ``CacheStore/verify()`` reports and ``CacheStore/recomputeTotals()`` puts right.
    public var runningTotals: StoreTotals
    /// Entries fresh at the instant asked for.
    public var freshCount: Int64
    /// Entries stale at that instant but still inside their stale window.
    public var staleServableCount: Int64
    /// Entries stale and past any stale window.
    public var expiredCount: Int64
    /// Pinned entries.
    public var pinnedCount: Int64
    /// Partial entries (stored 206 responses, RFC 9111 §3.3), counted among the entries too.
    public var partialCount: Int64
    /// Per host, largest first.
    public var hosts: [Group]
    /// Per partition, by name.
    public var partitions: [Group]
    /// Bytes staged by body writers that have not saved yet.
    public var stagedBytes: Int64
}
