import Foundation
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
    /// byte of them; partial entries go to ``mergeParts(of:existing:isNewer:from:at:report:_:)``.
    private static func merge(
        _ entry: CacheEntry, from source: CacheStore, at now: Date, report: inout MergeReport,
        _ connection: Connection
    ) throws {
        let existing = try readEntry(
            partition: entry.partition, method: entry.method, url: entry.url, varyKey: entry.varyKey,
            selection: CacheEntry.selection, condition: CacheEntry.byAnyIdentity, connection)
        let isNewer = existing.map { entry.responseTime > $0.responseTime } ?? true
        if entry.isPartial {
            try mergeParts(
                of: entry, existing: existing, isNewer: isNewer, from: source, at: now, report: &report, connection)
            return
        }
        let completesParts = existing.map { $0.isPartial && sameStrongTag($0.etag, entry.etag) } ?? false
        guard isNewer || completesParts else {
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

    /// Merges partial entry `entry` of `source` with its parts, by the store's rule for a part and the
    /// entry `existing` of its identity (``fit(ofPartOf:existing:)``): left out when `existing` holds
    /// the representation whole; its parts joined to those of the same representation, under the
    /// fields of the newer entry; replacing `existing` when `isNewer` (received later), else left out.
    /// Each part's body is copied if needed, and the part stored as the store stores one
    /// (``storePart(_:of:headers:completeHeaders:completeFields:at:_:)``), so that parts that come to
    /// hold every byte make a complete entry.
    private static func mergeParts(
        of entry: CacheEntry, existing: CacheEntry?, isNewer: Bool, from source: CacheStore, at now: Date,
        report: inout MergeReport, _ connection: Connection
    ) throws {
        guard let completeLength = entry.completeLength, let entryID = entry.id else { return }
        var parts = try source.parts(ofEntry: entryID)
        // An entry whose parts are gone (which verify reports) holds no byte to merge.
        guard !parts.isEmpty else { return }
        var fields = entry
        switch fit(ofPartOf: entry, existing: existing) {
        case .heldWhole:
            report.heldWhole += 1
            try keepPin(of: entry, on: existing, connection)
            return
        case .joins:
            guard let existing, !isNewer else { break }
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
        case .startsAnew:
            guard !isNewer else { break }
            report.olderEntries += 1
            try keepPin(of: entry, on: existing, connection)
            return
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
