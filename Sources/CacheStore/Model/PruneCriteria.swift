import FoundationEssentials

/// Which entries to prune. Every criterion that is set must hold (they combine with AND);
/// criteria with nothing set match every unpinned entry. ``page`` prunes a whole page.
///
/// ```swift
/// var criteria = PruneCriteria()
/// criteria.expiredAt = Date()
/// criteria.host = "cdn.example.com"
/// let wouldGo = try await store.prune(criteria, dryRun: true)
/// ```
public struct PruneCriteria: Sendable, Hashable {
    /// Entries that no rule serves without a request at this instant: past `fresh_until` and past
    /// `stale_until`, if any. The offline policies serve them all the same.
    public var expiredAt: Date?
    /// Entries stored before this instant and not confirmed since: a response the origin validated
    /// again (a 304 that freshened it, RFC 9111 §4.3.4) counts from that response.
    public var storedBefore: Date?
    /// Entries of this host (compared in lower case).
    public var host: String?
    /// Entries whose URL matches this SQLite `GLOB` pattern (`*`, `?`, `[...]`; case-sensitive).
    public var urlPattern: String?
    /// Entries of this partition.
    public var partition: String?
    /// Entries whose body is larger than this many bytes.
    public var largerThan: Int64?
    /// A whole page, by its URL's absolute string: the page's own entries and those of the resources
    /// its edges point to, except the resources that another page of the same partition still needs
    /// (one of its edges points to them). Without ``partition``, in every partition where the page has
    /// recorded edges.
    ///
    /// ``CacheStore/prune(_:dryRun:)`` also removes the page's record (its edges), so that
    /// ``CacheStore/pages(partition:url:)`` no longer lists it, when none of the page's own entries stays.
    /// When one does (it is pinned, another page needs it, or it does not meet another criterion), the
    /// page stays listed, and its status shows what it now misses. The page must have recorded edges
    /// (in ``partition``, when that is set); otherwise pruning throws
    /// ``CacheStore/Error/Code/unknownPage`` and removes nothing.
    public var page: String?
    /// Whether pinned entries may go too.
    public var includePinned: Bool

    /// Creates criteria; set the properties that apply.
    public init(
        expiredAt: Date? = nil, storedBefore: Date? = nil, host: String? = nil, urlPattern: String? = nil,
        partition: String? = nil, largerThan: Int64? = nil, page: String? = nil, includePinned: Bool = false
    ) {
        self.expiredAt = expiredAt
        self.storedBefore = storedBefore
        self.host = host
        self.urlPattern = urlPattern
        self.partition = partition
        self.largerThan = largerThan
        self.page = page
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
            terms.append("max(stored_at, response_time) < ?")
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
        if let page {
            // The page's entries: with the partition known, each looked up by partition and URL (the
            // edges by their key); without it, the edges of the page in every partition, which takes
            // a scan of the edges and of the entries.
            if let partition {
                terms.append(
                    """
                    url IN (SELECT page_url FROM page_edge WHERE partition = ? AND page_url = ? \
                    UNION SELECT resource_url FROM page_edge WHERE partition = ? AND page_url = ?)
                    """)
                values += [.text(partition), .text(page), .text(partition), .text(page)]
            } else {
                terms.append(
                    """
                    (partition, url) IN (SELECT partition, page_url FROM page_edge WHERE page_url = ? \
                    UNION SELECT partition, resource_url FROM page_edge WHERE page_url = ?)
                    """)
                values += [.text(page), .text(page)]
            }
            // Another page needs the entry when one of its edges points to it: an edge to another URL,
            // found through the index by resource (which leaves out a page's own edge, and is used
            // only when the query says so too), or its own edge, when the entry is that page itself.
            terms.append(
                """
                NOT EXISTS (SELECT 1 FROM page_edge other WHERE other.partition = entry.partition \
                AND other.resource_url = entry.url AND other.page_url != other.resource_url AND other.page_url != ?) \
                AND NOT EXISTS (SELECT 1 FROM page_edge own WHERE own.partition = entry.partition \
                AND own.page_url = entry.url AND own.resource_url = entry.url AND own.page_url != ?)
                """)
            values += [.text(page), .text(page)]
        }
        if !includePinned {
            terms.append("pinned = 0")
        }
        return (terms.isEmpty ? "1" : terms.joined(separator: " AND "), values)
    }
}
