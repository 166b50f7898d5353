import FoundationEssentials
import HTTPCore

extension HTTPCachePolicy {
    // MARK: - Conditional requests (RFC 9111 §4.3.1)

    /// The conditional header fields to validate `selected`: `If-None-Match` with the entity tags of
    /// every matching variant (`selected` first, without repeats), so that the origin can pick any of
    /// them, and `If-Modified-Since` with the `Last-Modified` value of `selected` as received.
    ///
    /// `Date` is never used in place of a missing `Last-Modified`: a change within the same second as
    /// `Date` would then go unseen. Empty when no validator exists.
    public static func conditionalHeaders(selected: StoredResponse, matching: [StoredResponse]) -> HTTPHeaders {
        var headers = HTTPHeaders()
        var tags: [String] = []
        for tag in ([selected] + matching).compactMap(\.etag).map(\.description) where !tags.contains(tag) {
            tags.append(tag)
        }
        if !tags.isEmpty {
            headers.append(name: "If-None-Match", value: tags.joined(separator: ", "))
        }
        if selected.lastModified != nil, let value = selected.headers.firstValue(for: "Last-Modified") {
            headers.append(name: "If-Modified-Since", value: value)
        }
        return headers
    }

    // MARK: - Freshening with 304 (RFC 9111 §4.3.4)

    /// The indices of the stored responses that a 304 `notModified` freshens (§4.3.4).
    ///
    /// - A strong `ETag` in the 304 selects every stored response with the same strong tag, and no
    ///   other; if none has it, nothing is updated.
    /// - Otherwise a weak `ETag` (weak comparison) or, without any `ETag`, a `Last-Modified` equal to
    ///   the stored one selects the most recent such stored response. `Last-Modified` is treated as
    ///   a weak validator.
    /// - A 304 without validators updates the only stored response if that one has none either.
    public static func variantsToFreshen(_ variants: [StoredResponse], notModified: HTTPResponseHead) -> [Int] {
        let tag = notModified.headers.firstValue(for: "ETag").flatMap { EntityTag(parsing: $0) }
        if let tag, !tag.isWeak {
            return variants.indices.filter { variants[$0].etag?.stronglyMatches(tag) == true }
        }
        let lastModified = notModified.headers.firstValue(for: "Last-Modified").flatMap(HTTPDate.parse)
        if tag != nil || lastModified != nil {
            let candidates = variants.indices.filter { index in
                if let tag { return variants[index].etag?.weaklyMatches(tag) == true }
                return variants[index].lastModified == lastModified
            }
            let newest = candidates.max { variants[$1].isMoreRecent(than: variants[$0]) }
            return newest.map { [$0] } ?? []
        }
        if variants.count == 1, !variants[0].hasValidator { return [0] }
        return []
    }

    // MARK: - Freshening with HEAD (RFC 9111 §4.3.5)

    /// Whether a 200 answer to HEAD confirms `stored`, a stored GET response that could have been
    /// chosen for it, so that its fields are updated from the HEAD's (§3.2); otherwise the stored
    /// response is to be considered stale (§4.3.5). It confirms when it carries a validator, every
    /// validator it carries (`ETag`, `Last-Modified`) has the stored value, and its `Content-Length`,
    /// when it has one, is the stored one. A HEAD without any validator confirms nothing: the
    /// representation may have changed unseen.
    public static func headConfirms(_ stored: StoredResponse, head: HTTPResponseHead) -> Bool {
        guard head.status == 200 else { return false }
        let validators = ["ETag", "Last-Modified"].filter { head.headers.contains($0) }
        guard !validators.isEmpty else { return false }
        for name in validators + ["Content-Length"] where head.headers.contains(name) {
            let value = head.headers[name]?.trimmingHTTPWhitespace()
            guard value == stored.headers[name]?.trimmingHTTPWhitespace() else { return false }
        }
        return true
    }

    /// Header fields a 304 or a HEAD response never replaces in a stored response (§3.2):
    /// `Content-Length`; `Content-Encoding`, because a body stored decoded would no longer match
    /// another coding ("a browser might decode the content coding of a response while it is being
    /// received ... Updating that stored metadata with a different Content-Encoding header field
    /// would be problematic"); and `Content-Range`, which describes one message ("implementations
    /// MAY simply ignore such header fields when updating stored responses"). `Content-Type` is
    /// updated: the bytes are stored as received, not parsed, so a corrected type applies to them.
    /// Hop-by-hop fields are excluded too, as they are never stored (§3.1, ``HopByHopFields``).
    public static let fieldsNotUpdated: Set<String> = ["content-length", "content-encoding", "content-range"]

    /// The header fields of a stored response updated by a 304 (§4.3.4) or a HEAD response (§4.3.5),
    /// as §3.2 says: each field of `notModified` replaces every stored line of that name, in the
    /// position of the first one (new names are appended), except ``fieldsNotUpdated`` and the
    /// hop-by-hop fields of ``HopByHopFields`` (those the response's `Connection` names included).
    /// Every other stored field is kept.
    ///
    /// `Date` and `Age` describe a message, not the representation (RFC 9110 §6.6.1, RFC 9111 §5.1),
    /// so they always come from the 304: one it lacks is removed from the stored fields. Kept, an old
    /// `Date` or `Age` would age the freshened response by the time before its validation.
    public static func mergedHeaders(stored: HTTPHeaders, notModified: HTTPHeaders) -> HTTPHeaders {
        let excluded = fieldsNotUpdated.union(HopByHopFields.names(in: notModified))
        var names: [String] = []
        for field in notModified.fields {
            let name = field.name.lowercased()
            if !excluded.contains(name), !names.contains(name) { names.append(name) }
        }
        var fields = stored.fields
        for name in ["date", "age"] where !notModified.contains(name) {
            fields.removeAll { $0.name.caseInsensitiveEquals(name) }
        }
        for name in names {
            let replacement = notModified.fields.filter { $0.name.caseInsensitiveEquals(name) }
            if let first = fields.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) {
                fields.removeAll { $0.name.caseInsensitiveEquals(name) }
                // Every removed line was at `first` or after it, so `first` is still a valid position.
                fields.insert(contentsOf: replacement, at: first)
            } else {
                fields.append(contentsOf: replacement)
            }
        }
        return HTTPHeaders(fields)
    }
}
