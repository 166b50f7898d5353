/// What ``CacheStore/merge(from:)`` took from one source store.
public struct MergeReport: Sendable, Hashable {
    /// The source store that was read.
    public var sourcePath: String
    /// Entries added or replacing an older response for the same partition, method, URL and variant.
    public var mergedEntries: Int
    /// Entries left out because the store already held a response received at the same time or later.
    public var olderEntries: Int
    /// Bodies copied, of entries and of partial entries' parts; the others were already stored (bodies
    /// are shared by their SHA-256).
    public var copiedBodies: Int
    /// Page → resource edges added or updated.
    public var mergedEdges: Int
}
