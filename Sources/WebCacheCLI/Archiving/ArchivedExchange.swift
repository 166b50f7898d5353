import Archive
import CacheStore
import FoundationEssentials
import HTTPCaching
import HTTPCore

/// How a stored entry is described in an archive, and how an archived exchange becomes an entry
/// again: the rules export and import share, so that a round trip gives the entry back.
///
/// An archive holds the bytes the store holds. A body the store keeps decoded from a content coding
/// (``CacheEntry/decodedFrom``) is written decoded: its headers have no `Content-Encoding` (the
/// store removed it when it decoded), get the `Content-Length` of the decoded bytes, and name the
/// coding in `X-WebCache-Decoded-From`. A `Transfer-Encoding` is dropped (the store keeps content,
/// not framing) and a missing `Content-Length` is added, except to a 1xx, 204 or 304.
enum ArchivedExchange {
    /// The response field that names the content coding a body was decoded from before it was stored.
    static let decodedFromField = "X-WebCache-Decoded-From"
    /// WARC extension fields for what only webcache knows about an entry.
    static let partitionField = "WebCache-Partition"
    static let varyKeyField = "WebCache-Vary-Key"
    static let pinnedField = "WebCache-Pinned"

    // MARK: - Export

    /// The response fields an archive gets for `entry`, describing the bytes of its stored body.
    static func responseHeaders(of entry: CacheEntry) -> HTTPHeaders {
        var headers = entry.headers
        headers.remove("Transfer-Encoding")
        if let coding = entry.decodedFrom {
            headers.remove("Content-Encoding")
            headers.remove("Content-Length")
            headers.append(name: decodedFromField, value: coding)
        }
        if !getsNoContentLength(entry.status), headers.values(for: "Content-Length") != [String(entry.bodySize)] {
            headers.remove("Content-Length")
            headers.append(name: "Content-Length", value: String(entry.bodySize))
        }
        return headers
    }

    /// The response fields an archive gets for `part` of partial `entry`, as a 206 of its own: the
    /// entry's fields with the part's `Content-Range` and `Content-Length` (the entry keeps those of
    /// the part stored last).
    static func responseHeaders(of entry: CacheEntry, part: EntryPart) -> HTTPHeaders {
        var headers = entry.headers
        for name in ["Transfer-Encoding", "Content-Range", "Content-Length"] { headers.remove(name) }
        let range = ByteRange(first: part.first, last: part.span.upperBound)
        headers.append(name: "Content-Range",
                       value: ContentRange(range: range, completeLength: entry.completeLength).description)
        headers.append(name: "Content-Length", value: String(part.length))
        return headers
    }

    /// Whether a response of `status` gets no `Content-Length` made for its content (RFC 9110 §8.6):
    /// a 1xx or 204 must not have one, and a 304's would give the length of the 200 it stands for.
    static func getsNoContentLength(_ status: Int) -> Bool {
        (100..<200).contains(status) || status == 204 || status == 304
    }

    /// The request head for `entry`: `GET` with its target, `Host`, and the fields its Vary key
    /// names with the values it records (a credential's value is only a digest there, so it is left out).
    static func requestHead(of entry: CacheEntry) -> HTTPMessageHead {
        let url = URL(string: entry.url)
        var target = url.map { $0.path(percentEncoded: true) } ?? "/"
        if target.isEmpty { target = "/" }
        if let query = url?.query(percentEncoded: true) { target += "?" + query }
        var headers: HTTPHeaders = [:]
        if let url, let host = url.host(percentEncoded: true) {
            headers.append(name: "Host", value: url.port.map { "\(host):\($0)" } ?? host)
        }
        for line in entry.varyKey.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = line[line.index(after: colon)...].trimmingHTTPWhitespace()
            guard !value.hasPrefix("sha256:") else { continue }
            headers.append(name: String(line[..<colon]), value: value)
        }
        return HTTPMessageHead(startLine: "\(entry.method.rawValue) \(target) HTTP/1.1", headers: headers)
    }

    /// The request head for `part` of partial `entry`: that of ``requestHead(of:)`` asking for the
    /// part's bytes with `Range`.
    static func requestHead(of entry: CacheEntry, part: EntryPart) -> HTTPMessageHead {
        var head = requestHead(of: entry)
        head.headers.append(name: "Range", value: "bytes=\(part.first)-\(part.span.upperBound)")
        return head
    }

    /// The WARC extension fields for `entry`: partition, Vary key (percent-encoded, it has line
    /// breaks) and pin, where they differ from the defaults.
    static func extensionFields(of entry: CacheEntry) -> [HTTPField] {
        var fields: [HTTPField] = []
        if entry.partition != "guest" { fields.append(HTTPField(name: partitionField, value: entry.partition)) }
        if !entry.varyKey.isEmpty {
            let encoded = entry.varyKey.percentEncoded(allowing: \.isASCIIAlphanumeric)
            fields.append(HTTPField(name: varyKeyField, value: encoded))
        }
        if entry.pinned { fields.append(HTTPField(name: pinnedField, value: "true")) }
        return fields
    }

    // MARK: - Import

    /// What an archive says about one exchange.
    struct Exchange {
        var url: String
        var method: String
        var status: Int
        var responseHeaders: HTTPHeaders
        var requestHeaders: HTTPHeaders
        var requestTime: Date
        var responseTime: Date
        var partition: String?
        var varyKey: String?
        var pinned: Bool
        var decodedFrom: String?
    }

    /// Why an archived exchange is not stored.
    enum Refusal: Error {
        /// Not an HTTP(S) GET with a usable status, or not a response a cache keeps (an interim 1xx, a
        /// 304): skipped, not damaged; with the reason.
        case notCacheable(String)
        /// The archive says something that cannot be stored as it says it (a request URL that is not
        /// one, a 206 whose bytes have no place): reported with this sentence, and left out.
        case unusable(String)
        /// A final response the loader would not store, by its rule for what it receives (RFC 9111 §3):
        /// skipped, and counted under the reason.
        case notStorable(CacheStorability.Reason)
    }

    /// What an archived exchange is stored as.
    enum Stored {
        /// A response, saved as an entry.
        case entry(CacheEntry)
        /// A 206: the bytes `range` of a representation of `completeLength` bytes, saved as a part of
        /// the partial entry `entry` stands for, by the store's rule for parts (RFC 9111 §3.3, §3.4).
        case part(CacheEntry, range: ByteRange, completeLength: Int64)
        /// A 304 to a GET of `url` (its cache key) in `partition`: it freshens the stored responses it
        /// validates (RFC 9111 §4.3.4) as a 304 received at `responseTime` would, and stores nothing.
        case notModified(url: String, partition: String, head: HTTPResponseHead, requestTime: Date, responseTime: Date)
    }

    /// What to store for `exchange`, as if it had been fetched at its response time: its age and
    /// freshness come from the archived headers and times (RFC 9111 §4.2). A 206 is a part when it
    /// carries one range of a known complete length (`Content-Range: bytes FIRST-LAST/LENGTH`) and is
    /// one the store keeps as a part (``HTTPCachePolicy/storedPart(of:)``: a strong `ETag`, no
    /// content coding).
    ///
    /// - Throws: ``Refusal`` when the exchange is not one the store keeps, or cannot be stored as
    ///   the archive gives it.
    static func stored(for exchange: Exchange) throws(Refusal) -> Stored {
        let url = try requestURL(of: exchange)
        if exchange.status == 304 {
            return .notModified(
                url: url.cacheKey.absoluteString, partition: exchange.partition ?? "guest",
                head: HTTPResponseHead(status: 304, headers: exchange.responseHeaders),
                requestTime: exchange.requestTime, responseTime: exchange.responseTime)
        }
        let entry = try entry(for: exchange, url: url)
        guard entry.status == 206 else { return .entry(entry) }
        let what = "The 206 response for \(entry.url)"
        if let type = entry.headers["Content-Type"]?.trimmingHTTPWhitespace().lowercased(),
            type.hasPrefix("multipart/byteranges")
        {
            throw .unusable("\(what) is multipart/byteranges: the ranges it holds are not kept as parts.")
        }
        let values = entry.headers.values(for: "Content-Range")
        guard values.count == 1 else {
            let fields = values.isEmpty ? "no Content-Range" : "\(values.count) Content-Range fields"
            throw .unusable("\(what) has \(fields), so the place of its bytes in the whole is not known.")
        }
        guard let contentRange = ContentRange(parsing: values[0]), let range = contentRange.range,
            let completeLength = contentRange.completeLength
        else {
            throw .unusable(
                "\(what) has the Content-Range '\(MessageText.excerpt(values[0], limit: 100))', which is not one "
                    + "range of a known complete length (bytes FIRST-LAST/LENGTH).")
        }
        guard entry.decodedFrom == nil,
            HTTPCachePolicy.storedPart(of: HTTPResponseHead(status: 206, headers: entry.headers)) != nil
        else {
            throw .notCacheable("a part without a strong ETag, or of content with a coding, is not kept")
        }
        return .part(entry, range: range, completeLength: completeLength)
    }

    /// The entry for `exchange`, of a final status from 200 to 599 but 304 (the loader's rule,
    /// ``HTTPCachePolicy/storability(status:)``), that the loader would store: its rule for what it
    /// receives (``HTTPCachePolicy/storability(request:response:directives:credentialsArePartitioned:)``)
    /// applied to the archived request and response, as in the partition the exchange is of. In a
    /// signed-in partition, which only its user reads, a response to a request with credentials is
    /// kept as the loader keeps it there; in the guest partition only when it may be shared (§3.5).
    private static func entry(for exchange: Exchange, url: URL) throws(Refusal) -> CacheEntry {
        guard (100...599).contains(exchange.status) else {
            throw .notCacheable("its status \(exchange.status) is not one a cache stores")
        }
        // The loader's rule: an interim (1xx) response is not final (a 304 is taken above).
        if case .notStorable(let reason) = HTTPCachePolicy.storability(status: exchange.status) {
            throw .notCacheable(reason.rawValue)
        }
        let partition = exchange.partition ?? "guest"
        let storability = HTTPCachePolicy.storability(
            request: HTTPRequest(url: url, headers: exchange.requestHeaders),
            response: HTTPResponseHead(status: exchange.status, headers: exchange.responseHeaders),
            credentialsArePartitioned: partition != "guest")
        // A 206 that is not a part is told apart by the caller, with the reason its bytes have no place.
        if case .notStorable(let reason) = storability, reason != .partialContent { throw .notStorable(reason) }
        var headers = exchange.responseHeaders
        headers.remove("Transfer-Encoding")
        headers.remove("Set-Cookie")
        headers.remove("Set-Cookie2")
        var decodedFrom = exchange.decodedFrom
        if let coding = headers[decodedFromField] {
            decodedFrom = coding
            headers.remove(decodedFromField)
            headers.remove("Content-Length")
        }
        let computedKey = VaryKey.secondaryKey(forResponse: headers, request: exchange.requestHeaders)
        guard let varyKey = exchange.varyKey ?? computedKey else {
            throw .notCacheable("it has 'Vary: *', which never matches a request")
        }
        let stored = StoredResponse(
            status: exchange.status, headers: headers, requestTime: exchange.requestTime,
            responseTime: exchange.responseTime, varyKey: varyKey)
        return CacheEntry(
            partition: partition, method: .get, url: url.cacheKey.absoluteString,
            varyKey: varyKey, status: exchange.status, headers: headers, requestTime: exchange.requestTime,
            responseTime: exchange.responseTime, freshUntil: stored.freshUntil, staleUntil: stored.staleUntil,
            pinned: exchange.pinned, decodedFrom: decodedFrom)
    }

    /// The request URL of `exchange`, a GET of an absolute `http` or `https` URL with a host.
    private static func requestURL(of exchange: Exchange) throws(Refusal) -> URL {
        // Made only for a message: an excerpt costs more than the checks.
        var target: String { MessageText.excerpt(exchange.url, limit: 100) }
        guard !exchange.url.isEmpty else {
            throw .unusable("The request has no URL, so its response belongs to no resource.")
        }
        InternationalNames.prepare(forURL: exchange.url)
        guard let url = URL(string: exchange.url) else {
            throw .unusable("The request URL '\(target)' is not a URL, so its response belongs to no resource.")
        }
        guard let scheme = url.scheme?.lowercased(), !scheme.isEmpty else {
            throw .unusable(
                "The request URL '\(target)' is not an absolute URL, so its response belongs to no resource.")
        }
        // Another scheme's URL (data:, blob:, as browsers record them) names no HTTP response.
        guard scheme == "http" || scheme == "https" else {
            throw .notCacheable("its target '\(target)' is not an HTTP URL")
        }
        guard url.isHTTP else {
            throw .unusable("The request URL '\(target)' has no host, so its response belongs to no resource.")
        }
        guard exchange.method.uppercased() == "GET" else {
            throw .notCacheable("it answers a \(exchange.method) request; only GET responses are stored")
        }
        return url
    }
}
