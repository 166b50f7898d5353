/// How reads name the columns that later schema versions added: the column itself, or `NULL` in a
/// store of an older version opened for reading only, which is read without being upgraded.
struct ReadableColumns: Sendable {
    /// The expression that reads a chunk's checksum (version 4).
    let chunkChecksum: String
    /// The start of a query that reads entries for ``CacheEntry/init(row:)``, with
    /// `entry.decoded_from` (version 5), `entry.complete_length` (version 6) and the hits of
    /// `entry_access` (version 10).
    let entrySelection: String

    /// Whether the store has partial entries' parts (`entry_part`, version 6).
    let hasParts: Bool
    /// Whether the store records what a page left out for the device (`page_skip`, version 7).
    let hasSkips: Bool
    /// Whether the store has the digests of page records (`page_basis`, version 9).
    let hasPageBasis: Bool
    /// Whether the store counts the partitions' sign-outs (`partition_sign_out`, version 12).
    let hasSignOuts: Bool
    /// An entry's last access (`e` its row) with the hits not yet folded into it (`entry_access`,
    /// version 10) as a scalar expression.
    let lastAccess: String
    /// Whether an entry (`e` its row) is partial (`entry.complete_length`, version 6), as an expression.
    let isPartial: String

    /// Every complete variant of partition, method and URL (``entrySelection`` without the hits not
    /// yet folded, and ``CacheEntry/ofVariants``), with its body's recorded size and chunk count
    /// (columns 21 and 22): made once, as the hit path asks for it on every load.
    let variantsQuery: SQLQuery
    /// One complete entry by identity (``CacheEntry/byIdentity``), its own columns as in
    /// ``variantsQuery``, with its body's recorded size and chunk count (columns 21 and 22): the one
    /// statement of ``CacheStore/lookup(partition:method:url:varyKey:at:)``.
    let identityQuery: SQLQuery
    /// A whole body with its record and its chunks in order, checked as they are read; made once too.
    let wholeBodyQuery: SQLQuery
    /// Every `GET` entry of partition (`?1`) and each URL of a JSON array of URLs (`?2`), with what
    /// tells whether it answers a plain `GET` alone (``CacheStore/lookUp(partition:urls:at:asPages:)``):
    /// the URL's index in the array, id, status, content type, body size, `fresh_until`,
    /// `response_time`, 1 when it has no Vary key, no decoded content and a complete body record, the
    /// stored header text (for a `Vary` line), and 1 when it is a complete variant rather than a part.
    /// One statement for many URLs: each is still one descent of the entry's unique index, without
    /// a statement's start and end for each. ``FreshQueries/ofOne`` takes one URL as it is instead
    /// of an array (index 0), which costs less than reading an array of one.
    let freshQueries: FreshQueries
    /// ``freshQueries`` with one more column: 1 when the URL is recorded as a page that needs nothing
    /// but itself (its one edge is to itself, of kind `page`, without a failure, and nothing is
    /// recorded as left out for it). At most two of the page's edges are read.
    let freshPageQueries: FreshQueries
    /// ``freshPageQueries`` for a partition that records nothing left out for any page: the same
    /// column without asking, for each URL, whether something was left out for it (a descent of
    /// `page_skip`'s key, about 1,300 instructions a URL, where a warm run of tiny URLs spends about
    /// 44,000 a URL in all).
    let freshPageQueriesWithoutSkips: FreshQueries

    /// A fresh lookup's statement for a JSON array of URLs and for one URL.
    struct FreshQueries {
        let ofList: SQLQuery
        let ofOne: SQLQuery
    }

    /// The chunks of one body in order (seq, data, checksum), for a read whose body record came with
    /// the entry's (``variantsQuery``).
    let chunksQuery: SQLQuery

    /// The columns of a store of schema version `version`.
    init(schemaVersion version: Int) {
        hasParts = version >= 6
        hasSkips = version >= 7
        hasPageBasis = version >= 9
        hasSignOuts = version >= 12
        chunkChecksum = version >= 4 ? "checksum" : "NULL"
        let entries =
            switch version {
            case 6...: "entry"
            case 5: "(SELECT *, NULL AS complete_length FROM entry)"
            default: "(SELECT *, NULL AS decoded_from, NULL AS complete_length FROM entry)"
            }
        let unfoldedHits = version >= 10
        lastAccess = unfoldedHits ? AccessLog.lastAccessColumn : "e.last_access"
        isPartial = version >= 6 ? "e.complete_length IS NOT NULL" : "0"
        entrySelection = CacheEntry.selection(from: entries, unfoldedHits: unfoldedHits)
        // The hit path reads the entry's own columns only: joining the hits not yet folded cost a hit
        // 1,700 instructions (8 %) for two fields a served response never reads.
        let hitSelection = CacheEntry.selection(from: entries, unfoldedHits: false, more: ", b.size, b.chunk_count")
        variantsQuery = SQLQuery(hitSelection + CacheEntry.ofVariants)
        identityQuery = SQLQuery(hitSelection + CacheEntry.byIdentity)
        func fresh(more: String) -> FreshQueries {
            func query(urls: String) -> SQLQuery {
                SQLQuery("""
                    SELECT j.key, e.id, e.status, e.content_type, e.body_size, e.fresh_until, e.response_time, \
                    \(CacheStore.answersAloneColumn), e.headers, e.complete_length IS NULL\(more) \
                    FROM \(urls) j CROSS JOIN \(entries) e ON e.partition = ?1 AND e.method = 'GET' AND e.url = j.value \
                    CROSS JOIN body b ON b.id = e.body_id
                    """)
            }
            return FreshQueries(ofList: query(urls: "json_each(?2)"), ofOne: query(urls: "(SELECT 0 AS key, ?2 AS value)"))
        }
        freshQueries = fresh(more: "")
        func page(skips: String) -> FreshQueries {
            fresh(more: """
                , (SELECT count(*) = 1 AND min(alone) FROM (SELECT resource_url = j.value AND kind = 'page' AND \
                failure IS NULL AS alone FROM page_edge WHERE partition = ?1 AND page_url = j.value LIMIT 2)) AND \(skips)
                """)
        }
        freshPageQueries = page(
            skips: hasSkips ? "NOT EXISTS (SELECT 1 FROM page_skip WHERE partition = ?1 AND page_url = j.value)" : "1")
        freshPageQueriesWithoutSkips = page(skips: "1")
        chunksQuery = SQLQuery(
            "SELECT seq, data, \(chunkChecksum) FROM body_chunk WHERE body_id = ? ORDER BY seq")
        wholeBodyQuery = SQLQuery("""
            SELECT b.size, b.chunk_count, b.hash, c.seq, c.data, \(chunkChecksum) FROM body b \
            LEFT JOIN body_chunk c ON c.body_id = b.id WHERE b.id = ? AND b.hash IS NOT NULL ORDER BY c.seq
            """)
    }

    /// The columns of a store of the latest version, such as every store opened for writing.
    static let latest = ReadableColumns(schemaVersion: Schema.latestVersion)
}
