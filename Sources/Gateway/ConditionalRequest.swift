import FoundationEssentials
import HTTPCore

/// A client's `If-None-Match` / `If-Modified-Since`, evaluated against the response the store
/// (or the network) gave, so that a matching validator is answered 304 without a body
/// (RFC 9110 §13.1.2, §13.1.3, §13.2.2).
struct ConditionalRequest: Sendable {
    var ifNoneMatch: [String]?
    var ifModifiedSince: Date?

    /// The conditions in `headers`, or `nil` when there are none.
    init?(_ headers: HTTPHeaders) {
        if headers.contains("If-None-Match") {
            ifNoneMatch = headers.listValues(for: "If-None-Match")
        }
        ifModifiedSince = headers["If-Modified-Since"].flatMap { HTTPDate.parse($0) }
        if ifNoneMatch == nil && ifModifiedSince == nil { return nil }
    }

    /// Whether a 200 response with `headers` is "not modified" for this client. `If-None-Match`
    /// wins over `If-Modified-Since` and uses the weak comparison.
    func isNotModified(responseHeaders headers: HTTPHeaders) -> Bool {
        if let tags = ifNoneMatch {
            // `*` matches any current representation, with a tag or without (RFC 9110 §13.1.2).
            if tags.contains("*") { return true }
            guard let etag = headers["ETag"]?.trimmingHTTPWhitespace() else { return false }
            let opaque = { (tag: String) in tag.hasPrefix("W/") ? String(tag.dropFirst(2)) : tag }
            return tags.contains { opaque($0) == opaque(etag) }
        }
        guard let since = ifModifiedSince,
            let modified = headers["Last-Modified"].flatMap({ HTTPDate.parse($0) })
        else {
            return false
        }
        return modified <= since
    }

    /// The fields a 304 carries (RFC 9110 §15.4.5): those that would update a cache, not the
    /// representation's metadata.
    static let notModifiedFields: Set<String> = [
        "cache-control", "content-location", "date", "etag", "expires", "vary", "last-modified",
    ]
}
