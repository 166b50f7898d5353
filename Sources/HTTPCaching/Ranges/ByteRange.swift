/// An inclusive span of byte positions of a representation, `first` to `last` (RFC 9110 §14.1.1),
/// as a satisfiable range request resolves to and as `Content-Range` states it.
public struct ByteRange: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The position of the first byte, from 0.
    public var first: Int64
    /// The position of the last byte, at least ``first``.
    public var last: Int64

    /// Creates the span `first...last`.
    public init(first: Int64, last: Int64) {
        precondition(first >= 0 && last >= first, "A byte range needs 0 <= first <= last, not \(first)-\(last).")
        self.first = first
        self.last = last
    }

    /// The number of bytes in the span.
    public var length: Int64 { last - first + 1 }

    /// The position just past the last byte.
    public var end: Int64 { last + 1 }

    /// `first-last`, as in `Range` and `Content-Range`.
    public var description: String { "\(first)-\(last)" }

    /// Whether the two spans share a byte or touch, so that they make one span together.
    public func touches(_ other: ByteRange) -> Bool {
        first <= other.end && other.first <= end
    }

    /// Whether every byte of `other` is in this span.
    public func contains(_ other: ByteRange) -> Bool {
        first <= other.first && other.last <= last
    }

    public static func < (lhs: ByteRange, rhs: ByteRange) -> Bool {
        (lhs.first, lhs.last) < (rhs.first, rhs.last)
    }

    /// `ranges` sorted, with spans that overlap or touch joined into one.
    public static func coalesced(_ ranges: [ByteRange]) -> [ByteRange] {
        var result: [ByteRange] = []
        for range in ranges.sorted() {
            if let previous = result.last, previous.touches(range) {
                result[result.count - 1].last = max(previous.last, range.last)
            } else {
                result.append(range)
            }
        }
        return result
    }
}

/// One `range-spec` of a `Range` field (RFC 9110 §14.1.1), before it is resolved against a length.
public enum RangeSpec: Sendable, Hashable {
    /// `int-range`: from `first` to `last`, or to the end when `last` is `nil` (`bytes=500-`).
    case from(Int64, to: Int64?)
    /// `suffix-range`: the last `length` bytes (`bytes=-500`).
    case suffix(Int64)

    /// The span this spec selects of a representation of `length` bytes, or `nil` when it is not
    /// satisfiable (§14.1.1): an `int-range` whose first position is at or past the end, a suffix of
    /// 0 bytes, anything of an empty representation; or `nil` for a spec no field can hold (a
    /// negative position, a last position before the first). A last position past the end, or a suffix longer
    /// than the representation, is cut to the representation.
    public func resolved(length: Int64) -> ByteRange? {
        guard length > 0 else { return nil }
        switch self {
        case .from(let first, let last):
            guard first >= 0, first < length, (last ?? first) >= first else { return nil }
            return ByteRange(first: first, last: min(last ?? (length - 1), length - 1))
        case .suffix(let count):
            guard count > 0 else { return nil }
            return ByteRange(first: max(0, length - count), last: length - 1)
        }
    }
}
