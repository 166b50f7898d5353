import Foundation

/// Which entries to prune. Every criterion that is set must hold (they combine with AND);
/// criteria with nothing set match every unpinned entry.
///
/// ```swift
/// var criteria = PruneCriteria()
/// criteria.expiredAt = Date()
/// criteria.host = "cdn.example.com"
/// let wouldGo = try await store.prune(criteria, dryRun: true)
/// ```
public struct PruneCriteria: Sendable, Hashable {
    /// Entries no longer servable at this instant: past `fresh_until` and past `stale_until`, if any.
    public var expiredAt: Date?
    /// Entries stored before this instant.
    public var storedBefore: Date?
    /// Entries of this host (compared in lower case).
    public var host: String?
    /// Entries whose URL matches this SQLite `GLOB` pattern (`*`, `?`, `[...]`; case-sensitive).
    public var urlPattern: String?
    /// Entries of this partition.
    public var partition: String?
    /// Entries whose body is larger than this many bytes.
    public var largerThan: Int64?
    /// Whether pinned entries may go too.
    public var includePinned: Bool

    /// Creates criteria; set the properties that apply.
    public init(
        expiredAt: Date? = nil, storedBefore: Date? = nil, host: String? = nil, urlPattern: String? = nil,
        partition: String? = nil, largerThan: Int64? = nil, includePinned: Bool = false
    ) {
        self.expiredAt = expiredAt
        self.storedBefore = storedBefore
        self.host = host
        self.urlPattern = urlPattern
        self.partition = partition
        self.largerThan = largerThan
        self.includePinned = includePinned
    }

    /// The SQL condition on table `entry` and its bound values.
    var condition: (sql: String, values: [DatabaseValue]) {
        var terms: [String] = []
        var values: [DatabaseValue] = []
        if let expiredAt {
            terms.append("max(fresh_until, coalesce(stale_until, fresh_until)) <= ?")
            values.append(.date(expiredAt))
        }
        if let storedBefore {
            terms.append("stored_at < ?")
            values.append(.date(storedBefore))
        }
        if let host {
            terms.append("host = ?")
            values.append(.text(host.lowercased()))
        }
        if let urlPattern {
            terms.append("url GLOB ?")
            values.append(.text(urlPattern))
        }
        if let partition {
            terms.append("partition = ?")
            values.append(.text(partition))
        }
        if let largerThan {
            terms.append("body_size > ?")
            values.append(.integer(largerThan))
        }
        if !includePinned {
            terms.append("pinned = 0")
        }
        return (terms.isEmpty ? "1" : terms.joined(separator: " AND "), values)
    }
}
