import FoundationEssentials
import HTTPCore

/// A stored response: its identity, metadata and a reference to its body.
///
/// The identity of an entry is (``partition``, ``method``, ``url``, ``varyKey``). The caller computes
/// freshness (``freshUntil``, ``staleUntil``) and the Vary secondary key; the store keeps them as
/// queryable columns. Fields that only the store sets (``id``, ``storedAt``, ``hitCount``,
/// ``bodyID``, ``bodySize``, ``bodyHash``) are ignored when saving.
///
/// ```swift
/// let entry = CacheEntry(
///     url: "https://example.com/app.css", status: 200, headers: ["Content-Type": "text/css"],
///     requestTime: sent, responseTime: received, freshUntil: received.addingTimeInterval(600))
/// let saved = try await store.save(entry, body: cssData)
/// ```
public struct CacheEntry: Sendable, Hashable, Identifiable {
    /// The row id, `nil` until the entry is saved. Replacing an entry keeps its id.
    public var id: Int64?
    /// The identity partition: `"guest"` or one per signed-in identity.
    public var partition: String
    /// The request method.
    public var method: HTTPMethod
    /// The request URL's absolute string, compared exactly.
    public var url: String
    /// The URL's host in lower case (empty when the URL has none), for pruning and statistics;
    /// the store derives it from ``url`` when saving.
    public internal(set) var host: String
    /// The opaque Vary secondary key computed by the caller; empty when the response has no `Vary`.
    public var varyKey: String
    /// The response status code.
    public var status: Int
    /// The response header fields in received order, repeated names kept.
    public var headers: HTTPHeaders
    /// When the request was sent.
    public var requestTime: Date
    /// When the response head was received.
    public var responseTime: Date
    /// Until when the response is fresh.
    public var freshUntil: Date
    /// Until when a stale response may still be served (`stale-while-revalidate`/`stale-if-error`), if at all.
    public var staleUntil: Date?
    /// When the store saved the entry.
    public var storedAt: Date
    /// When the entry was last served or saved, as far as hits are written (see ``hitCount``).
    public var lastAccess: Date
    /// How many times the entry was served, as far as hits are written: ``CacheStore/entry(id:)``,
    /// listings and inspection count every hit written; the entries a lookup serves
    /// (``CacheStore/lookup(partition:method:url:varyKey:at:)``, ``CacheStore/variants(partition:method:url:)``)
    /// count those folded into the entry's row, which an eviction does.
    public var hitCount: Int64
    /// A pinned entry is never evicted and never pruned unless the criteria ask for it.
    public var pinned: Bool
    /// The body's row id, `nil` until saved.
    public var bodyID: Int64?
    /// The body's size in bytes.
    public var bodySize: Int64
    /// The body's SHA-256 digest (32 bytes), `nil` until saved.
    public var bodyHash: Data?
    /// The content coding the body was decoded from when it was received (the `Content-Encoding`
    /// the transport removed), `nil` when it is stored as the origin sent it. The headers keep the
    /// origin's `ETag` for revalidation; served, a strong one is made weak, as it names the coded bytes.
    public var decodedFrom: String?
    /// For a partial entry (a stored 206, RFC 9111 §3.3), the length of the complete representation;
    /// `nil` for a complete entry. A partial entry's bytes are its ``EntryPart``s, and its
    /// ``bodySize`` is theirs; it is never returned by the reads that serve complete responses
    /// (``CacheStore/variants(partition:method:url:)``, ``CacheStore/lookup(partition:method:url:varyKey:at:)``).
    public internal(set) var completeLength: Int64?

    /// Whether the entry holds only some bytes of its response (see ``completeLength``).
    public var isPartial: Bool { completeLength != nil }

    // MARK: - Fields derived from the headers (stored as columns too)

    /// The `ETag` header.
    public var etag: String? { headers["ETag"] }
    /// The `Last-Modified` header.
    public var lastModified: String? { headers["Last-Modified"] }
    /// The `Content-Type` header.
    public var contentType: String? { headers["Content-Type"] }
    /// The parsed `Date` header.
    public var date: Date? { headers["Date"].flatMap { HTTPDate.parse($0) } }

    /// The lower-cased host of `url`, empty when it has none.
    static func host(of url: String) -> String {
        simpleHost(of: url) ?? (URLComponents(string: url)?.host ?? "").lowercased()
    }

    /// The lower-cased host of a plain `http` or `https` URL, read from its bytes, or `nil` for any
    /// other URL, which takes the full parse: each save derives the host, and a preload of tiny
    /// responses spent 2 % of its time parsing URLs for it. Plain means: a lower-case scheme; an
    /// authority of a host of letters, digits, `-`, `.`, `_` and `~` without an `xn--` label (which
    /// `URLComponents` shows decoded) and an optional port of one to five digits up to 65535; and
    /// after it only the characters a URL holds unescaped (RFC 3986 §2: unreserved, sub-delims,
    /// `:`, `@`, `/`, `?`) and `%` followed by two hex digits. For those, `URLComponents` gives the
    /// same host (pinned by a test that compares the two).
    static func simpleHost(of url: String) -> String? {
        var url = url
        return url.withUTF8 { bytes -> String? in
            let count = bytes.count
            func has(_ prefix: StaticString, at offset: Int = 0) -> Bool {
                prefix.withUTF8Buffer { expected in
                    offset + expected.count <= count
                        && expected.indices.allSatisfy { bytes[offset + $0] == expected[$0] }
                }
            }
            let start = has("https://") ? 8 : has("http://") ? 7 : 0
            guard start > 0 else { return nil }
            var index = start
            var hostEnd: Int?
            var port = 0
            while index < count, bytes[index] != UInt8(ascii: "/"), bytes[index] != UInt8(ascii: "?") {
                let byte = bytes[index]
                if let hostEnd {
                    guard isDigit(byte), index - hostEnd <= 5 else { return nil }
                    port = port * 10 + Int(byte - UInt8(ascii: "0"))
                } else if byte == UInt8(ascii: ":") {
                    hostEnd = index
                } else if !isHostByte(byte) {
                    return nil
                }
                index += 1
            }
            let end = hostEnd ?? index
            guard end > start, hostEnd.map({ index > $0 + 1 && port <= 65535 }) ?? true else { return nil }
            // An `xn--` label, in any case.
            var label = start
            while label + 4 <= end {
                if bytes[label] | 0x20 == UInt8(ascii: "x"), bytes[label + 1] | 0x20 == UInt8(ascii: "n"),
                    bytes[label + 2] == UInt8(ascii: "-"), bytes[label + 3] == UInt8(ascii: "-")
                {
                    return nil
                }
                guard let dot = (label..<end).first(where: { bytes[$0] == UInt8(ascii: ".") }) else { break }
                label = dot + 1
            }
            while index < count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "%") {
                    guard index + 2 < count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else {
                        return nil
                    }
                    index += 3
                    continue
                }
                guard isHostByte(byte) || isUnescapedPunctuation(byte) else { return nil }
                index += 1
            }
            // The host in lower case, written once into its string.
            return String(unsafeUninitializedCapacity: end - start) { host in
                for offset in 0..<(end - start) {
                    let byte = bytes[start + offset]
                    host[offset] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
                }
                return end - start
            }
        }
    }

    /// RFC 3986's sub-delims and the `:`, `@`, `/`, `?` of paths and queries.
    private static func isUnescapedPunctuation(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "/"), UInt8(ascii: "?"):
            true
        default:
            false
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }

    /// Letters, digits and RFC 3986's unreserved `-`, `.`, `_`, `~`.
    private static func isHostByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "~")
    }

    /// Whether the entry is fresh at `now`.
    public func isFresh(at now: Date) -> Bool { freshUntil > now }
}

// MARK: - Making entries

// The initializers are in extensions rather than in the struct's body, so that it keeps its
// memberwise initializer, which they call: one that set each property itself made the optimizer
// build the entry twice and copy one (see Reference's initializers).
extension CacheEntry {
    /// Creates an entry to save.
    public init(
        partition: String = "guest",
        method: HTTPMethod = .get,
        url: String,
        varyKey: String = "",
        status: Int,
        headers: HTTPHeaders,
        requestTime: Date,
        responseTime: Date,
        freshUntil: Date,
        staleUntil: Date? = nil,
        pinned: Bool = false,
        decodedFrom: String? = nil
    ) {
        self.init(
            id: nil, partition: partition, method: method, url: url, host: Self.host(of: url), varyKey: varyKey,
            status: status, headers: headers, requestTime: requestTime, responseTime: responseTime,
            freshUntil: freshUntil, staleUntil: staleUntil, storedAt: responseTime, lastAccess: responseTime,
            hitCount: 0, pinned: pinned, bodyID: nil, bodySize: 0, bodyHash: nil, decodedFrom: decodedFrom,
            completeLength: nil)
    }
}

// MARK: - Rows

extension CacheEntry {
    /// The columns read by ``init(row:)``, in order, from a store of the latest schema version.
    static let selection = selection(from: "entry", unfoldedHits: true)

    /// The columns read by ``init(row:)`` from `source`: the `entry` table, or, for a store older
    /// than the latest version opened for reading only, a query that adds the later columns as
    /// `NULL` (see ``ReadableColumns``).
    ///
    /// - Parameters:
    ///   - unfoldedHits: Whether the store has `entry_access` (version 10), whose hits not yet folded
    ///     into the entry are added to its last access and hit count.
    ///   - more: columns selected after those, from column number 21 on.
    static func selection(from source: String, unfoldedHits: Bool, more: String = "") -> String {
        let (lastAccess, hitCount) =
            unfoldedHits ? (AccessLog.lastAccessColumn, AccessLog.hitCountColumn) : ("e.last_access", "e.hit_count")
        return """
            SELECT e.id, e.partition, e.method, e.url, e.host, e.vary_key, e.status, e.headers, e.request_time, \
            e.response_time, e.fresh_until, e.stale_until, e.stored_at, \(lastAccess), \(hitCount), e.pinned, \
            e.body_id, e.body_size, b.hash, e.decoded_from, e.complete_length\(more) FROM \(source) e \
            JOIN body b ON b.id = e.body_id
            """
    }

    /// The condition after ``selection`` for the entry with one identity: partition, method, URL, Vary key.
    /// Complete entries only: a partial one is never served as a response.
    static let byIdentity =
        " WHERE e.partition = ? AND e.method = ? AND e.url = ? AND e.vary_key = ? AND e.complete_length IS NULL"
    /// The condition after ``selection`` for every complete variant of partition, method and URL, in
    /// no order: sorting in SQL would pass every row through a temporary tree, which costs a hit more
    /// than its body's read (callers sort the rare several, ``inStoredOrder``).
    static let ofVariants = " WHERE e.partition = ? AND e.method = ? AND e.url = ? AND e.complete_length IS NULL"
    /// The condition after ``selection`` for every partial variant of partition, method and URL.
    static let ofPartialVariants =
        " WHERE e.partition = ? AND e.method = ? AND e.url = ? AND e.complete_length IS NOT NULL ORDER BY e.id"
    /// The condition after ``selection`` for the entry with one identity, complete or partial.
    static let byAnyIdentity = " WHERE e.partition = ? AND e.method = ? AND e.url = ? AND e.vary_key = ?"
    /// The condition after ``selection`` for the entry with one id.
    static let byID = " WHERE e.id = ?"

    /// Entries in the order they were stored (by id).
    static func inStoredOrder(_ entries: [CacheEntry]) -> [CacheEntry] {
        entries.count < 2 ? entries : entries.sorted { ($0.id ?? 0) < ($1.id ?? 0) }
    }

    /// Decodes the current row of a statement that starts with ``selection``.
    init(row: Statement) {
        self.init(
            row: row, partition: row.text(1), method: HTTPMethod(rawValue: row.text(2)), url: row.text(3),
            decodedHeaders: nil)
    }

    /// Decodes the current row of a statement that starts with ``selection`` and selects the entries
    /// of `partition`, `method` and `url` (compared exactly): those columns are taken from the
    /// question rather than decoded again, sparing a hit three strings, and the header fields are
    /// taken from `decodedHeaders` when it decoded the same stored text of this entry before.
    init(row: Statement, partition: String, method: HTTPMethod, url: String, decodedHeaders: DecodedHeaderCache?) {
        let id = row.int64(0)
        self.init(
            id: id, partition: partition, method: method, url: url, host: row.text(4),
            varyKey: row.text(5), status: Int(row.int64(6)),
            headers: row.withTextBytes(7) { text in
                decodedHeaders?.headers(id: id, text: text) ?? HeaderCoding.decode(bytes: text)
            },
            requestTime: row.date(8), responseTime: row.date(9), freshUntil: row.date(10),
            staleUntil: row.optionalDate(11), storedAt: row.date(12), lastAccess: row.date(13),
            hitCount: row.int64(14), pinned: row.int64(15) != 0, bodyID: row.int64(16), bodySize: row.int64(17),
            bodyHash: row.blob(18), decodedFrom: row.optionalText(19),
            completeLength: row.isNull(20) ? nil : row.int64(20))
    }
}
