import FoundationEssentials
import HTTPCore

extension CacheStore {
    /// Adds what `source` holds to this store, in one transaction: entries with their partitions and
    /// pins, their bodies (copied chunk by chunk unless a body with the same SHA-256 is stored
    /// already), partial entries with their parts (each part's body copied or shared in the same way,
    /// and stored as ``savePart(_:first:completeLength:completeHeaders:body:)`` stores one) and the
    /// pages' edges.
    ///
    /// For the same partition, method, URL and Vary key, the response received last wins (by
    /// ``CacheEntry/responseTime``; the entry already here wins a tie); a pin in either store is kept.
    /// Partial entries and complete ones of the same representation (the same strong `ETag`) follow
    /// the store's rule for parts instead (RFC 9111 §3.4): a complete entry is never replaced by a part
    /// of itself and replaces the parts of itself, and parts are combined, which may complete the entry.
    /// Edges are added to a page's, and an edge in both takes the source's kind and failure; so are
    /// the resources a page left out for the device it was preloaded for, except those that are among
    /// the page's edges (another store holds them). A page's digest (`page_basis`) is not copied: it
    /// covers the body ids of the store it was made in, so the next preload reads the page again.
    ///
    /// A merged entry keeps the time it was stored and its last access and hits in `source` (the
    /// later access and the hits of both when it replaces an entry here): a merge is not a use.
    ///
    /// The merge stops when the calling task is cancelled (checked between entries and between the
    /// chunks of a body), and nothing of `source` is merged then.
    ///
    /// - Returns: What was merged.
    /// - Throws: ``CacheStore/Error``; ``Error/Code/damagedBody`` when a body of `source` no longer
    ///   matches its checksums (nothing of `source` is merged then); `CancellationError` when the task
    ///   was cancelled.
    public func merge(from source: CacheStore) throws -> MergeReport {
        do {
            return try mergeTransaction(from: source)
        } catch let error as Error where error.cause is CancellationError {
            throw CancellationError()
        }
    }

    /// ``merge(from:)``'s transaction.
    private func mergeTransaction(from source: CacheStore) throws -> MergeReport {
        let now = configuration.clock()
        return try write("merge the store '\(source.path)'") { connection in
            var report = MergeReport(
                sourcePath: source.path, mergedEntries: 0, olderEntries: 0, heldWhole: 0, copiedBodies: 0,
                mergedEdges: 0)
            var lastID: Int64 = 0
            while true {
                let page = try source.entries(after: lastID, limit: 256)
                guard let last = page.last?.id else { break }
                lastID = last
                for entry in page {
                    try Task.checkCancellation()
                    try Self.merge(entry, from: source, at: now, report: &report, connection)
                }
            }
            for page in try source.pages() {
                try Task.checkCancellation()
                for edge in try source.edges(forPage: page.url, partition: page.partition) {
                    try connection.run(
                        """
                        INSERT INTO page_edge (partition, page_url, resource_url, kind, failure) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT (partition, page_url, resource_url) DO UPDATE SET kind = excluded.kind, \
                        failure = excluded.failure
                        """,
                        [
                            .text(page.partition), .text(page.url), .text(edge.resourceURL), .text(edge.kind),
                            .text(edge.failure),
                        ])
                    report.mergedEdges += 1
                }
                try Self.mergeSkips(of: page, from: source, connection)
            }
            return report
        }
    }

    /// Adds what `page` of `source` left out for its device to what the page here left out (the
    /// source's kind and reason for a resource in both), then drops what the page's edges hold now.
    private static func mergeSkips(of page: StoredPage, from source: CacheStore, _ connection: Connection) throws {
        for skip in try source.skipped(forPage: page.url, partition: page.partition) {
            try connection.run(
                """
                INSERT INTO page_skip (partition, page_url, resource_url, kind, reason) VALUES (?, ?, ?, ?, ?)
                ON CONFLICT (partition, page_url, resource_url) DO UPDATE SET kind = excluded.kind, \
                reason = excluded.reason
                """,
                [.text(page.partition), .text(page.url), .text(skip.resourceURL), .text(skip.kind), .text(skip.reason)])
        }
        try connection.run(
            """
            DELETE FROM page_skip WHERE partition = ?1 AND page_url = ?2 AND resource_url IN \
            (SELECT resource_url FROM page_edge WHERE partition = ?1 AND page_url = ?2)
            """,
            [.text(page.partition), .text(page.url)])
    }

    /// Merges one entry of `source`: replaces an older response, copies the body if needed. A complete
    /// response replaces the parts of its own representation whatever their age, as it holds every
    /// byte of them; partial entries go to ``mergeParts(of:existing:arrival:from:at:report:_:)``.
    private static func merge(
        _ entry: CacheEntry, from source: CacheStore, at now: Date, report: inout MergeReport,
        _ connection: Connection
    ) throws {
        let existing = try readEntry(
            partition: entry.partition, method: entry.method, url: entry.url, varyKey: entry.varyKey,
            selection: CacheEntry.selection, condition: CacheEntry.byAnyIdentity, connection)
        let arrival = arrival(of: entry, existing: existing)
        if entry.isPartial {
            try mergeParts(
                of: entry, existing: existing, arrival: arrival, from: source, at: now, report: &report, connection)
            return
        }
        guard arrival == .replaces else {
            report.olderEntries += 1
            try keepPin(of: entry, on: existing, connection)
            return
        }
        guard let sourceBodyID = entry.bodyID else { return }
        let check = try source.bodyCheck(bodyID: sourceBodyID)
        let bodyID = try copyBody(check, of: entry.url, from: source, at: now, report: &report, connection)
        guard case .success(let headers) = HeaderCoding.encode(entry.headers) else { return }
        let saved = try upsert(
            entry, headers: headers, bodyID: bodyID, bodyHash: check.hash, bodySize: entry.bodySize, at: now,
            pageEdges: nil, connection)
        try keepUse(of: entry, storedAt: entry.storedAt, existing: existing, on: saved.id, connection)
        report.mergedEntries += 1
    }

    /// Gives entry `id` here, just merged from `entry` of the source, the time it was `storedAt`, the
    /// later of the last accesses of `entry` and of `existing` (the entry it replaced or joined), and
    /// `entry`'s hits added to those it had: the merge itself is no use of it, for eviction or `inspect`.
    private static func keepUse(
        of entry: CacheEntry, storedAt: Date, existing: CacheEntry?, on id: Int64?, _ connection: Connection
    ) throws {
        guard let id else { return }
        let lastAccess = max(entry.lastAccess, existing?.lastAccess ?? entry.lastAccess)
        try connection.run(
            "UPDATE entry SET stored_at = ?, last_access = ?, hit_count = hit_count + ? WHERE id = ?",
            [.date(storedAt), .date(lastAccess), .integer(entry.hitCount), .integer(id)])
    }

    /// Merges partial entry `entry` of `source` with its parts, by what it does to the entry `existing`
    /// of its identity (`arrival`, ``arrival(of:existing:)``): left out when `existing` holds the
    /// representation whole; its parts joined to those of the same representation, under the fields
    /// of the newer entry; replacing `existing` when received later, else left out.
    /// Each part's body is copied if needed, and the part stored as the store stores one
    /// (``storePart(_:of:headers:completeHeaders:completeFields:at:_:)``), so that parts that come to
    /// hold every byte make a complete entry.
    private static func mergeParts(
        of entry: CacheEntry, existing: CacheEntry?, arrival: Arrival, from source: CacheStore, at now: Date,
        report: inout MergeReport, _ connection: Connection
    ) throws {
        guard let completeLength = entry.completeLength, let entryID = entry.id else { return }
        var parts = try source.parts(ofEntry: entryID)
        // An entry whose parts are gone (which verify reports) holds no byte to merge.
        guard !parts.isEmpty else { return }
        var fields = entry
        switch arrival {
        case .heldWhole:
            report.heldWhole += 1
            try keepPin(of: entry, on: existing, connection)
            return
        case .joinsNewer:
            guard let existing else { break }
            // Parts held already add nothing; the others join under the fields of the entry here.
            let held = try readParts(entryID: existing.id ?? 0, connection)
            parts.removeAll { part in held.contains { $0.holds(part) } }
            guard !parts.isEmpty else {
                report.olderEntries += 1
                try keepPin(of: entry, on: existing, connection)
                return
            }
            fields = existing
            fields.pinned = existing.pinned || entry.pinned
        case .older:
            report.olderEntries += 1
            try keepPin(of: entry, on: existing, connection)
            return
        case .replaces:
            break
        }
        let completeFields = PartialEntry.completeHeaders(fields.headers, completeLength: completeLength)
        guard case .success(let headers) = HeaderCoding.encode(fields.headers),
            case .success(let completeHeaders) = HeaderCoding.encode(completeFields)
        else { return }
        var stored: CacheEntry?
        for part in parts {
            try Task.checkCancellation()
            let check = try source.bodyCheck(bodyID: part.bodyID)
            let bodyID = try copyBody(check, of: entry.url, from: source, at: now, report: &report, connection)
            stored = try storePart(
                EntryPart(first: part.first, length: part.length, bodyID: bodyID), of: fields, headers: headers,
                completeHeaders: completeHeaders, completeFields: completeFields, at: now, connection)
            guard stored?.isPartial == true else { break }
        }
        try keepUse(of: entry, storedAt: fields.storedAt, existing: existing, on: stored?.id, connection)
        report.mergedEntries += 1
    }

    // MARK: - Responses from elsewhere

    /// What a response that comes from elsewhere (a store merged, an archive imported) does to
    /// `existing`, the entry of its identity here: the response received last wins.
    enum Arrival: Equatable {
        /// It is stored in place of `existing`: none is here, it was received later, or it is a
        /// complete response of the representation whose parts are here.
        case replaces
        /// Left out: `existing` was received at the same time or later.
        case older
        /// A part of the representation `existing` holds whole: it adds nothing.
        case heldWhole
        /// A part of the representation whose parts `existing` holds, received at the same time or
        /// later: it joins them, under the fields of `existing`.
        case joinsNewer
    }

    /// What `entry` (partial when it has a ``CacheEntry/completeLength``) does to `existing`, the
    /// entry of its identity here: the response received last wins (by ``CacheEntry/responseTime``;
    /// `existing` wins a tie). Partial and complete entries of the same representation (the same
    /// strong `ETag`) follow the store's rule for parts instead (RFC 9111 §3.4,
    /// ``fit(ofPartOf:existing:)``): a complete entry replaces the parts of itself, a part of a
    /// complete entry adds nothing, and parts are combined under the fields of the newer entry.
    ///
    /// - Parameter sameWithin: How much later `entry` may have been received and still count as
    ///   received at the same time (``archivedTimePrecision`` for a response read from an archive).
    static func arrival(of entry: CacheEntry, existing: CacheEntry?, sameWithin: TimeInterval = 0) -> Arrival {
        let isNewer = existing.map { entry.responseTime > $0.responseTime + sameWithin } ?? true
        guard entry.isPartial else {
            let completesParts = existing.map { $0.isPartial && sameStrongTag($0.etag, entry.etag) } ?? false
            return isNewer || completesParts ? .replaces : .older
        }
        switch fit(ofPartOf: entry, existing: existing) {
        case .heldWhole: return .heldWhole
        case .joins: return isNewer ? .replaces : .joinsNewer
        case .startsAnew: return isNewer ? .replaces : .older
        }
    }

    /// How much later a response that comes from elsewhere may have been received than the stored
    /// one of its identity and still count as the same response: archives give times to the second
    /// (WARC 1.0), the millisecond (HAR) or the microsecond (WARC 1.1, as `export` writes them), so a
    /// store's own export imported again would otherwise replace about half its entries with copies.
    static let archivedTimePrecision: TimeInterval = 1

    /// Saves `entry` with the body streamed through `body` as ``save(_:body:pageEdges:onlyIf:)``
    /// does, unless ``merge(from:)``'s rule leaves it out: when the store holds a response of its
    /// identity received at the same time or later (a complete response replaces the parts of its own
    /// representation whatever their times). For responses that come from elsewhere, such as an
    /// archive: they never take the store back in time. A response left out keeps nothing of its body;
    /// its pin is kept on the entry here.
    ///
    /// - Returns: The entry as stored, or `nil` when it was left out.
    /// - Throws: ``CacheStore/Error``; ``Error/Code/bodyMissing`` when the staged chunks were collected.
    public nonisolated func saveUnlessOlder(_ entry: CacheEntry, body: BodyWriter) async throws -> CacheEntry? {
        precondition(body.store === self, "A BodyWriter must be saved by the store that made it.")
        let headers = try encodedHeaders(of: entry)
        let hash = body.hasher.finalize()
        let now = configuration.clock()
        let lastChecksum = ChunkChecksum(of: body.pending)
        return try await queuedWrite("save the entry for \(entry.url)", evicts: true, touching: .url(entry.url)) {
            connection in
            let existing = try Self.readEntry(
                partition: entry.partition, method: entry.method, url: entry.url, varyKey: entry.varyKey,
                selection: CacheEntry.selection, condition: CacheEntry.byAnyIdentity, connection)
            let arrival = Self.arrival(of: entry, existing: existing, sameWithin: Self.archivedTimePrecision)
            guard arrival == .replaces else {
                try Self.dropStaged(body, connection)
                try Self.keepPin(of: entry, on: existing, connection)
                return nil
            }
            let bodyID = try Self.resolveBody(
                of: body, hash: hash, lastChecksum: lastChecksum, at: now, url: entry.url, connection)
            return try Self.upsert(
                entry, headers: headers, bodyID: bodyID, bodyHash: hash, bodySize: body.size, at: now,
                pageEdges: nil, connection)
        }
    }

    /// Saves the bytes streamed through `body` as the part at `first` of `entry`'s representation of
    /// `completeLength` bytes, as ``savePart(_:first:completeLength:completeHeaders:body:onlyIf:)``
    /// does, unless ``merge(from:)``'s rule leaves it out: a part of another representation than that
    /// of the entry here (complete or partial) received at the same time or later is left out, and so
    /// is a part the parts here hold already; a part of their representation that they lack joins
    /// them under the fields of the newer entry (of the part, as ``savePart(_:first:completeLength:
    /// completeHeaders:body:onlyIf:)`` has it, when both were received at the same time). A part left
    /// out keeps nothing of its body; its pin is kept on the entry here.
    ///
    /// - Returns: The entry as stored (partial, or complete once every byte is there), or `nil` when
    ///   the part was left out.
    /// - Throws: ``CacheStore/Error``; ``Error/Code/damagedBody`` when a part read to assemble the
    ///   body is damaged (nothing is then changed).
    public nonisolated func savePartUnlessOlder(
        _ entry: CacheEntry, first: Int64, completeLength: Int64, completeHeaders: HTTPHeaders, body: BodyWriter
    ) async throws -> CacheEntry? {
        let (partial, headers, finalHeaders) = try partFields(
            of: entry, first: first, completeLength: completeLength, completeHeaders: completeHeaders, body: body)
        let hash = body.hasher.finalize()
        let now = configuration.clock()
        return try await queuedWrite("save a part of \(entry.url)", evicts: true, touching: .url(entry.url)) {
            [partial] connection in
            let existing = try Self.readEntry(
                partition: partial.partition, method: partial.method, url: partial.url, varyKey: partial.varyKey,
                selection: CacheEntry.selection, condition: CacheEntry.byAnyIdentity, connection)
            var fields = (entry: partial, headers: headers, complete: finalHeaders, completeFields: completeHeaders)
            switch Self.arrival(of: partial, existing: existing, sameWithin: Self.archivedTimePrecision) {
            case .older:
                try Self.dropStaged(body, connection)
                try Self.keepPin(of: partial, on: existing, connection)
                return nil
            case .joinsNewer:
                guard let existing, let id = existing.id else { break }
                let part = EntryPart(first: first, length: body.size, bodyID: 0)
                if try Self.readParts(entryID: id, connection).contains(where: { $0.holds(part) }) {
                    try Self.dropStaged(body, connection)
                    try Self.keepPin(of: partial, on: existing, connection)
                    return nil
                }
                // Parts of one time (those of one entry, as an archive gives them) join as the store's
                // rule for parts has it: the entry takes the fields of the part saved last.
                guard existing.responseTime > partial.responseTime else { break }
                let completeFields = PartialEntry.completeHeaders(existing.headers, completeLength: completeLength)
                guard case .success(let existingHeaders) = HeaderCoding.encode(existing.headers),
                    case .success(let existingComplete) = HeaderCoding.encode(completeFields)
                else { break }
                var kept = existing
                kept.pinned = existing.pinned || partial.pinned
                fields = (kept, existingHeaders, existingComplete, completeFields)
            case .replaces, .heldWhole:
                break
            }
            let bodyID = try Self.resolveBody(of: body, hash: hash, at: now, url: entry.url, connection)
            return try Self.storePart(
                EntryPart(first: first, length: body.size, bodyID: bodyID), of: fields.entry, headers: fields.headers,
                completeHeaders: fields.complete, completeFields: fields.completeFields, at: now, connection)
        }
    }

    /// Deletes the chunks `body` staged, for a response left out.
    private static func dropStaged(_ body: BodyWriter, _ connection: Connection) throws {
        guard body.stagedChunks > 0 else { return }
        try connection.run("DELETE FROM staging WHERE token = ?", [.text(body.token)])
    }

    /// Pins `existing`, the entry here that `entry` of the source was left out for, when `entry` is pinned.
    private static func keepPin(of entry: CacheEntry, on existing: CacheEntry?, _ connection: Connection) throws {
        guard entry.pinned, let id = existing?.id else { return }
        try connection.run("UPDATE entry SET pinned = 1 WHERE id = ?", [.integer(id)])
    }

    /// The id here of the body of `source` that `check` was made for (a body of `url`): the stored
    /// body with the same SHA-256, or a copy made chunk by chunk, each chunk checked as it is read.
    ///
    /// - Throws: ``Error/Code/damagedBody``, naming `url`, when the body no longer matches its checksums.
    private static func copyBody(
        _ check: BodyCheck, of url: String, from source: CacheStore, at now: Date, report: inout MergeReport,
        _ connection: Connection
    ) throws -> Int64 {
        if let existing = try Self.bodyID(withHash: check.hash, connection) { return existing }
        let bodyID = try insertBody(
            connection, hash: check.hash, size: check.size, chunkCount: check.chunkCount, at: now)
        var reader = source.bodyChunks(bodyID: check.bodyID)
        var seq: Int64 = 0
        do {
            while let chunk = try reader.next() {
                try Task.checkCancellation()
                try insertChunk(connection, bodyID: bodyID, seq: seq, data: chunk)
                seq += 1
            }
        } catch let error as Error where error.code == .damagedBody {
            throw source.damagedBodyError(bodyID: check.bodyID, url: url)
        }
        report.copiedBodies += 1
        return bodyID
    }
}
