import CacheStore
import Foundation
import HTTPCaching
import HTTPCore
import Synchronization

/// What every hit on a stored entry works out alike from its head, worked out once per entry: the
/// fields it is served with before `Age` (hop-by-hop fields and `Set-Cookie` removed, the tag of a
/// decoded copy weakened) and its corrected initial age (RFC 9111 §4.2.3), which parses its `Date`
/// and `Age`. Together they were a tenth of a hit.
///
/// Kept in a few slots by entry id. A slot is used only for an entry with the stored fields, times
/// and coding it was worked out from; the store hands out the same decoded fields while an entry
/// is unchanged, so comparing them costs one comparison of their storage.
final class ServedHeadCache: Sendable {
    /// The worked-out head of one entry.
    struct Head: Sendable {
        /// The fields served before `Age` is added.
        let served: HTTPHeaders
        /// `corrected_initial_age` (RFC 9111 §4.2.3).
        let initialAge: TimeInterval
        // What they were worked out from.
        private let stored: HTTPHeaders
        private let requestTime: Date
        private let responseTime: Date
        private let decodedFrom: String?

        init(of entry: CacheEntry) {
            var served = Loader.storedHeaders(entry.headers)
            if entry.decodedFrom != nil { served.weakenEntityTag() }
            self.served = served
            initialAge = StoredResponse.correctedInitialAge(
                headers: entry.headers, requestTime: entry.requestTime, responseTime: entry.responseTime)
            stored = entry.headers
            requestTime = entry.requestTime
            responseTime = entry.responseTime
            decodedFrom = entry.decodedFrom
        }

        /// Whether this head was worked out from what `entry` holds now.
        func isHead(of entry: CacheEntry) -> Bool {
            requestTime == entry.requestTime && responseTime == entry.responseTime
                && decodedFrom == entry.decodedFrom && stored == entry.headers
        }
    }

    /// Slots, each for the ids equal to its index modulo their count.
    private static let slotCount = 64
    private let slots = Mutex([Head?](repeating: nil, count: slotCount))

    /// The head of `entry`, worked out now or kept from an earlier hit (an entry without an id is
    /// worked out each time).
    func head(of entry: CacheEntry) -> Head {
        guard let id = entry.id else { return Head(of: entry) }
        let index = Int(UInt64(bitPattern: id) % UInt64(Self.slotCount))
        if let kept = slots.withLock({ $0[index] }), kept.isHead(of: entry) { return kept }
        let head = Head(of: entry)
        slots.withLock { $0[index] = head }
        return head
    }
}
