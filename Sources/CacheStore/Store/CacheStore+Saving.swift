import FoundationEssentials
import HTTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension CacheStore {
    // MARK: - Bodies

    /// A writer that streams a body into the store before its entry is saved with
    /// ``save(_:body:pageEdges:)``.
    public nonisolated func makeBodyWriter() -> BodyWriter {
        BodyWriter(store: self)
    }

    /// Writes one chunk of a streamed body, in the writer's next transaction, as a chunk of the
    /// writer's provisional body, which the first chunk creates together with the staging row.
    nonisolated func stage(token: String, seq: Int64, chunk: Data) async throws {
        let now = configuration.clock()
        // Computed here, so that the writer's thread spends no time on it.
        let checksum = ChunkChecksum(of: chunk)
        try await queuedWrite("stage a body chunk", touching: .nothingServed) { connection in
            let bodyID: Int64
            if seq == 0 {
                try connection.run(
                    "INSERT INTO staging (token, pid, started_at) VALUES (?, ?, ?)",
                    [.text(token), .integer(StagingOwner.current), .date(now)]
                )
                try connection.run(
                    "INSERT INTO body (size, chunk_count, created_at, staging_token) VALUES (0, 0, ?, ?)",
                    [.date(now), .text(token)]
                )
                bodyID = connection.lastInsertedRowID
            } else if let provisional = try Self.provisionalBodyID(token: token, connection) {
                bodyID = provisional
            } else {
                throw Error(
                    code: .bodyMissing,
                    message: "The body being streamed in was collected as abandoned before its chunk \(seq) "
                        + "was written, so it cannot be saved."
                )
            }
            try Self.insertChunk(connection, bodyID: bodyID, seq: seq, data: chunk, checksum: checksum)
        }
    }

    /// Deletes a writer's staging row and, by cascade, its provisional body and chunks.
    nonisolated func discardStaging(token: String) async throws {
        try await queuedWrite("discard a staged body", touching: .nothingServed) { connection in
            try connection.run("DELETE FROM staging WHERE token = ?", [.text(token)])
        }
    }

    // MARK: - Saving entries

    /// Saves `entry` with the body streamed through `body`, in one transaction, which other writes
    /// waiting for the writer at the same time share; it returns once that transaction has committed.
    ///
    /// The chunks staged so far are already the body's final rows: the writer's provisional body is
    /// completed here with its hash and last chunk, so no byte is written twice. The body is
    /// deduplicated by its SHA-256: when the store already has it, the provisional body is deleted and
    /// the existing body is shared. An entry with the same identity (partition, method,
    /// URL, Vary key) is replaced; it keeps its id, hit count and pin. When `pageEdges` is given, the
    /// page's edges are replaced in the same transaction. With a ``Configuration/byteLimit``, eviction
    /// runs afterwards in a transaction of its own.
    ///
    /// `condition`, when given, is asked in the transaction, after every change committed or queued
    /// before it: when it no longer holds (the user whose partition the entry is for signed out, in
    /// this process or another, and the partition was emptied), nothing is saved.
    ///
    /// - Returns: The entry as stored, with its id, body id, size and hash.
    /// - Throws: ``CacheStore/Error``; ``Error/Code/bodyMissing`` when the staged chunks were collected,
    ///   ``Error/Code/withdrawn`` when `condition` no longer held.
    @discardableResult
    public nonisolated func save(
        _ entry: CacheEntry, body: BodyWriter, pageEdges: [PageEdge]? = nil,
        onlyIf condition: SaveCondition? = nil
    ) async throws -> CacheEntry {
        precondition(body.store === self, "A BodyWriter must be saved by the store that made it.")
        let headers = try encodedHeaders(of: entry)
        let hash = body.hasher.finalize()
        let now = configuration.clock()
        // Computed here, as for a staged chunk, so that the writer's thread spends no time on it.
        let lastChecksum = ChunkChecksum(of: body.pending)
        return try await queuedWrite(
            "save the entry for \(entry.url)", evicts: true, touching: .url(entry.url)
        ) { connection in
            try Self.requireCondition(condition, refusing: "The entry for \(entry.url)", connection)
            let bodyID = try Self.resolveBody(
                of: body, hash: hash, lastChecksum: lastChecksum, at: now, url: entry.url, connection)
            return try Self.upsert(
                entry, headers: headers, bodyID: bodyID, bodyHash: hash, bodySize: body.size, at: now,
                pageEdges: pageEdges, connection
            )
        }
    }

    /// Saves `entry` with a body held in memory, in one transaction; see ``save(_:body:pageEdges:)``.
    ///
    /// - Returns: The entry as stored, with its id, body id, size and hash.
    /// - Throws: ``CacheStore/Error``.
    @discardableResult
    public nonisolated func save(
        _ entry: CacheEntry, body: Data, pageEdges: [PageEdge]? = nil
    ) async throws -> CacheEntry {
        let headers = try encodedHeaders(of: entry)
        let hash = SHA256.hash(body)
        let now = configuration.clock()
        return try await queuedWrite(
            "save the entry for \(entry.url)", evicts: true, touching: .url(entry.url)
        ) { connection in
            let bodyID: Int64
            if let existing = try Self.bodyID(withHash: hash, connection) {
                bodyID = existing
            } else {
                let chunkCount = (body.count + Self.chunkSize - 1) / Self.chunkSize
                bodyID = try Self.insertBody(
                    connection, hash: hash, size: Int64(body.count), chunkCount: Int64(chunkCount), at: now
                )
                for seq in 0..<chunkCount {
                    let start = body.startIndex + seq * Self.chunkSize
                    let end = min(start + Self.chunkSize, body.endIndex)
                    try Self.insertChunk(
                        connection, bodyID: bodyID, seq: Int64(seq), data: body.subdata(in: start..<end))
                }
            }
            return try Self.upsert(
                entry, headers: headers, bodyID: bodyID, bodyHash: hash, bodySize: Int64(body.count), at: now,
                pageEdges: pageEdges, connection
            )
        }
    }

    /// The id of the complete body that the bytes streamed through `body` make: the body with
    /// that hash if the store has one, else the writer's provisional body completed (or a new body,
    /// when nothing was staged). The writer's staging row goes, and its provisional body with it
    /// when it was not used.
    static func resolveBody(
        of body: BodyWriter, hash: Data, lastChecksum: ChunkChecksum? = nil, at now: Date, url: String,
        _ connection: Connection
    ) throws -> Int64 {
        // Every staged chunk is whole: a writer whose bytes do not add up lost a chunk it could not stage.
        guard body.stagedChunks * Int64(chunkSize) + Int64(body.pending.count) == body.size else {
            throw Error(
                code: .bodyMissing,
                message: "The body written for \(url) lost bytes when one of its chunks could not be staged "
                    + "(\(body.size) bytes written); the entry was not saved.")
        }
        let bodyID: Int64
        if let existing = try Self.bodyID(withHash: hash, connection) {
            // The provisional body, if any, goes with the staging row below.
            bodyID = existing
        } else if body.stagedChunks == 0 {
            bodyID = try insertBody(
                connection, hash: hash, size: body.size, chunkCount: body.pending.isEmpty ? 0 : 1, at: now)
            if !body.pending.isEmpty {
                try insertChunk(connection, bodyID: bodyID, seq: 0, data: body.pending, checksum: lastChecksum)
            }
        } else {
            bodyID = try completeProvisionalBody(
                of: body, hash: hash, lastChecksum: lastChecksum, at: now, url: url, connection)
        }
        // The first staged chunk made the staging row; a body that staged none has no row to delete.
        if body.stagedChunks > 0 {
            try connection.run("DELETE FROM staging WHERE token = ?", [.text(body.token)])
        }
        return bodyID
    }

    nonisolated func encodedHeaders(of entry: CacheEntry) throws -> String {
        switch HeaderCoding.encode(entry.headers) {
        case .success(let text):
            return text
        case .failure(let invalid):
            throw Error(
                code: .invalidEntry,
                message: "The response for \(entry.url) has a header field '\(invalid.name)' that cannot be stored: "
                    + "names must be non-empty without ':' and no field may contain a line break."
            )
        }
    }

    /// The id of the complete body whose SHA-256 is `hash`, if the store has it.
    static func bodyID(withHash hash: Data, _ connection: Connection) throws -> Int64? {
        try connection.int64(bodyByHashQuery, [.blob(hash)])
    }

    private static let bodyByHashQuery = SQLQuery("SELECT id FROM body WHERE hash = ?")

    static func insertBody(
        _ connection: Connection, hash: Data, size: Int64, chunkCount: Int64, at now: Date
    ) throws -> Int64 {
        try connection.run(insertBodyQuery, [.blob(hash), .integer(size), .integer(chunkCount), .date(now)])
        return connection.lastInsertedRowID
    }

    private static let insertBodyQuery = SQLQuery(
        "INSERT INTO body (hash, size, chunk_count, ref_count, created_at) VALUES (?, ?, ?, 0, ?)")

    /// The id of the provisional body that the writer with `token` is staging, if it still exists.
    private static func provisionalBodyID(token: String, _ connection: Connection) throws -> Int64? {
        try connection.int64("SELECT id FROM body WHERE staging_token = ?", [.text(token)])
    }

    /// Appends the writer's last chunk to its provisional body and makes it a complete body with
    /// `hash`; throws ``Error/Code/bodyMissing`` when the staged chunks were collected meanwhile.
    private static func completeProvisionalBody(
        of body: BodyWriter, hash: Data, lastChecksum: ChunkChecksum?, at now: Date, url: String,
        _ connection: Connection
    ) throws -> Int64 {
        let bodyID = try provisionalBodyID(token: body.token, connection)
        var staged: Int64 = 0
        if let bodyID {
            staged = try connection.int64("SELECT count(*) FROM body_chunk WHERE body_id = ?", [.integer(bodyID)]) ?? 0
        }
        guard let bodyID, staged == body.stagedChunks else {
            throw Error(
                code: .bodyMissing,
                message: "The body staged for \(url) is incomplete (\(staged) of \(body.stagedChunks) "
                    + "chunks); it was collected as abandoned, so the entry was not saved."
            )
        }
        if !body.pending.isEmpty {
            try insertChunk(
                connection, bodyID: bodyID, seq: body.stagedChunks, data: body.pending, checksum: lastChecksum)
        }
        try connection.run(
            """
            UPDATE body SET hash = ?, size = ?, chunk_count = ?, created_at = ?, staging_token = NULL \
            WHERE id = ?
            """,
            [
                .blob(hash), .integer(body.size), .integer(body.stagedChunks + (body.pending.isEmpty ? 0 : 1)),
                .date(now), .integer(bodyID),
            ]
        )
        return bodyID
    }

    /// Inserts chunk `seq` of body `bodyID` with its checksum; the CRC-32 of its bytes is computed
    /// here unless the caller did. Salvage writes the chunks it copies with it too.
    static func insertChunk(
        _ connection: Connection, bodyID: Int64, seq: Int64, data: Data, checksum: ChunkChecksum? = nil
    ) throws {
        let value = (checksum ?? ChunkChecksum(of: data)).value(bodyID: bodyID, seq: seq)
        try connection.run(insertChunkQuery, [.integer(bodyID), .integer(seq), .blob(data), .integer(value)])
    }

    private static let insertChunkQuery = SQLQuery(
        "INSERT INTO body_chunk (body_id, seq, data, checksum) VALUES (?, ?, ?, ?)")

    /// Inserts or replaces the entry with the same identity; triggers keep reference counts and totals.
    /// The parts of a partial entry it replaces go, unless `keepingParts` (a part added to them).
    /// `bodyHash`, when the caller knows it, is the hash of body `bodyID`.
    static func upsert(
        _ entry: CacheEntry, headers: String, bodyID: Int64, bodyHash: Data? = nil, bodySize: Int64, at now: Date,
        pageEdges: [PageEdge]?, keepingParts: Bool = false, _ connection: Connection
    ) throws -> CacheEntry {
        let host = CacheEntry.host(of: entry.url)
        // An insert sets the connection's last inserted row id and an update does not, and entry ids
        // start at 1: a 0 left here tells an update. (The id from before is no guide: a body inserted
        // just before often has the same number as the new entry.)
        connection.forgetLastInsertedRowID()
        try connection.run(upsertQuery, [
            .text(entry.partition), .text(entry.method.rawValue), .text(entry.url), .text(host),
            .text(entry.varyKey), .int(entry.status), .text(headers), .date(entry.requestTime),
            .date(entry.responseTime), .date(entry.date), .text(entry.etag), .text(entry.lastModified),
            .text(entry.contentType), .date(entry.freshUntil), .date(entry.staleUntil), .date(now), .date(now),
            .bool(entry.pinned), .integer(bodyID), .integer(bodySize), .text(entry.decodedFrom),
            entry.completeLength.map { .integer($0) } ?? .null,
        ])
        // The entry as stored, from what was bound and what the row kept (its hits and pin), as
        // reading the row back would give it: dates go through the column's seconds since 1970.
        var saved = entry
        let insertedRow = connection.lastInsertedRowID
        if insertedRow != 0, let bodyHash {
            // A new row holds what was bound, no hits, and no parts (those of an entry deleted
            // before went with it).
            saved.id = insertedRow
            saved.hitCount = 0
            saved.bodyHash = bodyHash
        } else {
            // The row is read back by its identity rather than with `RETURNING`, which makes SQLite
            // build a temporary table on every save to hold the one row it returns.
            var found = false
            var hasParts = false
            let identity: [DatabaseValue] = [
                .text(entry.partition), .text(entry.url), .text(entry.method.rawValue), .text(entry.varyKey),
            ]
            try connection.forEachRow(savedRowQuery, identity) { row in
                found = true
                saved.id = row.int64(0)
                saved.hitCount = row.int64(1)
                saved.pinned = row.int64(2) != 0
                saved.bodyHash = row.isNull(3) ? nil : row.blob(3)
                hasParts = row.int64(4) != 0
            }
            guard found else {
                throw Error(code: .database, message: "Saving the entry for \(entry.url) returned no row id.")
            }
            // Asked first: the delete's plan builds a temporary table each time it runs, parts or not.
            if hasParts, !keepingParts {
                try connection.run(deletePartsQuery, [.integer(saved.id ?? 0)])
            }
        }
        func stored(_ date: Date) -> Date { Date(timeIntervalSince1970: date.timeIntervalSince1970) }
        saved.host = host
        saved.bodyID = bodyID
        saved.bodySize = bodySize
        saved.requestTime = stored(entry.requestTime)
        saved.responseTime = stored(entry.responseTime)
        saved.freshUntil = stored(entry.freshUntil)
        saved.staleUntil = entry.staleUntil.map(stored)
        saved.storedAt = stored(now)
        saved.lastAccess = stored(now)
        if let pageEdges {
            try replaceEdges(pageEdges, page: entry.url, partition: entry.partition, connection)
        }
        return saved
    }

    private static let upsertQuery = SQLQuery("""
        INSERT INTO entry (partition, method, url, host, vary_key, status, headers, request_time, \
        response_time, date, etag, last_modified, content_type, fresh_until, stale_until, stored_at, \
        last_access, hit_count, pinned, body_id, body_size, decoded_from, complete_length)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)
        ON CONFLICT (partition, url, method, vary_key) DO UPDATE SET
        host = excluded.host, status = excluded.status, headers = excluded.headers,
        request_time = excluded.request_time, response_time = excluded.response_time, date = excluded.date,
        etag = excluded.etag, last_modified = excluded.last_modified, content_type = excluded.content_type,
        fresh_until = excluded.fresh_until, stale_until = excluded.stale_until, stored_at = excluded.stored_at,
        last_access = excluded.last_access, pinned = max(entry.pinned, excluded.pinned),
        body_id = excluded.body_id, body_size = excluded.body_size, decoded_from = excluded.decoded_from,
        complete_length = excluded.complete_length
        """)

    /// What ``upsert(_:headers:bodyID:bodyHash:bodySize:at:pageEdges:keepingParts:_:)`` reads back of
    /// a row it updated, found by its identity (partition, URL, method, Vary key): id, hits (those not
    /// yet folded into the row too), pin, body hash, and 1 when it has parts of a partial entry.
    private static let savedRowQuery = SQLQuery("""
        SELECT e.id, \(AccessLog.hitCountColumn), e.pinned, (SELECT hash FROM body WHERE id = e.body_id), \
        EXISTS (SELECT 1 FROM entry_part WHERE entry_id = e.id) FROM entry e \
        WHERE e.partition = ? AND e.url = ? AND e.method = ? AND e.vary_key = ?
        """)

    private static let deletePartsQuery = SQLQuery("DELETE FROM entry_part WHERE entry_id = ?")

    /// Reads one entry by id through `connection`.
    static func readEntry(id: Int64, selection: String, _ connection: Connection) throws -> CacheEntry? {
        var found: CacheEntry?
        try connection.forEachRow(selection + CacheEntry.byID, [.integer(id)]) { row in
            found = CacheEntry(row: row)
        }
        return found
    }

    // MARK: - Updating and removing

    /// Replaces headers and freshness of stored entries after a `304 Not Modified`, in one transaction.
    /// Bodies are untouched. Ids that no longer exist are skipped.
    ///
    /// - Returns: The number of entries updated.
    /// - Throws: ``CacheStore/Error``.
    @discardableResult
    public nonisolated func updateMetadata(_ updates: [MetadataUpdate]) async throws -> Int {
        var encoded: [(MetadataUpdate, String)] = []
        for update in updates {
            switch HeaderCoding.encode(update.headers) {
            case .success(let text):
                encoded.append((update, text))
            case .failure(let invalid):
                throw Error(
                    code: .invalidEntry,
                    message: "The update of entry \(update.entryID) has a header field '\(invalid.name)' that "
                        + "cannot be stored: names must be non-empty without ':' and no field may contain a line break."
                )
            }
        }
        let updated = try await queuedWrite("update stored metadata", touchedBy: { .urls($0) }) {
            [encoded] connection in
            var urls: [String] = []
            for (update, headers) in encoded {
                let fields = update.headers
                try connection.run(
                    """
                    UPDATE entry SET headers = ?, request_time = ?, response_time = ?, date = ?, etag = ?, \
                    last_modified = ?, content_type = ?, fresh_until = ?, stale_until = ? WHERE id = ?
                    """,
                    [
                        .text(headers), .date(update.requestTime), .date(update.responseTime),
                        .date(fields["Date"].flatMap { HTTPDate.parse($0) }), .text(fields["ETag"]),
                        .text(fields["Last-Modified"]), .text(fields["Content-Type"]),
                        .date(update.freshUntil), .date(update.staleUntil), .integer(update.entryID),
                    ]
                )
                guard connection.changes > 0 else { continue }
                // The URL the update changed, for the store's record of its own commits.
                try connection.forEachRow("SELECT url FROM entry WHERE id = ?", [.integer(update.entryID)]) { row in
                    urls.append(row.text(0))
                }
            }
            return urls
        }
        return updated.count
    }

    /// Removes every stored variant of `url`, for every method, in `partition` (RFC 9111 §4.4).
    ///
    /// - Returns: What was removed.
    /// - Throws: ``CacheStore/Error``.
    @discardableResult
    public func invalidate(url: String, partition: String = "guest") throws -> PruneResult {
        try write("invalidate \(url)", touching: .url(url)) { connection in
            try Self.deleteEntries(connection, condition: "partition = ? AND url = ?", [.text(partition), .text(url)])
        }
    }

    /// Removes body `bodyID` with every entry that uses it, in one transaction: for a body found
    /// damaged, which a save of the same bytes would otherwise share again (bodies are shared by
    /// their SHA-256, which the damaged bytes no longer have).
    ///
    /// - Returns: The entries removed.
    /// - Throws: ``CacheStore/Error``.
    @discardableResult
    public func discardBody(id bodyID: Int64) throws -> PruneResult {
        try write("discard body \(bodyID)", touchedBy: { .urls($0.urls) }) { connection in
            let result = try Self.deleteEntries(connection, condition: "body_id = ?", [.integer(bodyID)])
            // The last entry's trigger deletes the body; a reference count that is damaged too may not.
            try connection.run("DELETE FROM body WHERE id = ?", [.integer(bodyID)])
            return result
        }
    }

    /// Removes a partition's entries (pinned ones too), its page edges and the bodies no other entry
    /// uses, in one transaction; used at logout.
    ///
    /// - Returns: What was removed.
    /// - Throws: ``CacheStore/Error``.
    @discardableResult
    public func removeAll(partition: String) throws -> PruneResult {
        try write("remove the partition '\(partition)'", touchedBy: { .urls($0.urls) }) { connection in
            try Self.removeAll(partition: partition, connection)
        }
    }

    /// Deletes the entries and page records of `partition` in the transaction on `connection`.
    static func removeAll(partition: String, _ connection: Connection) throws -> PruneResult {
        let result = try deleteEntries(connection, condition: "partition = ?", [.text(partition)])
        for table in ["page_edge", "page_skip", "page_basis"] {
            try connection.run("DELETE FROM \(table) WHERE partition = ?", [.text(partition)])
        }
        return result
    }

    /// Deletes the entries matching `condition`; triggers release bodies and keep the totals.
    /// A page whose own entries all go is no longer a page of the store: its record (its edges) goes
    /// in the same transaction, so that `inspect --pages` never lists a page the store lacks.
    static func deleteEntries(
        _ connection: Connection, condition: String, _ values: [DatabaseValue]
    ) throws -> PruneResult {
        var result = try selectEntries(connection, condition: condition, values)
        guard result.entryCount > 0 else { return result }
        let before = try readTotals(connection)
        try notePagesAmongEntries(connection, condition: condition, values)
        try connection.run("DELETE FROM entry WHERE \(condition)", values)
        result.freedBytes = before.bodyBytes - (try readTotals(connection)).bodyBytes
        result.pageRecordCount = try removeRecordsOfPagesGone(connection)
        return result
    }

    /// Notes, in a temporary table of the connection, the recorded pages that are among the entries
    /// matching `condition`, for ``removeRecordsOfPagesGone(_:)`` once they are deleted.
    static func notePagesAmongEntries(
        _ connection: Connection, condition: String, _ values: [DatabaseValue]
    ) throws {
        try connection.execute(sql: """
            CREATE TEMP TABLE IF NOT EXISTS leaving_page (
                partition TEXT NOT NULL, url TEXT NOT NULL, PRIMARY KEY (partition, url)
            ) WITHOUT ROWID
            """)
        try connection.run(
            """
            INSERT OR IGNORE INTO temp.leaving_page SELECT partition, url FROM entry WHERE (\(condition)) \
            AND EXISTS (SELECT 1 FROM page_edge p WHERE p.partition = entry.partition AND p.page_url = entry.url \
            AND p.kind = 'page')
            """, values)
    }

    /// Removes the records of the pages ``notePagesAmongEntries(_:condition:_:)`` noted whose own
    /// entries are all gone now, and empties the note.
    /// - Returns: How many page records went.
    static func removeRecordsOfPagesGone(_ connection: Connection) throws -> Int {
        for table in ["page_edge", "page_skip", "page_basis"] {
            try connection.run(
                """
                DELETE FROM \(table) WHERE (partition, page_url) IN (SELECT partition, url FROM temp.leaving_page l \
                WHERE NOT EXISTS (SELECT 1 FROM entry e WHERE e.partition = l.partition AND e.url = l.url))
                """)
        }
        let removed = try connection.int64(
            """
            SELECT count(*) FROM temp.leaving_page l \
            WHERE NOT EXISTS (SELECT 1 FROM entry e WHERE e.partition = l.partition AND e.url = l.url)
            """) ?? 0
        try connection.run("DELETE FROM temp.leaving_page")
        return Int(removed)
    }

    /// What ``deleteEntries(_:condition:_:)`` would delete.
    static func selectEntries(
        _ connection: Connection, condition: String, _ values: [DatabaseValue]
    ) throws -> PruneResult {
        var result = PruneResult.empty
        try connection.forEachRow("SELECT url, body_size FROM entry WHERE \(condition) ORDER BY id", values) { row in
            result.entryCount += 1
            result.entryBytes += row.int64(1)
            result.urls.append(row.text(0))
        }
        return result
    }

    // MARK: - Pins

    /// Pins or unpins every entry of `url` in `partition`; pinned entries are never evicted.
    ///
    /// - Returns: The number of entries changed.
    /// - Throws: ``CacheStore/Error``.
    @discardableResult
    public func setPinned(_ pinned: Bool, url: String, partition: String = "guest") throws -> Int {
        try write("pin \(url)") { connection in
            try connection.run(
                "UPDATE entry SET pinned = ? WHERE partition = ? AND url = ?",
                [.bool(pinned), .text(partition), .text(url)]
            )
            return Int(connection.changes)
        }
    }

    /// Pins or unpins a page and every resource of its edges, in `partition`. Unpinning leaves pinned
    /// what another pinned page of the partition (one whose own entry is pinned) needs, so that
    /// unpinning one page never opens another pinned page to eviction.
    ///
    /// - Returns: The page's stored entries, those whose pin changed, and those left pinned for others.
    /// - Throws: ``CacheStore/Error``.
    @discardableResult
    public func setPinned(_ pinned: Bool, page pageURL: String, partition: String = "guest") throws -> PinChange {
        try write("pin the page \(pageURL)") { connection in
            let ofThePage = """
                partition = ?1 AND url IN (SELECT ?2 UNION SELECT resource_url FROM page_edge \
                WHERE partition = ?1 AND page_url = ?2)
                """
            // An edge to the entry from another page whose own entry is pinned (found through the index
            // by resource, which leaves out a page's edge to itself, as the query does). CROSS JOIN keeps
            // the edges to the entry the outer loop: SQLite chose the partition's entries, each looked
            // for among the edges, and unpinning a page of a 110,000-entry store took 2.5 s.
            let neededElsewhere = """
                EXISTS (SELECT 1 FROM page_edge other \
                CROSS JOIN entry page ON page.partition = other.partition AND page.url = other.page_url \
                AND page.pinned \
                WHERE other.partition = entry.partition AND other.resource_url = entry.url \
                AND other.page_url != other.resource_url AND other.page_url != ?2)
                """
            let bound: [DatabaseValue] = [.text(partition), .text(pageURL)]
            var change = PinChange(entries: Int(try connection.int64(
                "SELECT count(*) FROM entry WHERE \(ofThePage)", bound) ?? 0), changed: 0)
            if !pinned {
                change.neededByPinnedPages = Int(try connection.int64(
                    "SELECT count(*) FROM entry WHERE \(ofThePage) AND pinned AND \(neededElsewhere)", bound) ?? 0)
            }
            try connection.run(
                "UPDATE entry SET pinned = ?3 WHERE \(ofThePage) AND pinned != ?3"
                    + (pinned ? "" : " AND NOT \(neededElsewhere)"),
                bound + [.bool(pinned)])
            change.changed = Int(connection.changes)
            return change
        }
    }

    // MARK: - Page edges

    /// Replaces the edges of `pageURL` in `partition`, in one transaction.
    ///
    /// - Throws: ``CacheStore/Error``.
    public func setEdges(_ edges: [PageEdge], forPage pageURL: String, partition: String = "guest") throws {
        try write("record the resources of \(pageURL)", touching: .nothingServed) { connection in
            try Self.replaceEdges(edges, page: pageURL, partition: partition, connection)
        }
    }

    /// Replaces the edges of every page in `edgesByPage` (page URL → its edges) in `partition`, all
    /// in one transaction: a preload run records its pages at once rather than committing per page.
    /// Recorded edges of the `keptKinds` stay unless `edgesByPage` names their resource again: a run
    /// that did not look for some kinds of resource leaves what earlier runs recorded of them. The
    /// pages in `keptPages` keep every edge recorded before (a page whose fetch failed was not read):
    /// their edges in `edgesByPage` are only added or updated. What each page in `edgesByPage`
    /// references and was left out for the device (`skipped`; a page it does not name skips nothing)
    /// replaces what was recorded of it before, except for the pages in `keptPages`.
    ///
    /// The recorded edges are compared first in one read (one snapshot), and only the pages whose
    /// record would change go to the writer: a warm run, which mostly finds its pages as the last
    /// run left them, then opens no write transaction for them at all. A page changed by another
    /// process between the read and the write is compared again in the write. A caller that knows
    /// the pages are new to the store (a run into a store that was empty) passes `comparingFirst`
    /// `false`: the read would find nothing, and the write compares anyway; the pages in `newPages`
    /// (found with nothing stored for them, say) are left out of the read in the same way.
    ///
    /// With `discovery` (how the preload looked for the edges: its device and options), each page
    /// not in `keptPages` also gets the digest of its record as the store then holds it
    /// (``recordedPages(partition:urls:discovery:at:confirmed:)``), written only when it differs from the one
    /// recorded; without it, recorded digests are left as they are (a digest that no longer matches
    /// its record is never trusted). `scanned` gives the SHA-256 of the bytes the caller read for
    /// references at some of the edges' URLs: a page whose edge's entry now holds other bytes (stored
    /// again by someone else since they were read) gets no digest, since its edges were found in
    /// bytes the store no longer has.
    ///
    /// `condition` is asked as ``save(_:body:pageEdges:onlyIf:)`` asks it.
    ///
    /// - Throws: ``CacheStore/Error``; then no page's edges changed (``Error/Code/withdrawn`` when
    ///   `condition` no longer held).
    public nonisolated func setEdges(
        _ edgesByPage: [String: [PageEdge]], partition: String = "guest", keepingKinds keptKinds: Set<String> = [],
        keepingEveryEdgeOf keptPages: Set<String> = [], skipped: [String: [PageSkip]] = [:], comparingFirst: Bool = true,
        knownNew newPages: Set<String> = [], discovery: String? = nil, scanned: [String: Data] = [:],
        onlyIf condition: SaveCondition? = nil
    ) async throws {
        guard !edgesByPage.isEmpty else { return }
        let discovery = columns.hasPageBasis ? discovery : nil
        @Sendable func changes(
            _ page: String, _ edges: [PageEdge], known: inout [String: EdgeBody?], holdsSkips: Bool,
            _ connection: Connection
        ) throws -> Bool {
            let keepsEvery = keptPages.contains(page)
            if try !Self.edgeChanges(
                edges, page: page, partition: partition, keepingKinds: keptKinds, keepingEveryEdge: keepsEvery,
                connection
            ).isEmpty {
                return true
            }
            guard !keepsEvery else { return false }
            let skips = skipped[page] ?? []
            if holdsSkips || !skips.isEmpty, try Self.skipChanges(skips, page: page, partition: partition, connection) {
                return true
            }
            guard let discovery else { return false }
            return try Self.basisDiffers(
                page: page, partition: partition, discovery: discovery, scanned: scanned, known: &known, connection)
        }
        var changed = edgesByPage
        // A store opened for reading only refuses the write, as it always did, rather than comparing.
        if comparingFirst, !configuration.readOnly, edgesByPage.keys.contains(where: { !newPages.contains($0) }) {
            changed = try read("compare the resources of \(edgesByPage.count) pages") { connection in
                try connection.readTransaction {
                    // The entries the digests name, each looked up once for all the pages.
                    var known: [String: EdgeBody?] = [:]
                    let holdsSkips = try Self.holdsSkips(partition: partition, connection)
                    return try edgesByPage.filter {
                        try newPages.contains($0.key)
                            || changes($0.key, $0.value, known: &known, holdsSkips: holdsSkips, connection)
                    }
                }
            }
            guard !changed.isEmpty else { return }
        }
        try await queuedWrite(
            "record the resources of \(changed.count) pages", touching: .nothingServed
        ) { [changed] connection in
            try Self.requireCondition(condition, refusing: "The record of \(changed.count) pages", connection)
            // Edges change here, entries do not: an entry looked up for one page's digest stands for the next.
            var known: [String: EdgeBody?] = [:]
            // Whether the partition held any skip when the transaction began. When it held none, a page
            // that wants none has none to remove (this loop writes only the skips of the page it is at),
            // and is not asked: most stores record no skip, and a run of tiny pages spent a lookup a page.
            let holdsSkips = try Self.holdsSkips(partition: partition, connection)
            for (page, edges) in changed {
                try Self.replaceEdges(
                    edges, page: page, partition: partition, keepingKinds: keptKinds,
                    keepingEveryEdge: keptPages.contains(page), connection)
                guard !keptPages.contains(page) else { continue }
                let skips = skipped[page] ?? []
                if holdsSkips || !skips.isEmpty {
                    try Self.replaceSkips(skips, page: page, partition: partition, connection)
                }
                if let discovery {
                    try Self.recordBasis(
                        page: page, partition: partition, discovery: discovery, scanned: scanned, known: &known,
                        connection)
                }
            }
        }
    }

    /// What making the recorded edges of a page those of a list writes (``edgeChanges``).
    private struct EdgeChanges {
        /// Edges to insert, or to update in kind or failure.
        var upserts: [PageEdge] = []
        /// Resources whose recorded edge goes.
        var removals: [String] = []

        var isEmpty: Bool { upserts.isEmpty && removals.isEmpty }
    }

    /// What making the recorded edges of `page` those of `edges` (besides those of the `keptKinds`,
    /// and every one when `keepsEvery`) writes: only the rows that differ. The last of a resource
    /// named twice is the one recorded, as when each was written in turn.
    ///
    /// A warm run compares every page it settles, so the recorded rows, which the query gives in
    /// the order of their resource URLs' bytes, are walked beside the wanted edges sorted the same
    /// way: URLs are compared as bytes in place, and none is hashed or copied out of its row.
    private static func edgeChanges(
        _ edges: [PageEdge], page: String, partition: String, keepingKinds keptKinds: Set<String> = [],
        keepingEveryEdge keepsEvery: Bool = false, _ connection: Connection
    ) throws -> EdgeChanges {
        let (wanted, byURL) = distinctByURL(edges)
        var unchanged = [Bool](repeating: false, count: wanted.count)
        var changes = EdgeChanges()
        // The first of `byURL` (wanted edges in the rows' order) not yet passed by the rows.
        var next = 0
        try connection.forEachRow(edgesQuery, [.text(partition), .text(page)]) { row in
            var order = 1
            while next < byURL.count {
                order = row.compareText(0, wanted[byURL[next]].resourceURL)
                if order <= 0 { break }
                // A wanted edge the rows passed over is not recorded.
                next += 1
            }
            if next < byURL.count, order == 0 {
                let edge = wanted[byURL[next]]
                unchanged[byURL[next]] = row.textEquals(1, edge.kind) && row.optionalText(2) == edge.failure
                next += 1
            } else if !keepsEvery, !keptKinds.contains(row.text(1)) {
                changes.removals.append(row.text(0))
            }
        }
        changes.upserts = zip(wanted, unchanged).compactMap { $1 ? nil : $0 }
        return changes
    }

    /// `edges` with each resource URL once (where it first appears, as it last appears), and the
    /// indices of those in the order of their URLs' bytes (SQLite's `BINARY` collation).
    static func distinctByURL(_ edges: [PageEdge]) -> (edges: [PageEdge], byURL: [Int]) {
        // A page listed without requisites has its own edge alone: nothing to sort or merge.
        guard edges.count > 1 else { return (edges, Array(edges.indices)) }
        func order(_ left: Int, _ right: Int) -> Int {
            var leftURL = edges[left].resourceURL
            var rightURL = edges[right].resourceURL
            return leftURL.withUTF8 { leftBytes in
                rightURL.withUTF8 { Statement.binaryOrder(leftBytes, $0) }
            }
        }
        // Equal URLs stay in the order they came, so each run of them starts with the first.
        let sorted = edges.indices.sorted { left, right in
            let byURL = order(left, right)
            return byURL < 0 || (byURL == 0 && left < right)
        }
        var lastOfRun = [Int?](repeating: nil, count: edges.count)
        var runStarts: [Int] = []
        runStarts.reserveCapacity(edges.count)
        var position = 0
        while position < sorted.count {
            var end = position
            while end + 1 < sorted.count, order(sorted[end + 1], sorted[position]) == 0 { end += 1 }
            lastOfRun[sorted[position]] = sorted[end]
            runStarts.append(sorted[position])
            position = end + 1
        }
        guard runStarts.count < edges.count else { return (edges, sorted) }
        var wanted: [PageEdge] = []
        wanted.reserveCapacity(runStarts.count)
        var wantedIndex = [Int](repeating: 0, count: edges.count)
        for index in edges.indices {
            guard let last = lastOfRun[index] else { continue }
            wantedIndex[index] = wanted.count
            wanted.append(edges[last])
        }
        return (wanted, runStarts.map { wantedIndex[$0] })
    }

    /// Makes the recorded edges of `page` those of `edges` (``edgeChanges``), writing only the rows
    /// that differ: a run that finds a page as the last one did writes nothing.
    private static func replaceEdges(
        _ edges: [PageEdge], page: String, partition: String, keepingKinds keptKinds: Set<String> = [],
        keepingEveryEdge keepsEvery: Bool = false, _ connection: Connection
    ) throws {
        let changes = try edgeChanges(
            edges, page: page, partition: partition, keepingKinds: keptKinds, keepingEveryEdge: keepsEvery, connection)
        for edge in changes.upserts {
            try connection.run(
                edgeUpsertQuery,
                [.text(partition), .text(page), .text(edge.resourceURL), .text(edge.kind), .text(edge.failure)])
        }
        for resourceURL in changes.removals {
            try connection.run(edgeDeleteQuery, [.text(partition), .text(page), .text(resourceURL)])
        }
    }

    /// Records one edge of a page (partition, page URL, resource URL, kind, failure), or updates its
    /// kind and failure. Found by its number, as every page a run settles writes one at least.
    private static let edgeUpsertQuery = SQLQuery("""
        INSERT INTO page_edge (partition, page_url, resource_url, kind, failure) VALUES (?, ?, ?, ?, ?)
        ON CONFLICT (partition, page_url, resource_url) DO UPDATE SET kind = excluded.kind, \
        failure = excluded.failure
        """)

    /// Removes one edge of a page (partition, page URL, resource URL).
    private static let edgeDeleteQuery = SQLQuery(
        "DELETE FROM page_edge WHERE partition = ? AND page_url = ? AND resource_url = ?")

    /// Whether any page of `partition` has a recorded skip.
    static func holdsSkips(partition: String, _ connection: Connection) throws -> Bool {
        var holds = false
        try connection.forEachRow(anySkipQuery, [.text(partition)]) { _ in holds = true }
        return holds
    }

    private static let anySkipQuery = SQLQuery("SELECT 1 FROM page_skip WHERE partition = ? LIMIT 1")

    /// Whether making the recorded skips of `page` those of `skips` (the last of a resource named
    /// twice) changes them.
    private static func skipChanges(_ skips: [PageSkip], page: String, partition: String, _ connection: Connection) throws
        -> Bool
    {
        guard skips.isEmpty else { return try recordedSkips(page: page, partition: partition, connection) != wantedSkips(skips) }
        // None wanted, as for most pages: any recorded is a change.
        var recorded = false
        try connection.forEachRow(skipsQuery, [.text(partition), .text(page)]) { _ in recorded = true }
        return recorded
    }

    private static func wantedSkips(_ skips: [PageSkip]) -> [String: PageSkip] {
        var wanted: [String: PageSkip] = [:]
        for skip in skips { wanted[skip.resourceURL] = skip }
        return wanted
    }

    private static func recordedSkips(page: String, partition: String, _ connection: Connection) throws
        -> [String: PageSkip]
    {
        var recorded: [String: PageSkip] = [:]
        try connection.forEachRow(skipsQuery, [.text(partition), .text(page)]) { row in
            let skip = PageSkip(resourceURL: row.text(0), kind: row.text(1), reason: row.text(2))
            recorded[skip.resourceURL] = skip
        }
        return recorded
    }

    /// Makes the recorded skips of `page` those of `skips` (the last of a resource named twice),
    /// writing only when they differ from what is recorded.
    private static func replaceSkips(
        _ skips: [PageSkip], page: String, partition: String, _ connection: Connection
    ) throws {
        let wanted = wantedSkips(skips)
        guard try recordedSkips(page: page, partition: partition, connection) != wanted else { return }
        try connection.run(
            "DELETE FROM page_skip WHERE partition = ? AND page_url = ?", [.text(partition), .text(page)])
        for skip in wanted.values {
            try connection.run(
                """
                INSERT INTO page_skip (partition, page_url, resource_url, kind, reason) VALUES (?, ?, ?, ?, ?)
                """,
                [.text(partition), .text(page), .text(skip.resourceURL), .text(skip.kind), .text(skip.reason)])
        }
    }
}
