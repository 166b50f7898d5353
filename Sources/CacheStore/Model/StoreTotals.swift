/// The store's counts and bytes of entries and bodies: the running totals that the database keeps
/// (``CacheStore/totals()``, read without a scan), or the same figures counted from the rows.
public struct StoreTotals: Sendable, Hashable {
    /// Number of entries.
    public var entryCount: Int64
    /// Sum of the entries' body sizes (a shared body counts once per entry).
    public var entryBytes: Int64
    /// Number of distinct bodies.
    public var bodyCount: Int64
    /// Sum of the distinct bodies' sizes: the bytes the byte limit applies to.
    public var bodyBytes: Int64

    /// Each figure of these running totals that differs from `counted`, the figures counted from the
    /// rows, in words: `entries 0 (the rows hold 3)`; empty when they agree.
    public func differences(fromCounted counted: StoreTotals) -> [String] {
        [
            ("entries", entryCount, counted.entryCount), ("entry bytes", entryBytes, counted.entryBytes),
            ("bodies", bodyCount, counted.bodyCount), ("body bytes", bodyBytes, counted.bodyBytes),
        ].filter { $0.1 != $0.2 }.map { "\($0.0) \($0.1) (the rows hold \($0.2))" }
    }
}
