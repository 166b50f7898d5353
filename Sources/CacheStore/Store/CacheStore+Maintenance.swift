import CSQLite
import FoundationEssentials
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CacheStore {
    // MARK: - Eviction

    /// Evicts unpinned entries, least recently used first, until the distinct body bytes are at most
    /// `byteLimit`, in one transaction.
    ///
    /// Order: `last_access` ascending, and among equal access times the larger body first, so that a
    /// tie frees the most space with the fewest evictions; entries that share a body go together, when
    /// the most recently used of them comes, and entries whose removal frees nothing stay
    /// (``EvictionOrder``). A page whose own entries are all evicted loses its record too. Eviction
    /// continues until the bytes fall under the limit or only entries that free nothing are left
    /// (pinned ones among them; the limit may then stay exceeded). Recorded hits are written and
    /// folded into their entries first, so the order is current.
    ///
    /// - Returns: What was evicted.
    /// - Throws: ``CacheStore/Error``.
    @discardableResult
    public func evict(toFit byteLimit: Int64) throws -> PruneResult {
        try write("evict entries", touchedBy: { .urls($0.urls) }) { connection in
            var result = PruneResult.empty
            var total = try Self.readTotals(connection).bodyBytes
            let start = total
            // The order is the entry's own index, so its hits must be in it.
            if total > byteLimit { try AccessLog.fold(connection) }
            while total > byteLimit {
                let order = try EvictionOrder(
                    connection, columns: columns, folded: true, total: total, byteLimit: byteLimit)
                if order.steps.isEmpty { break }
                // The walk's steps go in one statement: a step frees at most what the walk counted, so
                // the limit is not reached before its last step, where removing them one at a time
                // would stop (and cost three statements an entry: twice the CPU of a prune by criteria).
                // Emptied after each walk (and by the rollback of a transaction that fails in one).
                try connection.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS evicting (id INTEGER PRIMARY KEY)")
                for entry in order.steps.lazy.flatMap(\.entries) {
                    try connection.run("INSERT INTO temp.evicting (id) VALUES (?)", [.integer(entry.id)])
                    result.entryCount += 1
                    result.entryBytes += entry.size
                    result.urls.append(entry.url)
                }
                let chosen = "id IN (SELECT id FROM temp.evicting)"
                try Self.notePagesAmongEntries(connection, condition: chosen, [])
                try connection.run("DELETE FROM entry WHERE \(chosen)")
                try connection.run("DELETE FROM temp.evicting")
                total = try Self.readTotals(connection).bodyBytes
                // Another walk, while there are entries left to remove: a removal may have left a body to
                // fewer entries than the walk counted (a partial entry's part that shared it).
            }
            result.freedBytes = start - total
            result.bodyBytesLeft = total
            if result.entryCount > 0 { result.pageRecordCount = try Self.removeRecordsOfPagesGone(connection) }
            return result
        }
    }

    /// Evicts down to ``Configuration/byteLimit`` when the store exceeds it.
    func evictIfNeeded() throws {
        guard let limit = configuration.byteLimit else { return }
        guard let writer else { throw writeRefusal }
        let over = try Self.readTotals(writer).bodyBytes > limit
        if over {
            try evict(toFit: limit)
        }
    }

    // MARK: - Compacting

    /// Gives the space of removed entries back to the file system: rebuilds the store file without
    /// its free pages (`VACUUM`), then copies the log into it and empties the log, so that both files
    /// shrink. Without it, freed pages are reused by later writes but the file keeps its size.
    ///
    /// It rewrites the whole store once through the write-ahead log, so it needs about as much free
    /// disk as the store's size while it runs, and writers in other processes wait for it.
    ///
    /// - Returns: The sizes of the store and its log before and after, each measured after a
    ///   checkpoint, so that both count what the store holds once.
    /// - Throws: ``CacheStore/Error``.
    @discardableResult
    public func compact() throws -> CompactResult {
        guard let writer else { throw writeRefusal }
        try flushAccessLog()
        // The store's size as its user sees it: what the log holds copied into the file first, so
        // that "before" is not inflated by a log that the removal before it has just grown.
        try? writer.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        let before = fileBytes()
        do {
            // VACUUM cannot run inside a transaction; it takes the write lock itself.
            try writer.retryingBusy(for: configuration.busyRetryLimit) {
                try writer.execute(sql: "VACUUM")
            }
            // Another process reading an old snapshot may keep the log from emptying; the next
            // checkpoint finishes the job then.
            try? writer.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
        } catch {
            throw storeError(error, action: "compact the store")
        }
        return CompactResult(bytesBefore: before, bytesAfter: fileBytes())
    }

    /// The bytes of the store file and its write-ahead log on disk.
    private nonisolated func fileBytes() -> Int64 {
        [path, path + "-wal"].reduce(0) { total, file in
            var info = stat()
            return total + (stat(file, &info) == 0 ? Int64(info.st_size) : 0)
        }
    }

    // MARK: - Pruning

    /// Removes the entries matching `criteria` in one transaction, or, with `dryRun`, only reports them
    /// (``prunePlan(_:)``, which only reads).
    /// With ``PruneCriteria/page``, the page's record goes too when none of its own entries stays.
    ///
    /// - Returns: The count, URLs and bytes of the entries, the pages whose records go, and in a real
    ///   run the body bytes freed.
    /// - Throws: ``CacheStore/Error``; ``CacheStore/Error/Code/unknownPage`` when the page has no
    ///   recorded edges (in the partition of the criteria, if set), and then nothing is removed.
    @discardableResult
    public func prune(_ criteria: PruneCriteria, dryRun: Bool = false) throws -> PruneResult {
        if dryRun { return try prunePlan(criteria) }
        let (condition, values) = criteria.condition
        return try write("prune entries", touchedBy: { .urls($0.urls) }) { connection in
            let named = try Self.namedPagesGoing(criteria, condition: condition, values, path: path, connection)
            var result = try Self.deleteEntries(connection, condition: condition, values)
            result.pageRecordCount = max(0, result.pageRecordCount - named.withEntries)
            for page in named.pages {
                for table in ["page_edge", "page_skip", "page_basis"] {
                    try connection.run(
                        "DELETE FROM \(table) WHERE partition = ? AND page_url = ?",
                        [.text(page.partition), .text(page.url)])
                }
            }
            result.pages = named.pages
            return result
        }
    }

    /// What ``prune(_:dryRun:)`` would remove now, without removing anything: it only reads, so it
    /// works on a store opened for reading only.
    ///
    /// - Returns: The count, URLs and bytes of the entries, and the pages whose records would go.
    /// - Throws: ``CacheStore/Error``; ``CacheStore/Error/Code/unknownPage`` as ``prune(_:dryRun:)``.
    public nonisolated func prunePlan(_ criteria: PruneCriteria) throws -> PruneResult {
        let (condition, values) = criteria.condition
        let path = path
        let hasParts = columns.hasParts
        return try read("list entries to prune") { connection in
            try connection.readTransaction {
                let named = try Self.namedPagesGoing(criteria, condition: condition, values, path: path, connection)
                var result = try Self.selectEntries(connection, condition: condition, values)
                result.freedBytes = try Self.bodyBytesFreed(condition: condition, values, hasParts: hasParts, connection)
                // With no entry matching, no page's entries all match: the count, which reads every
                // page's record, is left out (0.6 s of a dry run over 200,000 pages that removes nothing).
                let going = result.entryCount == 0
                    ? 0 : try Self.countPagesGoingWhole(condition: condition, values, connection)
                result.pageRecordCount = max(0, going - named.withEntries)
                result.pages = named.pages
                return result
            }
        }
    }

    /// The bytes of the bodies that removing the entries matching `condition` would free: those all of
    /// whose references (entries, and parts of partial entries) are among them, as the store's
    /// reference counts go.
    private static func bodyBytesFreed(
        condition: String, _ values: [DatabaseValue], hasParts: Bool, _ connection: Connection
    ) throws -> Int64 {
        let parts = hasParts
            ? " UNION ALL SELECT p.body_id FROM entry_part p JOIN going g ON p.entry_id = g.id" : ""
        return try connection.int64(
            """
            WITH going(id, body_id) AS (SELECT id, body_id FROM entry WHERE \(condition)), \
            refs(body_id) AS (SELECT body_id FROM going\(parts)) \
            SELECT coalesce(sum(b.size), 0) FROM (SELECT body_id, count(*) AS n FROM refs GROUP BY body_id) r \
            JOIN body b ON b.id = r.body_id WHERE b.ref_count = r.n
            """, values) ?? 0
    }

    /// The pages of ``PruneCriteria/page`` whose records go with the entries that match `condition`
    /// (none without a page), and how many of them have entries of their own: those are reported as
    /// the named page's records, not among the pages that went with their entries.
    ///
    /// - Throws: ``CacheStore/Error/Code/unknownPage`` when the page has no recorded edges.
    private static func namedPagesGoing(
        _ criteria: PruneCriteria, condition: String, _ values: [DatabaseValue], path: String,
        _ connection: Connection
    ) throws -> (pages: [StoredPage], withEntries: Int) {
        guard let page = criteria.page else { return ([], 0) }
        let pages = try recordedPages(page, partition: criteria.partition, connection)
        guard !pages.isEmpty else {
            let scope = criteria.partition.map { " (partition \($0))" } ?? ""
            throw Error(
                code: .unknownPage,
                message: "'\(page)' is not a page with recorded resources in the cache store '\(path)'\(scope).")
        }
        let leaving = try pages.filter { try goesWhole($0, condition: condition, values, connection) }
        let withEntries = try leaving.count { page in
            try connection.int64(
                "SELECT EXISTS (SELECT 1 FROM entry WHERE partition = ? AND url = ?)",
                [.text(page.partition), .text(page.url)]) == 1
        }
        return (leaving, withEntries)
    }

    /// The partitions where `pageURL` has recorded edges, only `partition` when given.
    private static func recordedPages(
        _ pageURL: String, partition: String?, _ connection: Connection
    ) throws -> [StoredPage] {
        var pages: [StoredPage] = []
        try connection.forEachRow(
            "SELECT DISTINCT partition FROM page_edge WHERE page_url = ?1 AND (?2 IS NULL OR partition = ?2) "
                + "ORDER BY partition",
            [.text(pageURL), .text(partition)]
        ) { row in
            pages.append(StoredPage(partition: row.text(0), url: pageURL))
        }
        return pages
    }

    /// How many recorded pages have entries that all match `condition`, so that their records would
    /// go with them.
    private static func countPagesGoingWhole(
        condition: String, _ values: [DatabaseValue], _ connection: Connection
    ) throws -> Int {
        Int(try connection.int64(
            """
            SELECT count(*) FROM page_edge p WHERE p.kind = 'page' \
            AND EXISTS (SELECT 1 FROM entry WHERE partition = p.partition AND url = p.page_url) \
            AND NOT EXISTS (SELECT 1 FROM entry WHERE partition = p.partition AND url = p.page_url \
            AND NOT (\(condition)))
            """, values) ?? 0)
    }

    /// Whether every entry of `page` itself matches `condition`, so that none stays (also when it has none).
    private static func goesWhole(
        _ page: StoredPage, condition: String, _ values: [DatabaseValue], _ connection: Connection
    ) throws -> Bool {
        try connection.int64(
            "SELECT NOT EXISTS (SELECT 1 FROM entry WHERE partition = ? AND url = ? AND NOT (\(condition)))",
            [.text(page.partition), .text(page.url)] + values
        ) == 1
    }

    // MARK: - Statistics

    /// Figures for `inspect` at `now`, from one snapshot, computed on a background queue: counted
    /// from the rows, with the running totals beside them.
    ///
    /// - Throws: ``CacheStore/Error``; `CancellationError` when the calling task is cancelled.
    public nonisolated func statistics(at now: Date = Date()) async throws -> StoreStatistics {
        let hasParts = columns.hasParts
        return try await readInBackground("compute statistics") { connection, cancellation in
            var statistics = StoreStatistics(
                totals: try Self.countTotals(connection), runningTotals: try Self.readTotals(connection),
                freshCount: 0, staleServableCount: 0, expiredCount: 0, pinnedCount: 0, partialCount: 0, hosts: [],
                partitions: [], stagedBytes: 0
            )
            if hasParts {
                statistics.partialCount =
                    try connection.int64("SELECT count(*) FROM entry WHERE complete_length IS NOT NULL") ?? 0
            }
            let instant = DatabaseValue.date(now)
            try connection.forEachRow(
                """
                SELECT coalesce(sum(fresh_until > ?1), 0), \
                coalesce(sum(fresh_until <= ?1 AND stale_until > ?1), 0), \
                coalesce(sum(fresh_until <= ?1 AND coalesce(stale_until, fresh_until) <= ?1), 0), \
                coalesce(sum(pinned), 0) FROM entry
                """,
                [instant]
            ) { row in
                statistics.freshCount = row.int64(0)
                statistics.staleServableCount = row.int64(1)
                statistics.expiredCount = row.int64(2)
                statistics.pinnedCount = row.int64(3)
            }
            try cancellation.check()
            try connection.forEachRow(
                "SELECT host, count(*), sum(body_size) FROM entry GROUP BY host ORDER BY sum(body_size) DESC, host"
            ) { row in
                statistics.hosts.append(.init(name: row.text(0), entryCount: row.int64(1), entryBytes: row.int64(2)))
            }
            try connection.forEachRow(
                "SELECT partition, count(*), sum(body_size) FROM entry GROUP BY partition ORDER BY partition"
            ) { row in
                statistics.partitions.append(
                    .init(name: row.text(0), entryCount: row.int64(1), entryBytes: row.int64(2))
                )
            }
            statistics.stagedBytes =
                try connection.int64(
                    """
                    SELECT coalesce(sum(length(c.data)), 0) FROM body_chunk c JOIN body b ON b.id = c.body_id \
                    WHERE b.hash IS NULL
                    """
                ) ?? 0
            return statistics
        }
    }

    // MARK: - Verification

    /// Sets the running totals to the figures counted from the rows, in one transaction (writing
    /// their row again if it is missing): the repair of the totals ``verify()`` finds to differ from
    /// the rows. The store's triggers keep them exact; only damage to the file, or a change made
    /// around them, makes them differ, and then eviction and ``totals()`` go by wrong figures.
    ///
    /// - Returns: The totals now recorded.
    /// - Throws: ``CacheStore/Error``.
    @discardableResult
    public func recomputeTotals() throws -> StoreTotals {
        try write("recompute the running totals", touching: .nothingServed) { connection in
            let counted = try Self.countTotals(connection)
            try connection.run(
                """
                INSERT OR REPLACE INTO store_totals (id, entry_count, entry_bytes, body_count, body_bytes) \
                VALUES (1, ?, ?, ?, ?)
                """,
                [.integer(counted.entryCount), .integer(counted.entryBytes), .integer(counted.bodyCount),
                 .integer(counted.bodyBytes)])
            return counted
        }
    }

    /// Checks the whole store from one snapshot: SQLite's `integrity_check` and foreign keys, every
    /// body's chunks re-hashed and measured against its hash and size, reference counts, totals,
    /// entries pointing at missing bodies, and partial entries whose parts do not hold the bytes they
    /// record. Runs on a background queue; the store stays usable meanwhile.
    ///
    /// A part of the file that SQLite reports damaged is a problem of its own, and the checks go on
    /// past it with what can still be read (see ``StoreVerification``). Problems about a body name the
    /// URLs of the entries that use it.
    ///
    /// - Returns: A report listing every problem found.
    /// - Throws: ``CacheStore/Error`` when the checks cannot run at all; `CancellationError` when the
    ///   calling task is cancelled (checked between bodies).
    public nonisolated func verify() async throws -> VerifyReport {
        let checksumColumn = columns.chunkChecksum
        let hasParts = columns.hasParts
        return try await readInBackground("verify the store") { connection, cancellation in
            try StoreVerification(
                connection: connection, checksumColumn: checksumColumn, hasParts: hasParts, cancellation: cancellation
            ).run()
        }
    }
}
