import HTTPCore

/// A `Content-Range` field value (RFC 9110 §14.4): the span a 206 carries and the length of the
/// complete representation, or, in a 416, the length alone.
///
/// ```swift
/// ContentRange(parsing: "bytes 0-499/1234")  // range 0-499, completeLength 1234
/// ContentRange(parsing: "bytes */1234")      // range nil, completeLength 1234
/// ```
public struct ContentRange: Sendable, Hashable, CustomStringConvertible {
    /// The span carried; `nil` for `unsatisfied-range` (`bytes */LENGTH`).
    public var range: ByteRange?
    /// The length of the complete representation; `nil` when the sender wrote `*` (unknown).
    public var completeLength: Int64?

    /// Creates a value from its parts.
    public init(range: ByteRange?, completeLength: Int64?) {
        self.range = range
        self.completeLength = completeLength
    }

    /// Parses `bytes first-last/length`, `bytes first-last/*` or `bytes */length`; `nil` for anything
    /// else, including a last position before the first or at or past a known length, which §14.4
    /// makes invalid.
    public init?(parsing value: String) {
        let text = value.trimmingHTTPWhitespace()
        guard let space = text.firstIndex(of: " "), text[..<space].caseInsensitiveEquals("bytes"),
            let slash = text.firstIndex(of: "/")
        else { return nil }
        let span = text[text.index(after: space)..<slash]
        let total = text[text.index(after: slash)...]
        let length: Int64? = total == "*" ? nil : Self.number(total)
        guard total == "*" || length != nil else { return nil }
        if span == "*" {
            guard let length else { return nil }
            self.init(range: nil, completeLength: length)
            return
        }
        let bounds = span.split(separator: "-", omittingEmptySubsequences: false)
        guard bounds.count == 2, let first = Self.number(bounds[0]), let last = Self.number(bounds[1]), last >= first,
            length.map({ last < $0 }) ?? true
        else { return nil }
        self.init(range: ByteRange(first: first, last: last), completeLength: length)
    }

    /// The field value, such as `bytes 0-499/1234`.
    public var description: String {
        let total = completeLength.map(String.init) ?? "*"
        return "bytes \(range.map(\.description) ?? "*")/\(total)"
    }

    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 18, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        return Int64(text)
    }
}
