import FoundationEssentials
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
        let query = columns.variantsQuery
        return try read("look up \(url)") { connection in
            var entries: [CacheEntry] = []
            try connection.forEachRow(
                query,
                [.text(partition), .text(method.rawValue), .text(url)]
            ) { row in
                entries.append(CacheEntry(
                    row: row, partition: partition, method: method, url: url,
                    decodedHeaders: connection.decodedHeaders))
            }
            return CacheEntry.inStoredOrder(entries)
        }
    }

    /// Every stored variant of (`partition`, `method`, `url`), as ``variants(partition:method:url:)``,
    /// and, when there is exactly one, fresh at `now` (its `fresh_until` later) and with a body of at
    /// most `bodyLimit` bytes, that body, read and checked in the same read transaction.
    ///
    /// This is a hit's one read: the store file's locks are taken once, and the body is of the very
    /// entry returned. The body is `nil` when another read is needed or it is not sound (gone, or
    /// damaged: ``bodyData(bodyID:)`` then reports which).
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func variants(
        partition: String = "guest", method: HTTPMethod = .get, url: String, withBodyIfFreshAt now: Date,
        upTo bodyLimit: Int64
    ) throws -> (entries: [CacheEntry], body: Data?) {
        let columns = columns
        return try read("look up \(url)") { connection in
            try Self.variants(partition: partition, method: method, url: url, withBodyIfFreshAt: now, upTo: bodyLimit,
                              columns: columns, connection)
        }
    }

    /// ``variants(partition:method:url:withBodyIfFreshAt:upTo:)`` through `connection`.
    ///
    /// Without a transaction of its own: the body is read while the variants' statement is still
    /// stepping, which holds one read snapshot for both (SQLite ends an implicit read transaction
    /// only when no statement is active), and the next step then tells whether the entry was alone.
    /// That spares a hit the `BEGIN` and `ROLLBACK` statements.
    static func variants(
        partition: String, method: HTTPMethod, url: String, withBodyIfFreshAt now: Date, upTo bodyLimit: Int64,
        columns: ReadableColumns, _ connection: Connection
    ) throws -> (entries: [CacheEntry], body: Data?) {
        let found = try variants(
            partition: partition, method: method, url: url, freshAt: now, upTo: bodyLimit, columns: columns, connection
        ) { _, check in try readChunks(check, query: columns.chunksQuery, connection) }
        guard found.entries.count == 1, case .sound(let data) = found.firstBody else {
            return (CacheEntry.inStoredOrder(found.entries), nil)
        }
        return (found.entries, data)
    }

    /// The stored variants of (`partition`, `method`, `url`) through `connection`, in no order, and
    /// what `readBody` made of the first one's body when that variant is fresh at `now` with at most
    /// `bodyLimit` bytes: a hit's one read, for the body kept in `Data` or copied into a server's
    /// memory. `readBody` gets the entry and the check made from its body's record, which came with
    /// the entry's row (``ReadableColumns/variantsQuery``), and reads only the chunks
    /// (``ReadableColumns/chunksQuery``) while the variants' statement still steps; the caller serves
    /// that body only when the variant turns out to be the only one. `nil` when no body was read, also
    /// for a body without a complete record.
    static func variants<Body>(
        partition: String, method: HTTPMethod, url: String, freshAt now: Date, upTo bodyLimit: Int64,
        columns: ReadableColumns, _ connection: Connection,
        readingBody readBody: (CacheEntry, BodyCheck) throws -> Body
    ) throws -> (entries: [CacheEntry], firstBody: Body?) {
        var entries: [CacheEntry] = []
        var body: Body?
        try connection.forEachRow(columns.variantsQuery, [.text(partition), .text(method.rawValue), .text(url)]) { row in
            let entry = CacheEntry(
                row: row, partition: partition, method: method, url: url, decodedHeaders: connection.decodedHeaders)
            // The body's record came with the entry: only its chunks are left.
            if entries.isEmpty, entry.freshUntil > now, entry.bodySize <= bodyLimit,
                let check = bodyCheck(of: entry, in: row)
            {
                body = try readBody(entry, check)
            }
            entries.append(entry)
        }
        return (entries, body)
    }

    /// The check of `entry`'s body from its record, which came with the entry in `row` (columns 18,
    /// 21 and 22 of ``ReadableColumns/variantsQuery`` and ``ReadableColumns/identityQuery``; the
    /// hash, column 18, is the entry's own copy); `nil` for an entry without a body or with one still
    /// being staged (no hash yet).
    private static func bodyCheck(of entry: CacheEntry, in row: Statement) -> BodyCheck? {
        guard let bodyID = entry.bodyID, let hash = entry.bodyHash, !row.isNull(18) else { return nil }
        return BodyCheck(bodyID: bodyID, size: row.int64(21), chunkCount: row.int64(22), hash: hash)
    }

    /// The entry with identity (`partition`, `method`, `url`, `varyKey`), if stored.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func entry(
        partition: String = "guest", method: HTTPMethod = .get, url: String, varyKey: String = ""
    ) throws -> CacheEntry? {
        let selection = columns.entrySelection
        return try read("look up \(url)") { connection in
            try Self.readEntry(
                partition: partition, method: method, url: url, varyKey: varyKey, selection: selection, connection)
        }
    }

    /// The entry with row id `id`, if stored.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func entry(id: Int64) throws -> CacheEntry? {
        let selection = columns.entrySelection
        return try read("read entry \(id)") { connection in
            try Self.readEntry(id: id, selection: selection, connection)
        }
    }

    /// Reads the entry with one identity through `connection`: a complete one, or with
    /// `condition` ``CacheEntry/byAnyIdentity`` a partial one too.
    static func readEntry(
        partition: String, method: HTTPMethod, url: String, varyKey: String, selection: String,
        condition: String = CacheEntry.byIdentity, _ connection: Connection
    ) throws -> CacheEntry? {
        var found: CacheEntry?
        try connection.forEachRow(
            selection + condition,
            [.text(partition), .text(method.rawValue), .text(url), .text(varyKey)]
        ) { row in
            found = CacheEntry(row: row)
        }
        return found
    }

    // MARK: - Bodies

    /// The whole body `bodyID` in memory, each chunk checked as it is read (against its CRC-32, or,
    /// for a body stored before schema version 4, the body against its SHA-256) and the whole against
    /// its recorded size; meant for small bodies (use ``bodyChunks(bodyID:)`` otherwise).
    ///
    /// - Throws: ``CacheStore/Error``; ``Error/Code/bodyMissing`` when the body is not stored;
    ///   ``Error/Code/damagedBody`` when its bytes are no longer those stored.
    public nonisolated func bodyData(bodyID: Int64) throws -> Data {
        let body = try read("read body \(bodyID)") { connection in
            try Self.readBody(bodyID, query: columns.wholeBodyQuery, connection)
        }
        switch body {
        case .missing:
            throw Error(code: .bodyMissing, message: "Body \(bodyID) is not in the cache store '\(path)'.")
        case .damaged:
            throw damagedBodyError(bodyID: bodyID)
        case .sound(let data):
            return data
        }
    }

    /// A reader that returns body `bodyID` chunk by chunk, each checked before it is returned.
    public nonisolated func bodyChunks(bodyID: Int64) -> BodyChunkReader {
        BodyChunkReader(store: self, bodyID: bodyID)
    }

    /// The chunks of body `bodyID` as an asynchronous sequence, read one at a time as they are consumed.
    ///
    /// The sequence throws ``Error/Code/damagedBody`` in place of a damaged chunk, or, for a body
    /// stored before schema version 4, in place of its end (see ``BodyChunkReader``).
    ///
    /// ```swift
    /// for try await chunk in store.bodyStream(bodyID: bodyID) { try await send(chunk) }
    /// ```
    public nonisolated func bodyStream(bodyID: Int64) -> AsyncThrowingStream<Data, any Swift.Error> {
        let reader = Mutex(bodyChunks(bodyID: bodyID))
        return AsyncThrowingStream(unfolding: { try reader.withLock { try $0.next() } })
    }

    /// What reading a whole body found.
    private enum BodyRead {
        /// No complete body row has that id (it was deleted, or is still being written).
        case missing
        /// The chunks are not those recorded (``BodyCheck``).
        case damaged
        case sound(Data)
    }

    /// Reads a whole body and its record in one statement (one snapshot), checking the chunks as
    /// they come (``BodyCheck``). Body ids are never reused, so chunks found under `bodyID` belong to
    /// that body.
    /// `query` is ``ReadableColumns/wholeBodyQuery``.
    private static func readBody(_ bodyID: Int64, query: SQLQuery, _ connection: Connection) throws -> BodyRead {
        var data = Data()
        let check = try forEachChunk(ofBody: bodyID, query: query, connection) { check, row in
            add(chunkIn: row, from: 3, to: &data, checking: &check)
        }
        guard let check else { return .missing }
        return check.isSound ? .sound(data) : .damaged
    }

    /// Reads the chunks of the body that `check` was made for, checking them as they come; the caller
    /// read the body's record in the same snapshot. `query` is ``ReadableColumns/chunksQuery``.
    private static func readChunks(_ check: BodyCheck, query: SQLQuery, _ connection: Connection) throws -> BodyRead {
        var check = check
        var data = Data()
        try connection.forEachRow(query, [.integer(check.bodyID)]) { row in
            add(chunkIn: row, from: 0, to: &data, checking: &check)
        }
        return check.isSound ? .sound(data) : .damaged
    }

    /// Adds the chunk of `row` (its seq, data and checksum from column `first` on) to `data` when
    /// `check` finds it the sound next chunk.
    private static func add(
        chunkIn row: Statement, from first: Int32, to data: inout Data, checking check: inout BodyCheck
    ) {
        let chunk = row.blob(first + 1)
        let checksum = row.isNull(first + 2) ? nil : row.int64(first + 2)
        guard check.add(chunk, seq: row.int64(first), checksum: checksum) else { return }
        // The first chunk is taken as it is: a body of one chunk is not copied again.
        if data.isEmpty { data = chunk } else { data.append(chunk) }
    }

    /// The error for body `bodyID` (of `url`, when known) whose bytes are no longer those stored.
    nonisolated func damagedBodyError(bodyID: Int64, url: String? = nil) -> Error {
        let body = url.map { "The stored body of \($0)" } ?? "Body \(bodyID)"
        return Error(
            code: .damagedBody,
            message: "\(body) in the cache store '\(path)' is damaged: its bytes no longer match their checksums."
        )
    }

    /// A check of body `bodyID` from its recorded chunk count, size and SHA-256.
    ///
    /// - Throws: ``Error/Code/bodyMissing`` when no complete body has that id.
    nonisolated func bodyCheck(bodyID: Int64) throws -> BodyCheck {
        let check = try read("read body \(bodyID)") { connection -> BodyCheck? in
            var check: BodyCheck?
            try connection.forEachRow(
                "SELECT size, chunk_count, hash FROM body WHERE id = ? AND hash IS NOT NULL", [.integer(bodyID)]
            ) { row in
                check = BodyCheck(bodyID: bodyID, size: row.int64(0), chunkCount: row.int64(1), hash: row.blob(2))
            }
            return check
        }
        guard let check else {
            throw Error(code: .bodyMissing, message: "Body \(bodyID) is not in the cache store '\(path)'.")
        }
        return check
    }

    /// Chunk `seq` of body `bodyID`, with its stored checksum (`nil` for a chunk written before
    /// schema version 4).
    ///
    /// - Throws: ``Error/Code/bodyMissing`` when the body is gone (its entry was replaced or removed
    ///   meanwhile); ``Error/Code/damagedBody`` when the body is there but the chunk is not.
    nonisolated func chunk(bodyID: Int64, seq: Int64) throws -> (data: Data, checksum: Int64?) {
        let chunk = try read("read body \(bodyID)") { connection -> ChunkRead in
            let statement = try connection.cachedStatement(
                sql: "SELECT data, \(columns.chunkChecksum) FROM body_chunk WHERE body_id = ? AND seq = ?"
            )
            statement.bind([.integer(bodyID), .integer(seq)])
            defer { statement.reset() }
            if try statement.step() {
                return .found(statement.blob(0), checksum: statement.isNull(1) ? nil : statement.int64(1))
            }
            // Chunks go only with their body, so a body row without this chunk is damaged.
            let bodyExists = try connection.int64("SELECT 1 FROM body WHERE id = ?", [.integer(bodyID)]) != nil
            return bodyExists ? .chunkMissing : .bodyMissing
        }
        switch chunk {
        case .found(let data, let checksum):
            return (data, checksum)
        case .chunkMissing:
            throw damagedBodyError(bodyID: bodyID)
        case .bodyMissing:
            throw Error(
                code: .bodyMissing,
                message: "Chunk \(seq) of body \(bodyID) is no longer in the cache store '\(path)'; "
                    + "its entry was replaced or removed while it was read."
            )
        }
    }

    /// What reading one chunk found.
    private enum ChunkRead {
        case found(Data, checksum: Int64?)
        case chunkMissing
        case bodyMissing
    }

    // MARK: - Hits

    /// Records that `entryID` was served at `date`, in memory; it reaches the store with the next write,
    /// at the flush threshold (through ``lookup(partition:method:url:varyKey:at:)``), or on close.
    /// A store opened for reading only records nothing.
    ///
    /// - Returns: Whether enough hits are waiting that the caller should call ``flushAccessLog()``.
    @discardableResult
    public nonisolated func recordHit(entryID: Int64, at date: Date) -> Bool {
        guard !configuration.readOnly else { return false }
        return accessLog.record(entryID: entryID, at: date) >= configuration.accessFlushThreshold
    }

    /// Reads an entry and its whole body, and records a hit.
    ///
    /// This is the hit path: one reader lock, one statement that reads the entry with its body's record
    /// and, while it steps (in the same snapshot), the body's chunks, and a hit recorded in memory; no
    /// write transaction, except a batched flush when many hits are waiting. For large bodies prefer
    /// ``entry(partition:method:url:varyKey:)`` and ``bodyChunks(bodyID:)``.
    ///
    /// The entry's ``CacheEntry/hitCount`` and ``CacheEntry/lastAccess`` are those folded into its row,
    /// as on every hit path: hits recorded since, this one among them, are added by ``entry(id:)``.
    ///
    /// - Returns: The entry and body, or `nil` when nothing is stored.
    /// - Throws: ``CacheStore/Error``; ``Error/Code/damagedBody`` when the body's bytes are no longer
    ///   those stored.
    public nonisolated func lookup(
        partition: String = "guest", method: HTTPMethod = .get, url: String, varyKey: String = "",
        at date: Date = Date()
    ) async throws -> CachedResponse? {
        let (query, chunksQuery) = (columns.identityQuery, columns.chunksQuery)
        let read = try read("look up \(url)") { connection -> (CacheEntry, BodyRead)? in
            var found: (CacheEntry, BodyRead)?
            let identity: [DatabaseValue] = [.text(partition), .text(method.rawValue), .text(url), .text(varyKey)]
            try connection.forEachRow(query, identity) { row in
                let entry = CacheEntry(row: row)
                guard let check = Self.bodyCheck(of: entry, in: row) else {
                    found = (entry, .missing)
                    return
                }
                found = (entry, try Self.readChunks(check, query: chunksQuery, connection))
            }
            return found
        }
        guard let (entry, body) = read else { return nil }
        let response: CachedResponse
        switch body {
        case .missing:
            return nil
        case .damaged:
            throw damagedBodyError(bodyID: entry.bodyID ?? 0, url: url)
        case .sound(let data):
            response = CachedResponse(entry: entry, body: data)
        }
        guard let id = response.entry.id else { return nil }
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

    /// The edges of a page (partition, page URL), by resource URL: resource URL, kind, failure.
    static let edgesQuery = SQLQuery("""
        SELECT resource_url, kind, failure FROM page_edge WHERE partition = ? AND page_url = ? ORDER BY resource_url
        """)

    /// What a page (partition, page URL) left out, by resource URL: resource URL, kind, reason.
    static let skipsQuery = SQLQuery("""
        SELECT resource_url, kind, reason FROM page_skip WHERE partition = ? AND page_url = ? ORDER BY resource_url
        """)

    /// The recorded edges of `pageURL` in `partition`, by resource URL.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func edges(forPage pageURL: String, partition: String = "guest") throws -> [PageEdge] {
        try read("read the resources of \(pageURL)") { connection in
            var edges: [PageEdge] = []
            try connection.forEachRow(Self.edgesQuery, [.text(partition), .text(pageURL)]) { row in
                edges.append(PageEdge(resourceURL: row.text(0), kind: row.text(1), failure: row.optionalText(2)))
            }
            return edges
        }
    }

    /// What `pageURL` references in `partition` that the preload left out for its device, and why;
    /// nothing for a store older than schema version 6, opened for reading only.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func skipped(forPage pageURL: String, partition: String = "guest") throws -> [PageSkip] {
        try read("read what \(pageURL) left out") { connection in
            guard try connection.int64("SELECT count(*) FROM sqlite_master WHERE name = 'page_skip'") == 1 else {
                return []
            }
            var skipped: [PageSkip] = []
            try connection.forEachRow(Self.skipsQuery, [.text(partition), .text(pageURL)]) { row in
                skipped.append(PageSkip(resourceURL: row.text(0), kind: row.text(1), reason: row.text(2)))
            }
            return skipped
        }
    }

    /// How complete `pageURL` is offline in `partition`: resources needed, stored, failed and missing.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func pageStatus(forPage pageURL: String, partition: String = "guest") throws -> PageStatus {
        try read("read the status of \(pageURL)") { connection in
            try connection.readTransaction {
                // A partial entry (status 206, schema version 6) does not make a resource stored.
                let pageStored =
                    try connection.int64(
                        "SELECT EXISTS (SELECT 1 FROM entry WHERE partition = ? AND url = ? AND status < 400 "
                            + "AND status != 206)",
                        [.text(partition), .text(pageURL)]
                    ) == 1
                var status = PageStatus(
                    pageStored: pageStored, resourceCount: 0, storedCount: 0, failures: [], missing: [])
                try connection.forEachRow(
                    """
                    SELECT p.resource_url, p.kind, p.failure, EXISTS (SELECT 1 FROM entry e \
                    WHERE e.partition = p.partition AND e.url = p.resource_url AND e.status < 400 AND e.status != 206) \
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
