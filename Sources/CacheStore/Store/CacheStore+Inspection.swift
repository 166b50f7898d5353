import FoundationEssentials

extension CacheStore {
    // MARK: - Entries across partitions

    /// Every stored entry of `url`: all partitions (or only `partition`), methods and variants,
    /// ordered by partition, method and Vary key. For `inspect URL` and for pinning a URL wherever
    /// it is stored.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func entries(url: String, partition: String? = nil) throws -> [CacheEntry] {
        let selection = columns.entrySelection
        // With the partition, the entries are found by the key; without it, the URL is looked for
        // in every partition's part of the key.
        let (condition, values): (String, [DatabaseValue]) = partition.map {
            (" WHERE e.partition = ? AND e.url = ?", [.text($0), .text(url)])
        } ?? (" WHERE e.url = ?", [.text(url)])
        return try read("look up \(url)") { connection in
            var entries: [CacheEntry] = []
            try connection.forEachRow(
                selection + condition + " ORDER BY e.partition, e.method, e.vary_key", values
            ) { row in
                entries.append(CacheEntry(row: row))
            }
            return entries
        }
    }

    // MARK: - Pages

    /// The pages that have recorded edges, optionally only those of one partition or one URL,
    /// ordered by partition and URL.
    ///
    /// - Parameters:
    ///   - partition: Only pages of this partition, when given.
    ///   - url: Only this page URL, when given.
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func pages(partition: String? = nil, url: String? = nil) throws -> [StoredPage] {
        try read("list the pages") { connection in
            var terms: [String] = []
            var values: [DatabaseValue] = []
            if let partition {
                terms.append("partition = ?")
                values.append(.text(partition))
            }
            if let url {
                terms.append("page_url = ?")
                values.append(.text(url))
            }
            let condition = terms.isEmpty ? "" : " WHERE " + terms.joined(separator: " AND ")
            var pages: [StoredPage] = []
            try connection.forEachRow(
                "SELECT DISTINCT partition, page_url FROM page_edge\(condition) ORDER BY partition, page_url", values
            ) { row in
                pages.append(StoredPage(partition: row.text(0), url: row.text(1)))
            }
            return pages
        }
    }

    /// At most `limit` of the pages that follow `position` (the first pages when `nil`) in the order of
    /// ``pages(partition:url:)``, and the position to go on from, `nil` at the end: a listing of every
    /// page read a piece at a time, each piece in its own read, so that its memory does not grow with
    /// the store.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func pages(
        after position: PageListPosition?, limit: Int
    ) throws -> (pages: [StoredPage], next: PageListPosition?) {
        // The position is the stored bytes: a URL stored with bytes that are not UTF-8 reads back with
        // replacement characters, which sort elsewhere (the next piece would repeat it or skip pages).
        let (condition, values): (String, [DatabaseValue]) = position.map {
            (" WHERE (partition, page_url) > (CAST(? AS TEXT), CAST(? AS TEXT))", [.blob($0.partition), .blob($0.url)])
        } ?? ("", [])
        return try read("list the pages") { connection in
            var pages: [StoredPage] = []
            var last: PageListPosition?
            try connection.forEachRow(
                "SELECT DISTINCT partition, page_url FROM page_edge\(condition) ORDER BY partition, page_url LIMIT ?",
                values + [.integer(Int64(limit))]
            ) { row in
                pages.append(StoredPage(partition: row.text(0), url: row.text(1)))
                last = PageListPosition(partition: row.blob(0), url: row.blob(1))
            }
            return (pages, pages.count < limit ? nil : last)
        }
    }

    // MARK: - Eviction plan

    /// What ``evict(toFit:)`` would evict now, without removing anything: unpinned entries, least
    /// recently used first (the larger body first among equal access times), those of a shared body
    /// together, until the distinct body bytes would be at most `byteLimit` (``EvictionOrder``).
    ///
    /// Hits recorded in memory and not yet written are not taken into account.
    ///
    /// - Returns: The entries that would go, their bytes, and the body bytes that would be freed.
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func evictionPlan(toFit byteLimit: Int64) throws -> PruneResult {
        let columns = columns
        return try read("plan an eviction") { connection in
            try connection.readTransaction {
                var result = PruneResult.empty
                var total = try Self.readTotals(connection).bodyBytes
                let start = total
                result.bodyBytesLeft = total
                guard total > byteLimit else { return result }
                var evictedByURL: [StoredPage: Int64] = [:]
                let order = try EvictionOrder(
                    connection, columns: columns, folded: false, total: total, byteLimit: byteLimit)
                for step in order.steps {
                    for entry in step.entries {
                        result.entryCount += 1
                        result.entryBytes += entry.size
                        result.urls.append(entry.url)
                        evictedByURL[StoredPage(partition: entry.partition, url: entry.url), default: 0] += 1
                    }
                    total -= step.frees
                }
                result.freedBytes = start - total
                result.bodyBytesLeft = total
                // The recorded pages whose every entry would go, as the eviction removes their records.
                for (page, evicted) in evictedByURL {
                    let goesWhole = try connection.int64(
                        """
                        SELECT (SELECT count(*) FROM entry WHERE partition = ?1 AND url = ?2) = ?3 \
                        AND EXISTS (SELECT 1 FROM page_edge WHERE partition = ?1 AND page_url = ?2 AND kind = 'page')
                        """, [.text(page.partition), .text(page.url), .integer(evicted)]) == 1
                    if goesWhole { result.pageRecordCount += 1 }
                }
                return result
            }
        }
    }
}
