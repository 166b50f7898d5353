import Foundation
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
    }

    private let records = Mutex<[Int64: Record]>([:])

    /// Records one hit on `entryID` at `date` and returns how many entries are now waiting.
    func record(entryID: Int64, at date: Date) -> Int {
        let time = date.timeIntervalSince1970
        return records.withLock { records in
            if let existing = records[entryID] {
                records[entryID] = Record(lastAccess: max(existing.lastAccess, time), hits: existing.hits + 1)
            } else {
                records[entryID] = Record(lastAccess: time, hits: 1)
            }
            return records.count
        }
    }

    /// Whether no hit is waiting.
    var isEmpty: Bool {
        records.withLock { $0.isEmpty }
    }

    /// Takes every waiting record out of the log.
    func drain() -> [Int64: Record] {
        records.withLock { records in
            let taken = records
            records = [:]
            return taken
        }
    }

    /// Puts records back after a failed flush, merging with hits recorded meanwhile.
    func restore(_ taken: [Int64: Record]) {
        records.withLock { records in
            records.merge(taken) { Record(lastAccess: max($0.lastAccess, $1.lastAccess), hits: $0.hits + $1.hits) }
        }
    }

    /// Writes `taken` to the entry table; entries deleted meanwhile are skipped. In the order of
    /// the entries' ids, so that the updates walk the table's pages once instead of at random.
    static func write(_ taken: [Int64: Record], to connection: Connection) throws {
        for (entryID, record) in taken.sorted(by: { $0.key < $1.key }) {
            try connection.run(
                "UPDATE entry SET last_access = max(last_access, ?), hit_count = hit_count + ? WHERE id = ?",
                [.real(record.lastAccess), .integer(record.hits), .integer(entryID)]
            )
        }
    }
}
