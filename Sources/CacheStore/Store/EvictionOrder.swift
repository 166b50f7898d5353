/// The order in which ``CacheStore/evict(toFit:)`` removes entries, and ``CacheStore/evictionPlan(toFit:)``
/// says it would: least recently used first, the larger body first among equal access times, but by
/// what a removal frees, since the limit counts distinct body bytes.
///
/// A body shared by several entries (one URL in several partitions, or several URLs of the same
/// bytes) is freed only with the last of them, so its entries go together, when the most recently
/// used of them comes in the order: an entry whose body a more recent entry still uses stays, as
/// removing it alone would lose it and free nothing. Entries whose body a pinned entry or a part
/// of a partial entry uses, and complete entries with an empty body, free nothing and stay. A
/// partial entry goes on its own: its parts are its bytes.
struct EvictionOrder {
    /// One entry of a step.
    struct Entry {
        let id: Int64
        let url: String
        let partition: String
        /// Its `body_size`: a partial entry's counts its parts.
        let size: Int64
    }

    /// Entries removed together, and the body bytes that removing them frees, as far as the rows
    /// tell (a part's body shared with another entry is counted as freed).
    struct Step {
        var entries: [Entry]
        var frees: Int64
    }

    /// The steps, in order, that bring the distinct body bytes from `total` down to `byteLimit`,
    /// or as far as the unpinned entries allow.
    let steps: [Step]

    /// Walks the unpinned entries of the store through `connection` in the order of their last
    /// access, as `columns` read it, until the steps found would free enough to go from `total`
    /// bytes to `byteLimit`; with `folded`, the hits are all in the entries' own rows, whose index
    /// then gives the order.
    init(_ connection: Connection, columns: ReadableColumns, folded: Bool, total: Int64, byteLimit: Int64) throws {
        let lastAccess = folded ? "e.last_access" : columns.lastAccess
        var steps: [Step] = []
        var left = total
        // The entries of a shared body met so far, until they are all its references.
        var waiting: [Int64: [Entry]] = [:]
        // Complete entries with the empty body, and partial ones without parts, free nothing: the index
        // leaves them out before their rows are read.
        let statement = try connection.cachedStatement(sql: """
            SELECT e.id, e.url, e.partition, e.body_size, e.body_id, b.ref_count, b.size, \
            \(columns.isPartial) FROM entry e JOIN body b ON b.id = e.body_id \
            WHERE e.pinned = 0 AND e.body_size > 0 ORDER BY \(lastAccess), e.body_size DESC, e.id
            """)
        try statement.withBindings([]) {
            while left > byteLimit, try statement.step() {
                let entry = Entry(
                    id: statement.int64(0), url: statement.text(1), partition: statement.text(2),
                    size: statement.int64(3))
                if statement.int64(7) != 0 {
                    steps.append(Step(entries: [entry], frees: entry.size))
                    left -= entry.size
                    continue
                }
                let bodySize = statement.int64(6)
                let bodyID = statement.int64(4)
                var group = waiting.removeValue(forKey: bodyID) ?? []
                group.append(entry)
                if Int64(group.count) >= statement.int64(5) {
                    steps.append(Step(entries: group, frees: bodySize))
                    left -= bodySize
                } else {
                    waiting[bodyID] = group
                }
            }
        }
        self.steps = steps
    }
}
