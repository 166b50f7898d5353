/// Running totals of the store, kept in the database and read without a scan.
public struct StoreTotals: Sendable, Hashable {
    /// Number of entries.
    public var entryCount: Int64
    /// Sum of the entries' body sizes (a shared body counts once per entry).
    public var entryBytes: Int64
    /// Number of distinct bodies.
    public var bodyCount: Int64
    /// Sum of the distinct bodies' sizes: the bytes the byte limit applies to.
    public var bodyBytes: Int64
}
