import FoundationEssentials
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension CacheStore {
    /// A stored response that answers a plain `GET` of its URL without contacting the origin: the
    /// only complete variant of the URL, fresh, selected by no request field (no `Vary`), stored as
    /// the origin coded it, with a success status, and a complete body.
    public struct FreshEntry: Sendable, Hashable {
        /// The entry's row id (for ``recordHit(entryID:at:)``).
        public var id: Int64
        /// The stored status, from 200 to 299.
        public var status: Int
        /// The stored `Content-Type`, if any.
        public var contentType: String?
        /// The body's size in bytes.
        public var bodySize: Int64
        /// Whether the URL is recorded as a page that needs nothing but itself: its one edge is to
        /// itself, of kind `page`, without a failure, and nothing is recorded as left out for it
        /// (looked up only when asked for pages; `false` otherwise).
        public var isLonePage = false
    }

    /// What the store holds for a `GET` of a URL in a partition (``lookUp(partition:urls:at:asPages:)``).
    public enum Holding: Sendable, Hashable {
        /// An entry that answers a plain `GET` without a request.
        case fresh(FreshEntry)
        /// Entries or parts that do not answer alone: a load of the URL reads them and decides by
        /// every rule of RFC 9111 (revalidation, variants, completing a part).
        case stored
        /// Nothing at all: a load of the URL finds nothing to read in the store.
        case nothing
    }

    /// For each of `urls`, the ``FreshEntry`` that answers a `GET` of it in `partition` at `date`
    /// without a request, or `nil` when none does: ``lookUp(partition:urls:at:asPages:)`` without
    /// telling what is stored from nothing.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func freshEntries(
        partition: String = "guest", urls: [String], at date: Date = Date(), asPages: Bool = false
    ) throws -> [FreshEntry?] {
        try lookUp(partition: partition, urls: urls, at: date, asPages: asPages).map { holding in
            if case .fresh(let entry) = holding { entry } else { nil }
        }
    }

    /// For each of `urls`, what the store holds for a `GET` of it in `partition` at `date`: the
    /// ``FreshEntry`` that answers it without a request; ``Holding/stored`` when something is stored
    /// that does not (stale, several variants, a `Vary` field, a decoded copy, a partial or an error
    /// or redirect response, a response received after `date`, a part of a range: the caller then
    /// loads the URL the full way, which decides those cases by every rule of RFC 9111); or
    /// ``Holding/nothing``, when a load has nothing to read.
    ///
    /// One read transaction for them all (one snapshot), and one statement for them all that looks
    /// each up by one descent of the entry's unique index and reads only the columns the answer
    /// needs (``ReadableColumns/freshQueries``): the freshness comes from the `fresh_until` column
    /// (RFC 9111 §4.2: `response_time` plus the freshness lifetime minus the corrected initial age;
    /// 0 lifetime for `no-cache`), as the loader's hit decides it. The body is not read: that the
    /// entry's body record is complete tells it is stored, and its bytes are checked at every read
    /// that serves them and by ``verify()``. It records no hit: see ``recordHit(entryID:at:)``.
    ///
    /// With `asPages`, the same statement also reads whether each URL is recorded as a page that
    /// needs nothing but itself (``FreshEntry/isLonePage``): a preload that finds such a page fresh,
    /// and nothing in it to look for, has nothing to record of it either.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func lookUp(
        partition: String = "guest", urls: [String], at date: Date = Date(), asPages: Bool = false
    ) throws -> [Holding] {
        guard !urls.isEmpty else { return [] }
        let columns = columns
        let list = urls.count == 1 ? urls[0] : Self.jsonArray(urls)
        let now = date.timeIntervalSince1970
        return try read("look up the freshness of \(urls.count) URLs") { connection in
            var found = [FreshEntry?](repeating: nil, count: urls.count)
            // How many complete variants each URL has, up to 2: only a URL's only one may answer.
            var variants = [UInt8](repeating: 0, count: urls.count)
            var holds = [Bool](repeating: false, count: urls.count)
            try connection.readTransaction {
                var queries = asPages ? columns.freshPageQueries : columns.freshQueries
                // Most stores record nothing left out for any page: asked once, not for each URL.
                if asPages, try !columns.hasSkips || !Self.holdsSkips(partition: partition, connection) {
                    queries = columns.freshPageQueriesWithoutSkips
                }
                let query = urls.count == 1 ? queries.ofOne : queries.ofList
                try connection.forEachRow(query, [.text(partition), .text(list)]) { row in
                    let index = Int(row.int64(0))
                    guard index >= 0, index < urls.count else { return }
                    holds[index] = true
                    guard row.int64(9) != 0 else { return }
                    variants[index] = min(variants[index] + 1, 2)
                    let status = Int(row.int64(2))
                    guard variants[index] == 1, Self.answersPlainGET(
                        flagged: row.int64(7) != 0, freshUntil: row.double(5), responseTime: row.double(6), now: now,
                        status: status, hasVaryLine: row.withTextBytes(8, Self.hasVaryLine))
                    else { return }
                    found[index] = FreshEntry(id: row.int64(1), status: status, contentType: row.optionalText(3),
                                              bodySize: row.int64(4), isLonePage: asPages && row.int64(10) != 0)
                }
            }
            return urls.indices.map { index in
                if variants[index] == 1, let entry = found[index] { return .fresh(entry) }
                return holds[index] ? .stored : .nothing
            }
        }
    }

    /// `texts` as a JSON array of strings, for a statement that reads them with `json_each`.
    static func jsonArray(_ texts: [String]) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(texts.reduce(2) { $0 + $1.utf8.count + 3 })
        for (index, text) in texts.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            JSONString.appendEscaped(text, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The SQL column (over an entry `e` and its body `b`) that is 1 when what a plain `GET` of the
    /// entry's URL needs from its columns alone holds: no Vary key, not a decoded copy, a complete
    /// body record. Read by the fresh lookup and by a page record's check.
    static let answersAloneColumn = "e.vary_key = '' AND e.decoded_from IS NULL AND b.hash IS NOT NULL"

    /// Whether an entry, the only complete `GET` variant of its URL, answers a plain `GET` at `now`
    /// without a request, by its stored columns as the loader's hit decides it: ``answersAloneColumn``
    /// (`flagged`), fresh (or its freshness just `confirmed` by the origin) and not received after
    /// `now`, a success status but 206, and no `Vary` line in its stored header text, asked last.
    static func answersPlainGET(
        flagged: Bool, freshUntil: Double, responseTime: Double, now: Double, confirmed: Bool = false, status: Int,
        hasVaryLine: @autoclosure () -> Bool
    ) -> Bool {
        flagged && (freshUntil > now || confirmed) && now >= responseTime && (200...299).contains(status)
            && status != 206 && !hasVaryLine()
    }

    /// Whether stored header text (lines of `Name: value`, each ended by CR LF) has a `Vary` line:
    /// the name, in any case, and its colon, at the start of the text or of a line.
    /// Each line is passed over with `memchr`: a warm preload asks this of every fresh URL.
    static func hasVaryLine(_ text: UnsafeBufferPointer<UInt8>) -> Bool {
        guard var line = text.baseAddress else { return false }
        let end = line + text.count
        while end - line >= 5 {
            if line[0] | 0x20 == UInt8(ascii: "v"), line[1] | 0x20 == UInt8(ascii: "a"),
                line[2] | 0x20 == UInt8(ascii: "r"), line[3] | 0x20 == UInt8(ascii: "y"), line[4] == UInt8(ascii: ":")
            {
                return true
            }
            guard let newline = memchr(line, Int32(UInt8(ascii: "\n")), end - line) else { return false }
            line = UnsafePointer(newline.assumingMemoryBound(to: UInt8.self)) + 1
        }
        return false
    }
}
