import Foundation
import HTTPCore

/// A page's record as a preload may trust it (`page_basis`, schema version 9).
///
/// When a preload writes a page's edges it also writes a digest of how it looked for them (its
/// `discovery` text: device, options, the build's discovery revision) and of the record as the store
/// then holds it: each edge's resource URL and kind, and the body and content type of the entry that
/// answers it. A later preload that looks for them the same way computes the digest again from the
/// store as it is; if it is the same, every entry the edges name holds the bytes the edges were found
/// in, so reading the page and its stylesheets again would find the same edges. Any change to an
/// edge, to the entry an edge names or to the discovery text changes the digest, so a digest that no
/// longer describes its record (edges merged or pruned since, a body stored again) is never trusted;
/// nothing else has to keep the table in step.
extension CacheStore {
    /// For each of `urls` (pages in `partition`), its ``RecordedPage`` when the record stands for a
    /// preload whose discovery text is `discovery` at `date`, or `nil` when it does not: no digest
    /// recorded, a digest that differs (something changed since, or the preload looks for requisites
    /// in another way), an edge that failed, an edge without a fresh entry that answers a plain `GET`
    /// alone (the rules of ``freshEntries(partition:urls:at:asPages:)``). One read transaction.
    ///
    /// A store of a version before 9 has no digests, and answers `nil` for every page.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func recordedPages(
        partition: String = "guest", urls: [String], discovery: String, at date: Date = Date()
    ) throws -> [RecordedPage?] {
        guard !urls.isEmpty, columns.hasPageBasis else { return Array(repeating: nil, count: urls.count) }
        let now = date.timeIntervalSince1970
        return try read("look up the records of \(urls.count) pages") { connection in
            try connection.readTransaction {
                try urls.map { url in
                    try Self.recordedPage(url, partition: partition, discovery: discovery, now: now, connection)
                }
            }
        }
    }

    private static func recordedPage(
        _ page: String, partition: String, discovery: String, now: Double, _ connection: Connection
    ) throws -> RecordedPage? {
        guard let recorded = try recordedDigest(page: page, partition: partition, connection) else { return nil }
        var edges: [RecordedPage.Edge] = []
        var stands = true
        let digest = try recordDigest(page: page, partition: partition, discovery: discovery, connection) { row in
            guard stands else { return }
            let url = row.text(0)
            // A failed edge is fetched again; a URL with two variants answers no plain GET alone.
            guard row.isNull(2), !row.isNull(3), edges.last?.resourceURL != url,
                row.int64(9) != 0, row.double(7) > now, now >= row.double(8),
                !row.withTextBytes(10, Self.hasVaryLine)
            else {
                stands = false
                return
            }
            let status = Int(row.int64(4))
            guard (200...299).contains(status), status != 206 else {
                stands = false
                return
            }
            edges.append(RecordedPage.Edge(
                resourceURL: url, kind: row.text(1), entryID: row.int64(3), status: status, contentType: row.optionalText(5),
                bodySize: row.int64(6)))
        }
        guard stands, !edges.isEmpty, digest == recorded else { return nil }
        return RecordedPage(edges: edges)
    }

    /// The digest recorded for `page`, if any.
    private static func recordedDigest(page: String, partition: String, _ connection: Connection) throws -> Data? {
        var digest: Data?
        try connection.forEachRow(basisQuery, [.text(partition), .text(page)]) { digest = $0.blob(0) }
        return digest
    }

    /// The digest of `page`'s record as the store holds it now, for `discovery`; `visit` sees each
    /// row of ``edgesWithEntriesQuery`` as it is hashed.
    private static func recordDigest(
        page: String, partition: String, discovery: String, _ connection: Connection,
        visit: (Statement) -> Void = { _ in }
    ) throws -> Data {
        var hasher = SHA256()
        // Each text is ended by a zero byte, which no URL, kind or field value holds.
        let end = Data([0])
        func add(_ text: String) {
            var text = text
            text.withUTF8 { hasher.update(bytes: UnsafeRawBufferPointer($0)) }
            hasher.update(end)
        }
        func add(column: Int32, of row: Statement) {
            row.withTextBytes(column) { hasher.update(bytes: UnsafeRawBufferPointer($0)) }
            hasher.update(end)
        }
        add(Self.recordDigestVersion)
        add(discovery)
        try connection.forEachRow(edgesWithEntriesQuery, [.text(partition), .text(page)]) { row in
            add(column: 0, of: row)
            add(column: 1, of: row)
            // The body and content type the entry has now: what reading it again would read.
            add(row.isNull(11) ? "-" : String(row.int64(11)))
            add(row.isNull(5) ? "-" : "=" + row.text(5))
            visit(row)
        }
        return hasher.finalize()
    }

    /// Writes the digest of `page`'s record as the store now holds it, for `discovery`, unless it is
    /// already the one recorded; returns whether it wrote.
    @discardableResult
    static func recordBasis(
        page: String, partition: String, discovery: String, _ connection: Connection
    ) throws -> Bool {
        let digest = try recordDigest(page: page, partition: partition, discovery: discovery, connection)
        guard try recordedDigest(page: page, partition: partition, connection) != digest else { return false }
        try connection.run(basisUpsertQuery, [.text(partition), .text(page), .blob(digest)])
        return true
    }

    /// Whether `page`'s recorded digest is not the one its record has now for `discovery`.
    static func basisDiffers(
        page: String, partition: String, discovery: String, _ connection: Connection
    ) throws -> Bool {
        try recordedDigest(page: page, partition: partition, connection)
            != recordDigest(page: page, partition: partition, discovery: discovery, connection)
    }

    /// Names what the digest covers and how; a new one makes every recorded digest differ.
    private static let recordDigestVersion = "webcache page record 1"

    private static let basisQuery = SQLQuery("SELECT digest FROM page_basis WHERE partition = ?1 AND page_url = ?2")

    private static let basisUpsertQuery = SQLQuery("""
        INSERT INTO page_basis (partition, page_url, digest) VALUES (?, ?, ?)
        ON CONFLICT (partition, page_url) DO UPDATE SET digest = excluded.digest
        """)

    /// A page's edges in the order of their resource URLs' bytes, each with the complete `GET`
    /// entries of its URL (none, or several variants): URL, kind, failure, entry id, status, content
    /// type, body size, `fresh_until`, `response_time`, 1 when it has no Vary key, no decoded content
    /// and a complete body record, the stored header text, body id.
    private static let edgesWithEntriesQuery = SQLQuery("""
        SELECT p.resource_url, p.kind, p.failure, e.id, e.status, e.content_type, e.body_size, e.fresh_until, \
        e.response_time, e.vary_key = '' AND e.decoded_from IS NULL AND b.hash IS NOT NULL, e.headers, e.body_id \
        FROM page_edge p LEFT JOIN entry e ON e.partition = p.partition AND e.method = 'GET' \
        AND e.url = p.resource_url AND e.complete_length IS NULL LEFT JOIN body b ON b.id = e.body_id \
        WHERE p.partition = ?1 AND p.page_url = ?2 ORDER BY p.resource_url
        """)
}
