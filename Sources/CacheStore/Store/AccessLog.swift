import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

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

    /// One lock and table of the log's. Threads record into the stripe their id picks, so that the
    /// gateway's connection threads, each recording a hit per request, do not all wait on one lock.
    private final class Stripe: Sendable {
        let records = Mutex<[Int64: Record]>([:])
    }

    /// Sixteen stripes: a thread's stripe is the top four bits of a hash of its id.
    private let stripes = (0..<16).map { _ in Stripe() }
    /// How many (stripe, entry) records are waiting: an entry hit from several threads may count more than once.
    private let waiting = Atomic<Int>(0)

    /// The stripe of the calling thread.
    private var stripe: Stripe {
        #if canImport(Glibc)
            let thread = UInt64(pthread_self())
        #else
            let thread = UInt64(UInt(bitPattern: pthread_self()))
        #endif
        return stripes[Int(truncatingIfNeeded: (thread &* 0x9E37_79B9_7F4A_7C15) >> 60)]
    }

    /// Records one hit on `entryID` at `date` and returns about how many entries are now waiting.
    func record(entryID: Int64, at date: Date) -> Int {
        let hit = Record(lastAccess: date.timeIntervalSince1970, hits: 1)
        let added = stripe.records.withLock { records in
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
        stripes.allSatisfy { stripe in stripe.records.withLock { $0.isEmpty } }
    }

    /// Takes every waiting record out of the log.
    func drain() -> [Int64: Record] {
        var taken: [Int64: Record] = [:]
        for stripe in stripes {
            let records = stripe.records.withLock { records in
                defer { records = [:] }
                return records
            }
            waiting.subtract(records.count, ordering: .relaxed)
            taken.merge(records) { $0.merged(with: $1) }
        }
        return taken
    }

    /// Puts records back after a failed flush, merging with hits recorded meanwhile.
    func restore(_ taken: [Int64: Record]) {
        let added = stripe.records.withLock { records in
            let before = records.count
            records.merge(taken) { $0.merged(with: $1) }
            return records.count - before
        }
        waiting.add(added, ordering: .relaxed)
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
