import FoundationEssentials

extension CacheStore {
    // MARK: - Entries across partitions

    /// Every stored entry of `url`: all partitions, methods and variants, ordered by partition,
    /// method and Vary key. For `inspect URL` and for pinning a URL wherever it is stored.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func entries(url: String) throws -> [CacheEntry] {
        let selection = columns.entrySelection
        return try read("look up \(url)") { connection in
            var entries: [CacheEntry] = []
            try connection.forEachRow(
                selection + " WHERE e.url = ? ORDER BY e.partition, e.method, e.vary_key",
                [.text(url)]
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

    // MARK: - Eviction plan

    /// What ``evict(toFit:)`` would evict now, without removing anything: unpinned entries, least
    /// recently used first (the larger body first among equal access times), until the distinct body
    /// bytes would be at most `byteLimit`. A body shared with an entry that stays frees nothing.
    ///
    /// Hits recorded in memory and not yet written are not taken into account.
    ///
    /// - Returns: The entries that would go, their bytes, and the body bytes that would be freed.
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func evictionPlan(toFit byteLimit: Int64) throws -> PruneResult {
        let lastAccess = columns.lastAccess
        return try read("plan an eviction") { connection in
            try connection.readTransaction {
                var result = PruneResult.empty
                var total = try Self.readTotals(connection).bodyBytes
                let start = total
                guard total > byteLimit else { return result }
                var references: [Int64: Int64] = [:]
                var evictedByURL: [StoredPage: Int64] = [:]
                try connection.forEachRow(
                    """
                    SELECT e.url, e.body_size, e.body_id, b.ref_count, b.size, e.partition FROM entry e \
                    JOIN body b ON b.id = e.body_id WHERE e.pinned = 0 \
                    ORDER BY \(lastAccess), e.body_size DESC, e.id
                    """
                ) { row in
                    guard total > byteLimit else { return }
                    let bodyID = row.int64(2)
                    let remaining = (references[bodyID] ?? row.int64(3)) - 1
                    references[bodyID] = remaining
                    if remaining == 0 {
                        total -= row.int64(4)
                    }
                    result.entryCount += 1
                    result.entryBytes += row.int64(1)
                    result.urls.append(row.text(0))
                    evictedByURL[StoredPage(partition: row.text(5), url: row.text(0)), default: 0] += 1
                }
                result.freedBytes = start - total
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
