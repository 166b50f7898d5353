import FoundationEssentials
import HTTPCore
import Synchronization

/// Hits recorded in memory and written to the store in batches.
///
/// A hit must cost about as much as reading the row, so it never opens a write transaction. Hits are
/// merged per entry (latest access, count) and flushed by the writer: at the start of every write
/// transaction, when ``CacheStore/lookup(partition:method:url:varyKey:at:)`` sees the buffer pass
/// the configured threshold, and on close. Hits not yet flushed when a process dies are lost; they
/// only feed eviction order and statistics.
final class AccessLog: Sendable {
    struct Record: Sendable {
        var lastAccess: Double
        var hits: Int64

        /// The two records of one entry as one.
        func merged(with other: Record) -> Record {
            Record(lastAccess: max(lastAccess, other.lastAccess), hits: hits + other.hits)
        }
    }

    /// The waiting records, in stripes: the gateway's connection threads each record a hit per request.
    private let records = ThreadStripes<[Int64: Record]> { [:] }
    /// How many (stripe, entry) records are waiting: an entry hit from several threads may count more than once.
    private let waiting = Atomic<Int>(0)

    /// Records one hit on `entryID` at `date` and returns about how many entries are now waiting.
    func record(entryID: Int64, at date: Date) -> Int {
        let hit = Record(lastAccess: date.timeIntervalSince1970, hits: 1)
        let added = records.withLock { records in
            if let existing = records[entryID] {
                records[entryID] = existing.merged(with: hit)
                return false
            }
            records[entryID] = hit
            return true
        }
        guard added else { return waiting.load(ordering: .relaxed) }
        return waiting.add(1, ordering: .relaxed).newValue
    }

    /// Whether no hit is waiting.
    var isEmpty: Bool {
        var empty = true
        records.forEach { empty = empty && $0.isEmpty }
        return empty
    }

    /// Takes every waiting record out of the log.
    func drain() -> [Int64: Record] {
        var taken: [Int64: Record] = [:]
        records.forEach { records in
            waiting.subtract(records.count, ordering: .relaxed)
            taken.merge(records) { $0.merged(with: $1) }
            records = [:]
        }
        return taken
    }

    /// Puts records back after a failed flush, merging with hits recorded meanwhile.
    func restore(_ taken: [Int64: Record]) {
        let added = records.withLock { records in
            let before = records.count
            records.merge(taken) { $0.merged(with: $1) }
            return records.count - before
        }
        waiting.add(added, ordering: .relaxed)
    }

    /// Writes `taken` to `entry_access`, the narrow rows of hits not yet folded into their entries;
    /// entries deleted meanwhile are skipped. In the order of the entries' ids, so that the writes
    /// walk the table's pages once instead of at random. The entries hit as often at the same
    /// instant (a preload's: once each, at the time of the lookup that answered them together),
    /// when there are at least ``sharedStatementMinimum`` of them, are written by one statement,
    /// which saves a statement's start and end for each of them.
    ///
    /// A hit used to rewrite its entry's row, two dozen columns with the header text: 11.4 µs a
    /// hit, where the narrow row costs 2.2 to 3.3 µs (1.1 µs in a shared statement). The entry's
    /// own columns get the hits when an eviction folds them in (``fold(_:)``); readers add them
    /// (``lastAccessColumn``, ``hitCountColumn``).
    static func write(_ taken: [Int64: Record], to connection: Connection) throws {
        let groups = Dictionary(grouping: taken) { Moment(lastAccess: $0.value.lastAccess, hits: $0.value.hits) }
            .map { moment, members in (moment, ids: members.map(\.key).sorted()) }
        for (moment, ids) in groups.sorted(by: { $0.ids[0] < $1.ids[0] }) {
            guard ids.count >= sharedStatementMinimum else {
                for id in ids {
                    try connection.run(hitQuery, [.real(moment.lastAccess), .integer(moment.hits), .integer(id)])
                }
                continue
            }
            try connection.run(sharedHitQuery, [.real(moment.lastAccess), .integer(moment.hits), .text(jsonArray(ids))])
        }
    }

    /// `ids` as a JSON array (`[1,2,3]`), written digit by digit into the string's own buffer.
    static func jsonArray(_ ids: [Int64]) -> String {
        // At most 20 characters a number ("-" and 19 digits) and its comma, and the brackets.
        String(unsafeUninitializedCapacity: 2 + ids.count * 21) { text in
            var end = 0
            text[end] = UInt8(ascii: "[")
            end += 1
            for (index, id) in ids.enumerated() {
                if index > 0 {
                    text[end] = UInt8(ascii: ",")
                    end += 1
                }
                if id < 0 {
                    text[end] = UInt8(ascii: "-")
                    end += 1
                }
                // The digits from the last, then turned round in place.
                let first = end
                var rest = id.magnitude
                repeat {
                    text[end] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                    rest /= 10
                    end += 1
                } while rest > 0
                text[first..<end].reverse()
            }
            text[end] = UInt8(ascii: "]")
            return end + 1
        }
    }

    /// An entry's last access with its hits not yet folded (`e` its row), as a scalar SQL expression.
    static let lastAccessColumn =
        "max(e.last_access, coalesce((SELECT last_access FROM entry_access WHERE entry_id = e.id), 0))"
    /// An entry's hit count with its hits not yet folded (`e` its row), as a scalar SQL expression.
    static let hitCountColumn = "e.hit_count + coalesce((SELECT hit_count FROM entry_access WHERE entry_id = e.id), 0)"

    /// Moves the hits of `entry_access` into their entries' `last_access` and `hit_count` and empties
    /// it, in the caller's write transaction: before anything orders entries by their last access
    /// with the entry's own index (``CacheStore/evict(toFit:)``).
    static func fold(_ connection: Connection) throws {
        try connection.run(foldQuery, [])
        try connection.run(emptyQuery, [])
    }

    /// What an entry's hits add to an upsert of its narrow row: the later access, the sum of counts.
    private static let upsertTail = """
         ON CONFLICT (entry_id) DO UPDATE SET last_access = max(last_access, excluded.last_access), \
        hit_count = hit_count + excluded.hit_count
        """

    /// Writes the hits of one entry.
    private static let hitQuery = SQLQuery(
        "INSERT INTO entry_access (entry_id, last_access, hit_count) SELECT id, ?, ? FROM entry WHERE id = ?"
            + upsertTail)

    /// Writes the same hits to each entry of a JSON array of ids.
    private static let sharedHitQuery = SQLQuery(
        "INSERT INTO entry_access (entry_id, last_access, hit_count) SELECT e.id, ?, ? FROM json_each(?) j "
            + "JOIN entry e ON e.id = j.value WHERE true" + upsertTail)

    private static let foldQuery = SQLQuery("""
        UPDATE entry SET last_access = max(entry.last_access, a.last_access), hit_count = entry.hit_count + a.hit_count \
        FROM entry_access a WHERE a.entry_id = entry.id
        """)

    private static let emptyQuery = SQLQuery("DELETE FROM entry_access")

    /// How many entries hit alike one statement writes at least: the shared statement's own start
    /// (its list of ids read) costs about as much as writing four entries one by one (5 µs), and each
    /// entry in it costs half as much (1.1 µs against 2.2 µs), so it pays from about five entries on.
    static let sharedStatementMinimum = 8

    /// What the hits of one entry write: their latest instant and their count.
    private struct Moment: Hashable {
        var lastAccess: Double
        var hits: Int64
    }
}
