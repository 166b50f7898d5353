import FoundationEssentials
import HTTPCore

/// How a cache answers a request's `Range` field from a complete stored response (RFC 9110 §14,
/// §13.1.5, §13.2.2), as pure functions.
///
/// ```swift
/// switch RangeRequest.answer(request: request, stored: response, length: 10_000) {
/// case .whole: send200()
/// case .partial(let ranges) where ranges.count == 1: send206(ranges[0])   // Content-Range
/// case .partial(let ranges): send206(multipart: ranges)                   // multipart/byteranges
/// case .unsatisfiable: send416()                                          // Content-Range: bytes */10000
/// }
/// ```
public enum RangeRequest {
    /// What to send for a request with respect to its `Range` field.
    public enum Answer: Sendable, Hashable {
        /// The whole representation with 200: there is no usable `Range`, `If-Range` does not hold,
        /// or several ranges cover everything.
        case whole
        /// 206 Partial Content with these spans: one as a single part with `Content-Range`, several
        /// as `multipart/byteranges`, in the order the client listed them unless they were coalesced.
        case partial([ByteRange])
        /// 416 Range Not Satisfiable, with `Content-Range: bytes */LENGTH` (§15.5.17).
        case unsatisfiable
    }

    /// The most `range-spec`s honoured in one field; a field with more is ignored (§14.2: a server
    /// "MAY ignore or reject a Range header field that contains ... a set of many small ranges").
    public static let maximumRangeCount = 100

    /// Parses a `Range` field value (§14.1.1, §14.1.2): `bytes=` (the unit compared without case)
    /// and a comma-separated list of `first-last`, `first-` and `-suffix`, whitespace allowed around
    /// the commas only. `nil` when the value is anything else: another unit, no range, a last
    /// position before the first, a sign or a space inside a range; the field is then ignored.
    /// Positions too large for 64 bits are read as the largest value.
    public static func parse(_ value: String) -> [RangeSpec]? {
        guard let equals = value.firstIndex(of: "="), value[..<equals].caseInsensitiveEquals("bytes") else {
            return nil
        }
        let members = value[value.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
            .map { $0.trimmingHTTPWhitespace() }
        // `1#range-spec`: empty members are allowed between commas, but one spec is needed.
        var specs: [RangeSpec] = []
        for member in members where !member.isEmpty {
            guard let spec = parseSpec(member) else { return nil }
            specs.append(spec)
        }
        return specs.isEmpty ? nil : specs
    }

    private static func parseSpec(_ member: String) -> RangeSpec? {
        guard let dash = member.firstIndex(of: "-") else { return nil }
        let before = member[..<dash]
        let after = member[member.index(after: dash)...]
        if before.isEmpty {
            return position(after).map(RangeSpec.suffix)
        }
        guard let first = position(before) else { return nil }
        if after.isEmpty { return .from(first, to: nil) }
        guard let last = position(after), last >= first else { return nil }
        return .from(first, to: last)
    }

    /// `1*DIGIT` as a position, saturating at `Int64.max`.
    private static func position(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(Int64(byte - 0x30))
            if overflowTimes || overflowSum { return .max }
            value = sum
        }
        return value
    }

    /// How to answer `request` from `stored`, a complete stored response whose content is `length`
    /// bytes long (§14.2, §13.2.2):
    ///
    /// 1. Only a GET for a 200 response has ranges; anything else is answered whole.
    /// 2. A missing or invalid `Range` is ignored: whole.
    /// 3. An `If-Range` that does not hold (``ifRangeHolds(_:stored:)``) means the client's copy is
    ///    another version: whole.
    /// 4. The satisfiable specs (``RangeSpec/resolved(length:)``) are kept; none is
    ///    ``Answer/unsatisfiable``. More than ``maximumRangeCount`` specs are ignored: whole. Of an
    ///    empty representation, a suffix of some bytes is satisfiable (§14.1.1) but selects nothing a
    ///    206 could name: whole (§14.2 lets a server ignore `Range`), as other servers answer.
    /// 5. Several spans that overlap or touch are coalesced and sorted (§14.2: a server "MAY coalesce
    ///    any of the ranges that overlap"); otherwise they keep the client's order. Several ranges
    ///    that make up the whole representation are answered whole, with 200, as cheaper than a
    ///    multipart of one part. A single range is a 206 even when it is everything (`bytes=0-`), which
    ///    media players ask first and expect as 206.
    public static func answer(request: HTTPRequest, stored: StoredResponse, length: Int64) -> Answer {
        guard request.method == .get, stored.status == 200, let field = request.headers["Range"],
            let specs = parse(field), specs.count <= maximumRangeCount
        else { return .whole }
        if let condition = request.headers["If-Range"], !ifRangeHolds(condition, stored: stored) {
            return .whole
        }
        if length == 0, specs.contains(where: { if case .suffix(let count) = $0 { count > 0 } else { false } }) {
            return .whole
        }
        let served = servedRanges(of: specs, length: length)
        guard !served.ranges.isEmpty else { return .unsatisfiable }
        if served.coalesced, served.ranges == [ByteRange(first: 0, last: length - 1)] { return .whole }
        return .partial(served.ranges)
    }

    /// The ranges of content `length` bytes long that `specs` ask for (steps 4 and 5 of
    /// ``answer(request:stored:length:)``): the satisfiable ones, coalesced and sorted when some
    /// overlap or touch (`coalesced`), else in the order asked; none when no spec is satisfiable.
    public static func servedRanges(of specs: [RangeSpec], length: Int64) -> (ranges: [ByteRange], coalesced: Bool) {
        let ranges = specs.compactMap { $0.resolved(length: length) }
        guard ranges.count > 1 else { return (ranges, false) }
        let coalesced = ByteRange.coalesced(ranges)
        return coalesced.count == ranges.count ? (ranges, false) : (coalesced, true)
    }

    /// Whether an `If-Range` value holds for `stored` (§13.1.5), so that the range may be sent:
    ///
    /// - an entity tag holds when it matches the stored `ETag` by the strong comparison (a weak tag
    ///   never does);
    /// - an HTTP-date holds when it is the stored `Last-Modified` exactly and that date is a strong
    ///   validator for a cache (RFC 9110 §8.8.2.2): the stored response has a `Date` at least 60
    ///   seconds after it, and no weak `ETag`, which says that its bytes may differ from those of
    ///   another representation of the same version (a copy stored decoded, one the origin compressed),
    ///   so that the date cannot tell them apart either;
    /// - anything else does not hold.
    public static func ifRangeHolds(_ value: String, stored: StoredResponse) -> Bool {
        let trimmed = value.trimmingHTTPWhitespace()
        if trimmed.hasPrefix("\"") || trimmed.hasPrefix("W/") {
            guard let tag = EntityTag(parsing: trimmed), let current = stored.etag else { return false }
            return tag.stronglyMatches(current)
        }
        guard let date = HTTPDate.parse(trimmed), let modified = stored.lastModified, let sent = stored.date,
            stored.etag?.isWeak != true
        else {
            return false
        }
        return date == modified && sent.timeIntervalSince(modified) >= 60
    }
}
