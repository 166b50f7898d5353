/// What ``CacheStore/merge(from:)`` took from one source store.
public struct MergeReport: Sendable, Hashable {
    /// The source store that was read.
    public var sourcePath: String
    /// Entries added or replacing an older response for the same partition, method, URL and variant,
    /// complete entries replacing parts of themselves, and partial entries whose parts joined those of
    /// the same representation (RFC 9111 §3.4).
    public var mergedEntries: Int
    /// Entries left out because the store already held a response received at the same time or later
    /// (a partial entry of the same representation only when the parts here hold all of its bytes).
    public var olderEntries: Int
    /// Partial entries left out because the store holds their representation whole: a complete entry
    /// with the same strong `ETag`.
    public var heldWhole: Int
    /// Bodies copied, of entries and of partial entries' parts; the others were already stored (bodies
    /// are shared by their SHA-256).
    public var copiedBodies: Int
    /// Page → resource edges added or updated.
    public var mergedEdges: Int
}
