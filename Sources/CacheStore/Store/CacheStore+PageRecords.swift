import FoundationEssentials
import HTTPCore

/// A page's record as a preload may trust it (`page_basis`, schema version 9).
///
/// When a preload writes a page's edges it also writes a digest of how it looked for them (its
/// `discovery` text: device, options, the build's discovery revision) and of the record as the store
/// then holds it: each edge's resource URL and kind, and the body, content type and number of
/// variants of the entry that answers it. A later preload that looks for them the same way computes
/// the digest again from the store as it is; if it is the same, every entry the edges name holds the
/// bytes the edges were found in, so reading the page and its stylesheets again would find the same
/// edges. Any change to an edge, to the entry an edge names or to the discovery text changes the
/// digest, so a digest that no longer describes its record (edges merged or pruned since, a body
/// stored again) is never trusted; nothing else has to keep the table in step.
extension CacheStore {
    /// For each of `urls` (pages in `partition`), its ``RecordedPage`` when the record stands for a
    /// preload whose discovery text is `discovery` at `date`, or `nil` when it does not: no digest
    /// recorded, a digest that differs (something changed since, or the preload looks for requisites
    /// in another way), an edge that failed, an edge without a fresh entry that answers a plain `GET`
    /// alone (the rules of ``freshEntries(partition:urls:at:asPages:)``). One read transaction.
    ///
    /// The entries of the `confirmed` URLs need not be fresh: the caller has just had the origin
    /// confirm them (a `304`, which stored what it changed) or stored them anew.
    ///
    /// A store of a version before 9 has no digests, and answers `nil` for every page.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func recordedPages(
        partition: String = "guest", urls: [String], discovery: String, at date: Date = Date(),
        confirmed: Set<String> = []
    ) throws -> [RecordedPage?] {
        guard !urls.isEmpty, columns.hasPageBasis else { return Array(repeating: nil, count: urls.count) }
        let now = date.timeIntervalSince1970
        return try read("look up the records of \(urls.count) pages") { connection in
            try connection.readTransaction {
                // The pages of a site share most of what they need: within one snapshot, each URL's
                // entry is looked up once.
                // Room for about a batch's own edges from the start: growing the table as they came
                // was three tenths of the memo's cost.
                var known: [String: EdgeEntry?] = [:]
                known.reserveCapacity(urls.count * 16)
                return try urls.map { url in
                    try Self.recordedPage(
                        url, partition: partition, discovery: discovery, now: now, confirmed: confirmed,
                        known: &known, connection)
                }
            }
        }
    }

    private static func recordedPage(
        _ page: String, partition: String, discovery: String, now: Double, confirmed: Set<String>,
        known: inout [String: EdgeEntry?], _ connection: Connection
    ) throws -> RecordedPage? {
        guard let recorded = try recordedDigest(page: page, partition: partition, connection) else { return nil }
        // What is asked first costs least: a failed edge (fetched again) ends it before any entry is
        // looked up, and the first edge that does not stand before the others are.
        let rows = try edgeRows(page: page, partition: partition, connection)
        guard !rows.contains(where: \.failed) else { return nil }
        var edges: [RecordedPage.Edge] = []
        var bodies: [EdgeBody] = []
        edges.reserveCapacity(rows.count)
        bodies.reserveCapacity(rows.count)
        for row in rows {
            // A URL with two variants answers no plain GET alone.
            guard let entry = try checkedEntry(row.url, partition: partition, known: &known, connection),
                entry.body.variants == 1,
                answersPlainGET(
                    flagged: entry.answersAlone, freshUntil: entry.freshUntil, responseTime: entry.responseTime,
                    now: now, confirmed: confirmed.contains(row.url), status: entry.status, hasVaryLine: false)
            else { return nil }
            bodies.append(entry.body)
            edges.append(RecordedPage.Edge(
                resourceURL: row.url, kind: row.kind, entryID: entry.id, status: entry.status,
                contentType: entry.body.contentType, bodySize: entry.bodySize))
        }
        guard !edges.isEmpty, digest(of: rows, bodies, discovery: discovery) == recorded else { return nil }
        return RecordedPage(edges: edges)
    }

    /// What a page's digest covers of the entry that answers an edge's URL. A class, as
    /// ``EdgeEntry`` is: the pages of a site share most of their edges, and each shares the one
    /// looked up.
    final class EdgeBody {
        let bodyID: Int64
        let contentType: String?
        /// The body's SHA-256, when it was asked for (``storedBody(_:partition:hashing:known:_:)``).
        let hash: Data?
        /// How many complete `GET` variants the URL has (this is one of them).
        var variants = 1

        init(bodyID: Int64, contentType: String?, hash: Data? = nil) {
            self.bodyID = bodyID
            self.contentType = contentType
            self.hash = hash
        }
    }

    /// The complete `GET` entry that answers an edge's URL, as a record's check reads it. A class:
    /// the pages of a site share most of their edges, and each shares the one looked up.
    final class EdgeEntry {
        let id: Int64
        let status: Int
        let bodySize: Int64
        let freshUntil: Double
        let responseTime: Double
        /// ``answersAloneColumn``, and no `Vary` line in its stored header text.
        let answersAlone: Bool
        let body: EdgeBody

        /// The entry of a row of ``edgeEntryQuery``.
        init(row: Statement) {
            id = row.int64(0)
            status = Int(row.int64(1))
            bodySize = row.int64(3)
            freshUntil = row.double(4)
            responseTime = row.double(5)
            answersAlone = row.int64(6) != 0 && !row.withTextBytes(7, hasVaryLine)
            body = EdgeBody(bodyID: row.int64(8), contentType: row.optionalText(2))
        }
    }

    /// One edge of a recorded page.
    struct EdgeRow {
        var url: String
        var kind: String
        var failed: Bool
    }

    /// `page`'s edges in the order of their resource URLs' bytes, without their entries.
    private static func edgeRows(page: String, partition: String, _ connection: Connection) throws -> [EdgeRow] {
        var rows: [EdgeRow] = []
        try connection.forEachRow(edgesQuery, [.text(partition), .text(page)]) { row in
            rows.append(EdgeRow(url: row.text(0), kind: row.text(1), failed: !row.isNull(2)))
        }
        return rows
    }

    /// The entry of `url` for a record's check, from `known` or looked up (and added to `known`).
    private static func checkedEntry(
        _ url: String, partition: String, known: inout [String: EdgeEntry?], _ connection: Connection
    ) throws -> EdgeEntry? {
        if let entry = known[url] { return entry }
        let entry = try firstVariant(edgeEntryQuery, url: url, partition: partition, connection) { EdgeEntry(row: $0) }
            .map { entry, variants in
                entry.body.variants = variants
                return entry
            }
        known[url] = entry
        return entry
    }

    /// What the digest covers of the entry of `url`, for a write, from `known` or looked up (and
    /// added to `known`); with `hashing`, with the body's hash (a caller asks for it for the same
    /// URLs throughout a transaction).
    private static func storedBody(
        _ url: String, partition: String, hashing: Bool, known: inout [String: EdgeBody?], _ connection: Connection
    ) throws -> EdgeBody? {
        if let body = known[url] { return body }
        let query = hashing ? edgeBodyHashQuery : edgeBodyQuery
        let body = try firstVariant(query, url: url, partition: partition, connection) { row in
            EdgeBody(bodyID: row.int64(0), contentType: row.optionalText(1), hash: hashing && !row.isNull(2) ? row.blob(2) : nil)
        }.map { body, variants in
            body.variants = variants
            return body
        }
        known[url] = body
        return body
    }

    /// The first of the complete `GET` variants of `url` that `query` gives, made by `make`, with
    /// how many there are; `nil` when there is none.
    private static func firstVariant<Value>(
        _ query: SQLQuery, url: String, partition: String, _ connection: Connection, _ make: (Statement) -> Value
    ) throws -> (Value, Int)? {
        var first: Value?
        var variants = 0
        try connection.forEachRow(query, [.text(partition), .text(url)]) { row in
            variants += 1
            if first == nil { first = make(row) }
        }
        return first.map { ($0, variants) }
    }

    /// The digest of a record's `rows`, each with what its URL's entry holds, for `discovery`: each
    /// edge's URL, kind, and its entry's body id, content type and number of variants, each text
    /// ended by a zero byte (which no URL, kind or field value holds), hashed at once.
    private static func digest(of rows: [EdgeRow], _ bodies: [EdgeBody], discovery: String) -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + discovery.utf8.count + rows.count * 96)
        func add(_ text: String) {
            bytes.append(contentsOf: text.utf8)
            bytes.append(0)
        }
        add(recordDigestVersion)
        add(discovery)
        for (row, body) in zip(rows, bodies) {
            add(row.url)
            add(row.kind)
            bytes.append(contentsOf: String(body.bodyID).utf8)
            bytes.append(UInt8(ascii: " "))
            add(String(body.variants))
            if let contentType = body.contentType {
                bytes.append(UInt8(ascii: "="))
                add(contentType)
            } else {
                add("-")
            }
        }
        var hasher = SHA256()
        bytes.withUnsafeBytes { hasher.update(bytes: $0) }
        return hasher.finalize()
    }

    /// The digest recorded for `page`, if any.
    private static func recordedDigest(page: String, partition: String, _ connection: Connection) throws -> Data? {
        var digest: Data?
        try connection.forEachRow(basisQuery, [.text(partition), .text(page)]) { digest = $0.blob(0) }
        return digest
    }

    /// Writes the digest of `page`'s record as the store now holds it, for `discovery`, unless it is
    /// already the one recorded, or removes the recorded one when the record could not stand
    /// (``wantedDigest(page:partition:discovery:scanned:known:_:)``); returns whether it wrote. `known`
    /// is as for ``basisDiffers(page:partition:discovery:scanned:known:_:)``.
    @discardableResult
    static func recordBasis(
        page: String, partition: String, discovery: String, scanned: [String: Data], known: inout [String: EdgeBody?],
        _ connection: Connection
    ) throws -> Bool {
        let digest = try wantedDigest(
            page: page, partition: partition, discovery: discovery, scanned: scanned, known: &known, connection)
        guard try recordedDigest(page: page, partition: partition, connection) != digest else { return false }
        if let digest {
            try connection.run(basisUpsertQuery, [.text(partition), .text(page), .blob(digest)])
        } else {
            try connection.run(basisDeleteQuery, [.text(partition), .text(page)])
        }
        return true
    }

    /// Whether `page`'s recorded digest is not the one its record has now for `discovery`. `known`
    /// holds the entries of URLs looked up before in the same transaction, which no write changed since.
    static func basisDiffers(
        page: String, partition: String, discovery: String, scanned: [String: Data], known: inout [String: EdgeBody?],
        _ connection: Connection
    ) throws -> Bool {
        try recordedDigest(page: page, partition: partition, connection)
            != wantedDigest(
                page: page, partition: partition, discovery: discovery, scanned: scanned, known: &known, connection)
    }

    /// The digest `page`'s record should have now, or `nil` when the record could not stand
    /// whatever the time: an edge failed, or names a URL without an entry (one a run fetched
    /// without storing it, such as a `no-store` response), or whose entry holds other bytes than
    /// the `scanned` ones the edges were found in. Without a digest, a run does not check such a
    /// page's record in vain each time; it looks up nothing past the first such edge.
    private static func wantedDigest(
        page: String, partition: String, discovery: String, scanned: [String: Data], known: inout [String: EdgeBody?],
        _ connection: Connection
    ) throws -> Data? {
        let rows = try edgeRows(page: page, partition: partition, connection)
        guard !rows.contains(where: \.failed) else { return nil }
        var bodies: [EdgeBody] = []
        bodies.reserveCapacity(rows.count)
        for row in rows {
            let read = scanned[row.url]
            guard let body = try storedBody(
                row.url, partition: partition, hashing: read != nil, known: &known, connection),
                read == nil || read == body.hash
            else { return nil }
            bodies.append(body)
        }
        return digest(of: rows, bodies, discovery: discovery)
    }

    /// Names what the digest covers and how; a new one makes every recorded digest differ.
    private static let recordDigestVersion = "webcache page record 1"

    private static let basisQuery = SQLQuery("SELECT digest FROM page_basis WHERE partition = ?1 AND page_url = ?2")

    private static let basisDeleteQuery = SQLQuery("DELETE FROM page_basis WHERE partition = ?1 AND page_url = ?2")

    private static let basisUpsertQuery = SQLQuery("""
        INSERT INTO page_basis (partition, page_url, digest) VALUES (?, ?, ?)
        ON CONFLICT (partition, page_url) DO UPDATE SET digest = excluded.digest
        """)

    /// The complete `GET` entries of a URL (none, or several variants): body id, content type.
    private static let edgeBodyQuery = SQLQuery("""
        SELECT body_id, content_type FROM entry \
        WHERE partition = ?1 AND method = 'GET' AND url = ?2 AND complete_length IS NULL
        """)

    /// ``edgeBodyQuery`` with the body's SHA-256.
    private static let edgeBodyHashQuery = SQLQuery("""
        SELECT e.body_id, e.content_type, b.hash FROM entry e LEFT JOIN body b ON b.id = e.body_id \
        WHERE e.partition = ?1 AND e.method = 'GET' AND e.url = ?2 AND e.complete_length IS NULL
        """)

    /// The complete `GET` entries of a URL (none, or several variants): id, status, content type,
    /// body size, `fresh_until`, `response_time`, 1 when it has no Vary key, no decoded content and a
    /// complete body record (``answersAloneColumn``), the stored header text, body id.
    private static let edgeEntryQuery = SQLQuery("""
        SELECT e.id, e.status, e.content_type, e.body_size, e.fresh_until, e.response_time, \
        \(answersAloneColumn), e.headers, e.body_id \
        FROM entry e LEFT JOIN body b ON b.id = e.body_id \
        WHERE e.partition = ?1 AND e.method = 'GET' AND e.url = ?2 AND e.complete_length IS NULL
        """)
}
