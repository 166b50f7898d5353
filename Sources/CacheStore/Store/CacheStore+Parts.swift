import FoundationEssentials
import HTTPCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension CacheStore {
    // MARK: - Reading partial entries

    /// Every partial variant of (`partition`, `method`, `url`) with its parts (RFC 9111 §3.3), for
    /// the caller to match its Vary key. Partial entries are never among ``variants(partition:method:url:)``.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func partialVariants(
        partition: String = "guest", method: HTTPMethod = .get, url: String
    ) throws -> [PartialEntry] {
        let selection = columns.entrySelection
        guard columns.hasParts else { return [] }
        return try read("look up the parts of \(url)") { connection in
            try connection.readTransaction {
                var entries: [CacheEntry] = []
                try connection.forEachRow(
                    selection + CacheEntry.ofPartialVariants, [.text(partition), .text(method.rawValue), .text(url)]
                ) { row in
                    entries.append(CacheEntry(row: row))
                }
                return try entries.map { entry in
                    PartialEntry(entry: entry, parts: try Self.readParts(entryID: entry.id ?? 0, connection))
                }
            }
        }
    }

    /// The parts of partial entry `entryID`, ordered by position; none for a complete entry.
    ///
    /// - Throws: ``CacheStore/Error``.
    nonisolated func parts(ofEntry entryID: Int64) throws -> [EntryPart] {
        guard columns.hasParts else { return [] }
        return try read("read the parts of entry \(entryID)") { connection in
            try Self.readParts(entryID: entryID, connection)
        }
    }

    static func readParts(entryID: Int64, _ connection: Connection) throws -> [EntryPart] {
        var parts: [EntryPart] = []
        try connection.forEachRow(
            """
            SELECT p.first, b.size, p.body_id FROM entry_part p JOIN body b ON b.id = p.body_id \
            WHERE p.entry_id = ? ORDER BY p.first
            """,
            [.integer(entryID)]
        ) { row in
            parts.append(EntryPart(first: row.int64(0), length: row.int64(1), bodyID: row.int64(2)))
        }
        return parts
    }

    // MARK: - Saving parts

    /// `entry` as the partial entry a part of `body` at `first` makes (status 206, `completeLength`),
    /// its header text, and the header text of the complete response (`completeHeaders`, status 200).
    nonisolated func partFields(
        of entry: CacheEntry, first: Int64, completeLength: Int64, completeHeaders: HTTPHeaders, body: BodyWriter
    ) throws -> (partial: CacheEntry, headers: String, completeHeaders: String) {
        precondition(body.store === self, "A BodyWriter must be saved by the store that made it.")
        precondition(first >= 0 && body.size > 0 && first + body.size <= completeLength,
                     "A part must hold at least one byte of the representation.")
        var partial = entry
        partial.completeLength = completeLength
        partial.status = 206
        var complete = entry
        complete.headers = completeHeaders
        complete.status = 200
        return (partial, try encodedHeaders(of: partial), try encodedHeaders(of: complete))
    }

    /// Saves the bytes streamed through `body` as the part at `first` of `entry`'s response, whose
    /// complete representation is `completeLength` bytes (RFC 9111 §3.3), in one transaction.
    ///
    /// Parts are combined (§3.4) when the stored partial entry with the same identity has the same
    /// strong `ETag` as `entry` and the same complete length: the new part joins them, and the
    /// entry takes `entry`'s header fields and freshness, the newer ones. Otherwise (no tag, a weak
    /// one, another one, another length) the stored parts are discarded and this part starts anew.
    /// A complete entry with the same strong tag is kept as it is (it holds every byte already);
    /// one with another validator is replaced. A part inside another is dropped; parts inside the
    /// new one go. Once the parts hold every byte, the entry becomes complete in the same
    /// transaction: its body is assembled from the parts (each chunk checked as it is read), its
    /// status becomes 200 and its header fields `completeHeaders`, and the parts go.
    ///
    /// `condition` is asked as ``save(_:body:pageEdges:onlyIf:)`` asks it.
    ///
    /// - Returns: The entry as stored: partial, or complete once every byte is there.
    /// - Throws: ``CacheStore/Error``; ``Error/Code/damagedBody`` when a part read to assemble the
    ///   body is damaged (nothing is then changed); ``Error/Code/withdrawn`` when `condition` no longer held.
    @discardableResult
    public nonisolated func savePart(
        _ entry: CacheEntry, first: Int64, completeLength: Int64, completeHeaders: HTTPHeaders, body: BodyWriter,
        onlyIf condition: SaveCondition? = nil
    ) async throws -> CacheEntry {
        let (partial, headers, finalHeaders) = try partFields(
            of: entry, first: first, completeLength: completeLength, completeHeaders: completeHeaders, body: body)
        let hash = body.hasher.finalize()
        let now = configuration.clock()
        return try await queuedWrite("save a part of \(entry.url)", evicts: true, touching: .url(entry.url)) {
            [partial] connection in
            try Self.requireCondition(condition, refusing: "The entry for \(entry.url)", connection)
            let bodyID = try Self.resolveBody(of: body, hash: hash, at: now, url: entry.url, connection)
            return try Self.storePart(
                EntryPart(first: first, length: body.size, bodyID: bodyID), of: partial, headers: headers,
                completeHeaders: finalHeaders, completeFields: completeHeaders, at: now, connection)
        }
    }

    /// What a part of a representation does to the stored entry of the same identity (RFC 9111 §3.4).
    enum PartFit {
        /// The stored entry is complete with the same strong `ETag`: it holds every byte already, and is kept.
        case heldWhole
        /// The stored entry is partial with the same strong `ETag` and complete length: the part joins its parts.
        case joins
        /// No entry is stored, or one of another validator or length: the part replaces it and starts anew.
        case startsAnew
    }

    /// What a part of `partial`'s representation (its ``CacheEntry/completeLength`` set) does to
    /// `existing`, the stored entry of the same identity.
    static func fit(ofPartOf partial: CacheEntry, existing: CacheEntry?) -> PartFit {
        guard let existing, sameStrongTag(existing.etag, partial.etag) else { return .startsAnew }
        if !existing.isPartial { return .heldWhole }
        return existing.completeLength == partial.completeLength ? .joins : .startsAnew
    }

    /// Stores `part`, whose body is stored already, as a part of `partial`'s representation, in the
    /// transaction of `connection`, as ``savePart(_:first:completeLength:completeHeaders:body:)`` says:
    /// `partial` (status 206, ``CacheEntry/completeLength`` set, its header fields encoded in
    /// `headers`) gives the entry's fields, and `completeHeaders` (encoded) / `completeFields` those of
    /// the complete entry the parts may make. A part body that ends up unused goes.
    ///
    /// - Returns: The entry as stored: partial, or complete once every byte is there.
    static func storePart(
        _ part: EntryPart, of partial: CacheEntry, headers: String, completeHeaders: String,
        completeFields: HTTPHeaders, at now: Date, _ connection: Connection
    ) throws -> CacheEntry {
        let completeLength = partial.completeLength ?? 0
        let existing = try Self.readEntry(
            partition: partial.partition, method: partial.method, url: partial.url, varyKey: partial.varyKey,
            selection: CacheEntry.selection, condition: CacheEntry.byAnyIdentity, connection)
        let fit = Self.fit(ofPartOf: partial, existing: existing)
        if fit == .heldWhole, let existing {
            try connection.run("DELETE FROM body WHERE id = ? AND ref_count = 0", [.integer(part.bodyID)])
            return existing
        }
        let saved = try Self.upsert(
            partial, headers: headers, bodyID: try Self.emptyBodyID(connection, at: now), bodySize: 0, at: now,
            pageEdges: nil, keepingParts: fit == .joins, connection)
        let entryID = saved.id ?? 0
        let parts = try Self.addPart(part, entryID: entryID, connection)
        let cover = EntryPart.cover(0...(completeLength - 1), with: parts)
        if cover.missing.isEmpty {
            try Self.assemble(
                entryID: entryID, length: completeLength, pieces: cover.pieces, headers: completeHeaders,
                fields: completeFields, at: now, connection)
        } else {
            try connection.run(
                "UPDATE entry SET body_size = (SELECT coalesce(sum(b.size), 0) FROM entry_part p "
                    + "JOIN body b ON b.id = p.body_id WHERE p.entry_id = ?1) WHERE id = ?1",
                [.integer(entryID)])
        }
        guard let stored = try Self.readEntry(id: entryID, selection: CacheEntry.selection, connection) else {
            throw Error(code: .database, message: "The entry for \(partial.url) vanished while a part was saved.")
        }
        return stored
    }

    /// Whether both tags are present, strong, and the same (RFC 9110 §8.8.3.2).
    static func sameStrongTag(_ lhs: String?, _ rhs: String?) -> Bool {
        guard let lhs = lhs?.trimmingHTTPWhitespace(), let rhs = rhs?.trimmingHTTPWhitespace() else { return false }
        return lhs.hasPrefix("\"") && lhs == rhs
    }

    /// The id of the empty body, which partial entries point at; created when the store has none.
    private static func emptyBodyID(_ connection: Connection, at now: Date) throws -> Int64 {
        let hash = SHA256.hash(Data())
        if let id = try Self.bodyID(withHash: hash, connection) { return id }
        return try insertBody(connection, hash: hash, size: 0, chunkCount: 0, at: now)
    }

    /// Adds `part` to the parts of entry `entryID` unless one of them holds it already, and drops
    /// those it holds; returns the parts after.
    private static func addPart(_ part: EntryPart, entryID: Int64, _ connection: Connection) throws -> [EntryPart] {
        let parts = try readParts(entryID: entryID, connection)
        if parts.contains(where: { $0.holds(part) }) {
            try connection.run("DELETE FROM body WHERE id = ? AND ref_count = 0", [.integer(part.bodyID)])
            return parts
        }
        for held in parts where part.holds(held) {
            try connection.run(
                "DELETE FROM entry_part WHERE entry_id = ? AND first = ?", [.integer(entryID), .integer(held.first)])
        }
        try connection.run(
            "INSERT INTO entry_part (entry_id, first, body_id) VALUES (?, ?, ?)",
            [.integer(entryID), .integer(part.first), .integer(part.bodyID)])
        return try readParts(entryID: entryID, connection)
    }

    /// Makes partial entry `entryID` complete: writes the bytes of `pieces` (which cover the whole
    /// representation) into a body chunk by chunk, hashing them as they go, shares an identical
    /// stored body instead when there is one, and points the entry at it with status 200 and the
    /// header fields `headers` (encoded) / `fields`; the parts go.
    private static func assemble(
        entryID: Int64, length: Int64, pieces: [(part: EntryPart, range: ClosedRange<Int64>)], headers: String,
        fields: HTTPHeaders, at now: Date, _ connection: Connection
    ) throws {
        let token = "assemble-\(getpid())-\(entryID)-\(UUID().uuidString)"
        try connection.run(
            "INSERT INTO staging (token, pid, started_at) VALUES (?, ?, ?)",
            [.text(token), .integer(StagingOwner.current), .date(now)])
        try connection.run(
            "INSERT INTO body (size, chunk_count, created_at, staging_token) VALUES (0, 0, ?, ?)",
            [.date(now), .text(token)])
        let provisional = connection.lastInsertedRowID
        var hasher = SHA256()
        var cutter = ChunkCutter()
        var seq: Int64 = 0
        for piece in pieces {
            try forEachChunk(of: piece.part.bodyID, within: piece.range, connection) { bytes in
                hasher.update(bytes)
                for chunk in cutter.cut(bytes) {
                    try insertChunk(connection, bodyID: provisional, seq: seq, data: chunk)
                    seq += 1
                }
            }
        }
        if !cutter.pending.isEmpty {
            try insertChunk(connection, bodyID: provisional, seq: seq, data: cutter.pending)
            seq += 1
        }
        let hash = hasher.finalize()
        let bodyID: Int64
        if let existing = try Self.bodyID(withHash: hash, connection) {
            bodyID = existing
        } else {
            try connection.run(
                "UPDATE body SET hash = ?, size = ?, chunk_count = ?, staging_token = NULL WHERE id = ?",
                [.blob(hash), .integer(length), .integer(seq), .integer(provisional)])
            bodyID = provisional
        }
        // The provisional body goes with its staging row when an identical body was shared instead.
        try connection.run("DELETE FROM staging WHERE token = ?", [.text(token)])
        try connection.run(
            """
            UPDATE entry SET status = 200, headers = ?, etag = ?, last_modified = ?, content_type = ?, \
            complete_length = NULL, body_id = ?, body_size = ? WHERE id = ?
            """,
            [
                .text(headers), .text(fields["ETag"]), .text(fields["Last-Modified"]), .text(fields["Content-Type"]),
                .integer(bodyID), .integer(length), .integer(entryID),
            ])
        try connection.run("DELETE FROM entry_part WHERE entry_id = ?", [.integer(entryID)])
    }

    /// Calls `body` with the bytes `range` of stored body `bodyID`, chunk by chunk, each chunk
    /// checked against its CRC-32 (when it has one) before its bytes are used. Each chunk is read by
    /// a statement of its own, finished before `body` runs, as `body` writes through the same connection.
    private static func forEachChunk(
        of bodyID: Int64, within range: ClosedRange<Int64>, _ connection: Connection, _ body: (Data) throws -> Void
    ) throws {
        var layout: [(seq: Int64, start: Int64, length: Int64)] = []
        var offset: Int64 = 0
        try connection.forEachRow(
            "SELECT seq, length(data) FROM body_chunk WHERE body_id = ? ORDER BY seq", [.integer(bodyID)]
        ) { row in
            layout.append((row.int64(0), offset, row.int64(1)))
            offset += row.int64(1)
        }
        var delivered: Int64 = 0
        for chunk in layout where chunk.start + chunk.length > range.lowerBound && chunk.start <= range.upperBound {
            var read: (data: Data, checksum: Int64?)?
            try connection.forEachRow(
                "SELECT data, checksum FROM body_chunk WHERE body_id = ? AND seq = ?",
                [.integer(bodyID), .integer(chunk.seq)]
            ) { row in
                read = (row.blob(0), row.isNull(1) ? nil : row.int64(1))
            }
            guard let read, Int64(read.data.count) == chunk.length,
                read.checksum.map({ ChunkChecksum(of: read.data).value(bodyID: bodyID, seq: chunk.seq) == $0 }) ?? true
            else { break }
            let from = Int(max(chunk.start, range.lowerBound) - chunk.start)
            let to = Int(min(chunk.start + chunk.length, range.upperBound + 1) - chunk.start)
            try body(read.data[(read.data.startIndex + from)..<(read.data.startIndex + to)])
            delivered += Int64(to - from)
        }
        guard delivered == range.upperBound - range.lowerBound + 1 else {
            throw Error(
                code: .damagedBody,
                message: "A part (body \(bodyID)) of a partial entry is damaged: its bytes no longer match their "
                    + "checksums, so the entry cannot be completed.")
        }
    }
}
