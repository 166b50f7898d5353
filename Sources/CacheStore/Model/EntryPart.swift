import HTTPCore

/// One part of a partial entry (RFC 9111 §3.3): a stored body holding the representation's bytes
/// from ``first`` on.
public struct EntryPart: Sendable, Hashable {
    /// The position, in the complete representation, of the part's first byte.
    public var first: Int64
    /// The number of bytes (the size of its body).
    public var length: Int64
    /// The body that holds the bytes.
    public var bodyID: Int64

    /// Creates a part.
    public init(first: Int64, length: Int64, bodyID: Int64) {
        self.first = first
        self.length = length
        self.bodyID = bodyID
    }

    /// The positions the part holds, in the complete representation.
    public var span: ClosedRange<Int64> { first...(first + length - 1) }

    /// Whether this part holds every byte of `other`.
    func holds(_ other: EntryPart) -> Bool {
        span.contains(other.span.lowerBound) && span.contains(other.span.upperBound)
    }

    /// Where the bytes `range` of a representation are among `parts`: the pieces to read, in
    /// order, each a part and the positions to read of it (from 0, in the part's own body), and the
    /// spans no part holds. Where parts overlap, the one that reaches furthest is read, so that a
    /// range is read from as few parts as possible.
    ///
    /// ```swift
    /// let parts = [EntryPart(first: 0, length: 100, bodyID: 1), EntryPart(first: 200, length: 100, bodyID: 2)]
    /// EntryPart.cover(50...249, with: parts)
    /// // pieces: part 1 at 50...99, part 2 at 0...49; missing: [100...199]
    /// ```
    public static func cover(
        _ range: ClosedRange<Int64>, with parts: [EntryPart]
    ) -> (pieces: [(part: EntryPart, range: ClosedRange<Int64>)], missing: [ClosedRange<Int64>]) {
        var pieces: [(part: EntryPart, range: ClosedRange<Int64>)] = []
        var missing: [ClosedRange<Int64>] = []
        var position = range.lowerBound
        let usable = parts.filter { $0.length > 0 }
        while position <= range.upperBound {
            let holding = usable.filter { $0.span.contains(position) }
            if let best = holding.max(by: { $0.span.upperBound < $1.span.upperBound }) {
                let last = min(best.span.upperBound, range.upperBound)
                pieces.append((best, (position - best.first)...(last - best.first)))
                position = last + 1
            } else {
                let next = usable.map(\.first).filter { $0 > position }.min() ?? (range.upperBound + 1)
                let last = min(next - 1, range.upperBound)
                missing.append(position...last)
                position = last + 1
            }
        }
        return (pieces, missing)
    }
}

/// A partial entry and its parts, ordered by position.
public struct PartialEntry: Sendable, Hashable {
    /// The entry; its ``CacheEntry/completeLength`` is set.
    public var entry: CacheEntry
    /// The parts, ordered by ``EntryPart/first``.
    public var parts: [EntryPart]

    /// The length of the complete representation.
    public var completeLength: Int64 { entry.completeLength ?? 0 }

    /// The header fields of the complete response that parts stored with `headers` make once they
    /// hold all `completeLength` bytes: theirs, without `Content-Range`, with that `Content-Length`.
    public static func completeHeaders(_ headers: HTTPHeaders, completeLength: Int64) -> HTTPHeaders {
        var complete = headers
        complete.remove("Content-Range")
        complete["Content-Length"] = String(completeLength)
        return complete
    }
}

extension PartialEntry {
    /// The spans of the complete representation that the parts hold, in order, with overlapping and
    /// adjoining parts joined: `[0...2_999]` for parts at `0...1_999` and `1_000...2_999`.
    public var heldSpans: [ClosedRange<Int64>] {
        var spans: [ClosedRange<Int64>] = []
        for span in parts.filter({ $0.length > 0 }).map(\.span).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = spans.last, span.lowerBound <= last.upperBound + 1 {
                spans[spans.count - 1] = last.lowerBound...max(last.upperBound, span.upperBound)
            } else {
                spans.append(span)
            }
        }
        return spans
    }

    /// How many bytes of the complete representation the parts hold, each byte once where parts overlap.
    public var heldByteCount: Int64 {
        heldSpans.reduce(0) { $0 + $1.upperBound - $1.lowerBound + 1 }
    }
}
