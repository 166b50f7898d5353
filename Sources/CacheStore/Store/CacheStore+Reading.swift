import Foundation
import HTTPCore
import Synchronization

extension CacheStore {
    // MARK: - Entries

    /// Every stored variant of (`partition`, `method`, `url`), for the caller to match its Vary key.
    ///
    /// Reads run on the calling thread through a reader connection; they touch a few indexed rows and
    /// never wait for the writer. They do not record a hit: see ``recordHit(entryID:at:)``.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func variants(
        partition: String = "guest", method: HTTPMethod = .get, url: String
    ) throws -> [CacheEntry] {
        try read("look up \(url)") { connection in
            var entries: [CacheEntry] = []
            try connection.forEachRow(
                CacheEntry.selectionOfVariants,
                [.text(partition), .text(method.rawValue), .text(url)]
            ) { row in
                entries.append(CacheEntry(row: row))
            }
            return entries
        }
    }

    /// The entry with identity (`partition`, `method`, `url`, `varyKey`), if stored.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func entry(
        partition: String = "guest", method: HTTPMethod = .get, url: String, varyKey: String = ""
    ) throws -> CacheEntry? {
        try read("look up \(url)") { connection in
            try Self.readEntry(partition: partition, method: method, url: url, varyKey: varyKey, connection)
        }
    }

    /// The entry with row id `id`, if stored.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func entry(id: Int64) throws -> CacheEntry? {
        try read("read entry \(id)") { connection in try Self.readEntry(id: id, connection) }
    }

    private static func readEntry(
        partition: String, method: HTTPMethod, url: String, varyKey: String, _ connection: Connection
    ) throws -> CacheEntry? {
        var found: CacheEntry?
        try connection.forEachRow(
            CacheEntry.selectionByIdentity,
            [.text(partition), .text(method.rawValue), .text(url), .text(varyKey)]
        ) { row in
            found = CacheEntry(row: row)
        }
        return found
    }

    // MARK: - Bodies

    /// The whole body `bodyID` in memory; meant for small bodies (use ``bodyChunks(bodyID:)`` otherwise).
    ///
    /// - Throws: ``CacheStore/Error``; ``Error/Code/bodyMissing`` when the body is not stored.
    public nonisolated func bodyData(bodyID: Int64) throws -> Data {
        let body = try read("read body \(bodyID)") { connection in try Self.readBody(bodyID, connection) }
        guard let body else {
            throw Error(code: .bodyMissing, message: "Body \(bodyID) is not in the cache store '\(path)'.")
        }
        return body
    }

    /// A reader that returns body `bodyID` chunk by chunk.
    public nonisolated func bodyChunks(bodyID: Int64) -> BodyChunkReader {
        BodyChunkReader(store: self, bodyID: bodyID)
    }

    /// The chunks of body `bodyID` as an asynchronous sequence, read one at a time as they are consumed.
    ///
    /// ```swift
    /// for try await chunk in store.bodyStream(bodyID: bodyID) { try await send(chunk) }
    /// ```
    public nonisolated func bodyStream(bodyID: Int64) -> AsyncThrowingStream<Data, any Swift.Error> {
        let reader = Mutex(bodyChunks(bodyID: bodyID))
        return AsyncThrowingStream(unfolding: { try reader.withLock { try $0.next() } })
    }

    /// Reads a whole body in one statement (one snapshot); `nil` when the body row is gone or incomplete.
    private static func readBody(_ bodyID: Int64, _ connection: Connection) throws -> Data? {
        guard let size = try connection.int64("SELECT size FROM body WHERE id = ?", [.integer(bodyID)]) else {
            return nil
        }
        return try readChunks(bodyID, size: size, connection)
    }

    /// Reads the chunks of a body whose size is known, in one statement; `nil` unless they add up to `size`.
    /// Body ids are never reused, so chunks found under `bodyID` belong to that body.
    private static func readChunks(_ bodyID: Int64, size: Int64, _ connection: Connection) throws -> Data? {
        var data: Data?
        try connection.forEachRow(
            "SELECT data FROM body_chunk WHERE body_id = ? ORDER BY seq", [.integer(bodyID)]
        ) { row in
            if data == nil {
                data = row.blob(0)
            } else {
                data?.append(row.blob(0))
            }
        }
        let body = data ?? Data()
        return Int64(body.count) == size ? body : nil
    }

    nonisolated func chunkCount(bodyID: Int64) throws -> Int64 {
        let count = try read("read body \(bodyID)") { connection in
            try connection.int64("SELECT chunk_count FROM body WHERE id = ?", [.integer(bodyID)])
        }
        guard let count else {
            throw Error(code: .bodyMissing, message: "Body \(bodyID) is not in the cache store '\(path)'.")
        }
        return count
    }

    nonisolated func chunk(bodyID: Int64, seq: Int64) throws -> Data {
        let chunk = try read("read body \(bodyID)") { connection in
            let statement = try connection.cachedStatement(
                sql: "SELECT data FROM body_chunk WHERE body_id = ? AND seq = ?"
            )
            statement.bind([.integer(bodyID), .integer(seq)])
            defer { statement.reset() }
            return try statement.step() ? statement.blob(0) : nil
        }
        guard let chunk else {
            throw Error(
                code: .bodyMissing,
                message: "Chunk \(seq) of body \(bodyID) is no longer in the cache store '\(path)'; "
                    + "its entry was replaced or removed while it was read."
            )
        }
        return chunk
    }

    // MARK: - Hits

    /// Records that `entryID` was served at `date`, in memory; it reaches the store with the next write,
    /// at the flush threshold (through ``lookup(partition:method:url:varyKey:at:)``), or on close.
    ///
    /// - Returns: Whether enough hits are waiting that the caller should call ``flushAccessLog()``.
    @discardableResult
    public nonisolated func recordHit(entryID: Int64, at date: Date) -> Bool {
        accessLog.record(entryID: entryID, at: date) >= configuration.accessFlushThreshold
    }

    /// Reads an entry and its whole body, and records a hit.
    ///
    /// This is the hit path: one reader lock, a few indexed reads, and a hit recorded in memory; no write
    /// transaction, except a batched flush when many hits are waiting. For large bodies prefer
    /// ``entry(partition:method:url:varyKey:)`` and ``bodyChunks(bodyID:)``.
    ///
    /// - Returns: The entry and body, or `nil` when nothing is stored.
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func lookup(
        partition: String = "guest", method: HTTPMethod = .get, url: String, varyKey: String = "",
        at date: Date = Date()
    ) async throws -> CachedResponse? {
        let response = try read("look up \(url)") { connection -> CachedResponse? in
            guard
                let entry = try Self.readEntry(
                    partition: partition, method: method, url: url, varyKey: varyKey, connection
                ),
                let bodyID = entry.bodyID,
                let body = try Self.readChunks(bodyID, size: entry.bodySize, connection)
            else { return nil }
            return CachedResponse(entry: entry, body: body)
        }
        guard let response, let id = response.entry.id else { return nil }
        if recordHit(entryID: id, at: date) {
            try await flushAccessLog()
        }
        return response
    }

    // MARK: - Totals and pages

    /// The running totals, read without a scan.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func totals() throws -> StoreTotals {
        try read("read the totals") { connection in try Self.readTotals(connection) }
    }

    /// The recorded edges of `pageURL` in `partition`, by resource URL.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func edges(forPage pageURL: String, partition: String = "guest") throws -> [PageEdge] {
        try read("read the resources of \(pageURL)") { connection in
            var edges: [PageEdge] = []
            try connection.forEachRow(
                """
                SELECT resource_url, kind, failure FROM page_edge WHERE partition = ? AND page_url = ? \
                ORDER BY resource_url
                """,
                [.text(partition), .text(pageURL)]
            ) { row in
                edges.append(PageEdge(resourceURL: row.text(0), kind: row.text(1), failure: row.optionalText(2)))
            }
            return edges
        }
    }

    /// How complete `pageURL` is offline in `partition`: resources needed, stored, failed and missing.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func pageStatus(forPage pageURL: String, partition: String = "guest") throws -> PageStatus {
        try read("read the status of \(pageURL)") { connection in
            try connection.readTransaction {
                let pageStored =
                    try connection.int64(
                        "SELECT EXISTS (SELECT 1 FROM entry WHERE partition = ? AND url = ? AND status < 400)",
                        [.text(partition), .text(pageURL)]
                    ) == 1
                var status = PageStatus(
                    pageStored: pageStored, resourceCount: 0, storedCount: 0, failures: [], missing: [])
                try connection.forEachRow(
                    """
                    SELECT p.resource_url, p.kind, p.failure, EXISTS (SELECT 1 FROM entry e \
                    WHERE e.partition = p.partition AND e.url = p.resource_url AND e.status < 400) \
                    FROM page_edge p WHERE p.partition = ? AND p.page_url = ? ORDER BY p.resource_url
                    """,
                    [.text(partition), .text(pageURL)]
                ) { row in
                    status.resourceCount += 1
                    let edge = PageEdge(resourceURL: row.text(0), kind: row.text(1), failure: row.optionalText(2))
                    if edge.failure != nil {
                        status.failures.append(edge)
                    }
                    if row.int64(3) == 1 {
                        status.storedCount += 1
                    } else {
                        status.missing.append(edge.resourceURL)
                    }
                }
                return status
            }
        }
    }
}
