import CacheStore
import FoundationEssentials
import HTTPCaching
import HTTPCore
import Synchronization

/// What every hit on a stored entry works out alike from its head, worked out once per entry: the
/// fields it is served with before `Age` (hop-by-hop fields and `Set-Cookie` removed, the tag of a
/// decoded copy weakened), their coding and where their `Age` and `Content-Length` lines are, and
/// its corrected initial age (RFC 9111 §4.2.3), which parses its `Date` and `Age`. Together they
/// were a tenth of a hit.
///
/// Kept in a few slots by entry id. A slot is used only for an entry with the stored fields, times
/// and coding it was worked out from; the store hands out the same decoded fields while an entry
/// is unchanged, so comparing them costs one comparison of their storage.
final class ServedHeadCache: Sendable {
    /// The worked-out head of one entry.
    final class Head: Sendable {
        /// The fields served before `Age` is added: the entry's, less what ``Loader/storedHeaders(_:)``
        /// removes (also from an entry saved before that rule, whose old `Set-Cookie` must not be
        /// served now), with a decoded copy's `ETag` weakened (the origin's strong tag names the coded bytes).
        let served: HTTPHeaders
        /// `corrected_initial_age` (RFC 9111 §4.2.3).
        let initialAge: TimeInterval
        /// The `Content-Encoding` of ``served`` (its lines joined), `nil` when it has none.
        let coding: String?
        /// Where ``served`` has its `Age` and `Content-Length` lines, which every hit sets.
        private let ageLines: [Int]
        private let lengthLines: [Int]
        // What they were worked out from.
        private let stored: HTTPHeaders
        private let requestTime: Date
        private let responseTime: Date
        private let decodedFrom: String?

        init(of entry: CacheEntry) {
            var served = Loader.storedHeaders(entry.headers)
            if entry.decodedFrom != nil { served.weakenEntityTag() }
            self.served = served
            coding = served["Content-Encoding"]
            ageLines = served.indices(named: "Age")
            lengthLines = served.indices(named: "Content-Length")
            initialAge = StoredResponse.correctedInitialAge(
                headers: entry.headers, requestTime: entry.requestTime, responseTime: entry.responseTime)
            stored = entry.headers
            requestTime = entry.requestTime
            responseTime = entry.responseTime
            decodedFrom = entry.decodedFrom
        }

        /// ``served`` with `Age` when `age` is above 0, then `contentLength` as `Content-Length` when
        /// given: each set as the subscript sets it (its line's value replaced in place, else a line
        /// appended), without looking for the lines on every hit.
        func headers(age: TimeInterval, contentLength: String? = nil) -> HTTPHeaders {
            var headers = served
            // With one line of each at most, setting `Age` moves no other line.
            guard ageLines.count <= 1, lengthLines.count <= 1 else {
                if age > 0 { headers["Age"] = String(Int(age)) }
                if let contentLength { headers["Content-Length"] = contentLength }
                return headers
            }
            if age > 0 { Self.set("Age", to: String(Int(age)), line: ageLines.first, in: &headers) }
            if let contentLength {
                Self.set("Content-Length", to: contentLength, line: lengthLines.first, in: &headers)
            }
            return headers
        }

        private static func set(_ name: String, to value: String, line: Int?, in headers: inout HTTPHeaders) {
            if let line { headers.setValue(value, at: line) } else { headers.append(name: name, value: value) }
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
