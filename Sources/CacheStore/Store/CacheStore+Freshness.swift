import Foundation
import HTTPCore

extension CacheStore {
    /// A stored response that answers a plain `GET` of its URL without contacting the origin: the
    /// only complete variant of the URL, fresh, selected by no request field (no `Vary`), stored as
    /// the origin coded it, with a success status, and a body of at most one chunk found intact.
    public struct FreshEntry: Sendable, Hashable {
        /// The entry's row id (for ``recordHit(entryID:at:)``).
        public var id: Int64
        /// The stored status, from 200 to 299.
        public var status: Int
        /// The stored `Content-Type`, if any.
        public var contentType: String?
        /// The body's size in bytes.
        public var bodySize: Int64
    }

    /// For each of `urls`, the ``FreshEntry`` that answers a `GET` of it in `partition` at `date`
    /// without a request, or `nil` when none does (nothing stored, stale, several variants, a `Vary`
    /// field, a decoded copy, a partial or an error or redirect response, a body larger than one
    /// chunk or damaged: the caller then loads the URL the full way, which decides those cases by
    /// every rule of RFC 9111, and reads and checks a larger body as it always does).
    ///
    /// One reader, and per URL one prepared statement over the identity index and one over the
    /// body's chunk; the freshness comes from the `fresh_until` column (RFC 9111 §4.2:
    /// `response_time` plus the freshness lifetime minus the corrected initial age; 0 lifetime for
    /// `no-cache`), so no entry is decoded. The chunk is checked as every read checks it
    /// (``BodyCheck``), so that a damaged copy is not answered but fetched again. It records no hit:
    /// see ``recordHit(entryID:at:)``.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func freshEntries(
        partition: String = "guest", urls: [String], at date: Date = Date()
    ) throws -> [FreshEntry?] {
        guard !urls.isEmpty else { return [] }
        let query = columns.wholeBodyQuery
        return try read("look up the freshness of \(urls.count) URLs") { connection in
            try urls.map { url in
                guard let found = try Self.freshEntry(partition: partition, url: url, at: date, connection),
                    try Self.isIntactSingleChunk(found.bodyID, query: query, connection)
                else { return nil }
                return found.entry
            }
        }
    }

    // A header line starts the text or follows a line feed; `Vary` in any case (LIKE ignores ASCII case).
    private static let freshEntrySQL = """
        SELECT e.id, e.status, e.content_type, e.body_size, e.body_id, \
        e.fresh_until > ? AND e.vary_key = '' AND e.decoded_from IS NULL \
        AND (char(10) || e.headers) NOT LIKE '%' || char(10) || 'vary:%' \
        FROM entry e WHERE e.partition = ? AND e.method = 'GET' AND e.url = ? AND e.complete_length IS NULL LIMIT 2
        """

    private static func freshEntry(partition: String, url: String, at date: Date, _ connection: Connection) throws
        -> (entry: FreshEntry, bodyID: Int64)?
    {
        var found: (FreshEntry, Int64)?
        var rows = 0
        try connection.forEachRow(freshEntrySQL, [.date(date), .text(partition), .text(url)]) { row in
            rows += 1
            let status = Int(row.int64(1))
            guard row.int64(5) == 1, (200...299).contains(status), status != 206,
                row.int64(3) <= Int64(chunkSize)
            else { return }
            found = (FreshEntry(id: row.int64(0), status: status, contentType: row.optionalText(2),
                                bodySize: row.int64(3)), row.int64(4))
        }
        return rows == 1 ? found : nil
    }

    /// Whether body `bodyID`, of at most one chunk, reads back as it was stored; `query` is
    /// ``ReadableColumns/wholeBodyQuery``.
    private static func isIntactSingleChunk(_ bodyID: Int64, query: String, _ connection: Connection) throws -> Bool {
        var sound = true
        let check = try forEachChunk(ofBody: bodyID, query: query, connection) { check, row in
            let checksum = row.isNull(5) ? nil : row.int64(5)
            if !check.add(row.blob(4), seq: row.int64(3), checksum: checksum) { sound = false }
        }
        return sound && check?.isSound == true
    }
}
