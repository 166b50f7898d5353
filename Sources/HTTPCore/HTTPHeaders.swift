#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One header field line: a name and its value, as received or to be sent.
public struct HTTPField: Sendable, Hashable {
    /// The field name as written; compare names with ``HTTPHeaders`` lookups, which ignore case.
    public var name: String
    /// The field value with surrounding whitespace removed.
    public var value: String

    /// Creates a field line.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// An ordered list of header fields with case-insensitive lookup by name (RFC 9110 §5).
///
/// Order and repeated lines are kept as they were received, so a stored response can be
/// replayed as it came. Reading a name through the subscript joins repeated lines with `", "`,
/// which RFC 9110 §5.3 makes equivalent for list-based fields.
///
/// ```swift
/// var headers: HTTPHeaders = ["Cache-Control": "max-age=60"]
/// headers.append(name: "Cache-Control", value: "must-revalidate")
/// headers["cache-control"] // "max-age=60, must-revalidate"
/// ```
public struct HTTPHeaders: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// The field lines in order.
    public private(set) var fields: [HTTPField]

    /// Creates headers from field lines, in order.
    public init(_ fields: [HTTPField] = []) {
        self.fields = fields
    }

    /// Creates headers from `name: value` pairs, in order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.fields = elements.map { HTTPField(name: $0.0, value: $0.1) }
    }

    public var startIndex: Int { fields.startIndex }
    public var endIndex: Int { fields.endIndex }
    public subscript(position: Int) -> HTTPField { fields[position] }

    /// The combined value of every line named `name` (case-insensitive), joined by `", "`;
    /// `nil` when there is none. Setting a value replaces every line of that name; setting `nil` removes them.
    public subscript(name: String) -> String? {
        get {
            // Most names have no line or one: answered without collecting the values.
            guard let first = firstIndex(named: name) else { return nil }
            guard firstIndex(named: name, from: first + 1) != nil else { return fields[first].value }
            return values(for: name).joined(separator: ", ")
        }
        set {
            guard let newValue else {
                remove(name)
                return
            }
            if let first = firstIndex(named: name) {
                // Written only when it changes: writing into lines shared with another copy copies them all.
                if fields[first].value != newValue { fields[first].value = newValue }
                var next = firstIndex(named: name, from: first + 1)
                while let index = next {
                    fields.remove(at: index)
                    next = firstIndex(named: name, from: index)
                }
            } else {
                fields.append(HTTPField(name: name, value: newValue))
            }
        }
    }

    /// The value of each line named `name` (case-insensitive), in order.
    public func values(for name: String) -> [String] {
        var values: [String] = []
        var next = firstIndex(named: name)
        while let index = next {
            values.append(fields[index].value)
            next = firstIndex(named: name, from: index + 1)
        }
        return values
    }

    /// The value of the first line named `name` (case-insensitive), `nil` when there is none: the
    /// first of ``values(for:)``, without collecting the others.
    public func firstValue(for name: String) -> String? {
        firstIndex(named: name).map { fields[$0].value }
    }

    /// Whether a line named `name` (case-insensitive) is present.
    public func contains(_ name: String) -> Bool {
        firstIndex(named: name) != nil
    }

    /// The indices of the lines named `name` (case-insensitive), in order.
    public func indices(named name: String) -> [Int] {
        var indices: [Int] = []
        var next = firstIndex(named: name)
        while let index = next {
            indices.append(index)
            next = firstIndex(named: name, from: index + 1)
        }
        return indices
    }

    /// Sets the value of the line at `index`, keeping its name and place: for a caller that knows
    /// where the line is (``indices(named:)`` of headers this copy was made from) and need not look.
    public mutating func setValue(_ value: String, at index: Int) {
        // Written only when it changes: writing into lines shared with another copy copies them all.
        if fields[index].value != value { fields[index].value = value }
    }

    /// The index of the first line from `start` on named `name` (case-insensitive). Names of another
    /// length are passed over on their byte counts, and no line is copied out of the array: a lookup
    /// asked of every field of a response retained and released both strings of each line.
    private func firstIndex(named name: String, from start: Int = 0) -> Int? {
        let count = name.utf8.count
        var index = start
        while index < fields.endIndex {
            if fields[index].name.utf8.count == count, fields[index].name.caseInsensitiveEquals(name) { return index }
            index += 1
        }
        return nil
    }

    /// Appends one line, keeping any lines of the same name.
    public mutating func append(name: String, value: String) {
        fields.append(HTTPField(name: name, value: value))
    }

    /// Removes every line named `name` (case-insensitive).
    public mutating func remove(_ name: String) {
        // Looked for first: removing from lines shared with another copy copies them all, also when
        // none is removed (a request's fields start as a copy of the defaults on every load).
        guard firstIndex(named: name) != nil else { return }
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    /// Removes what stops being true of a response head once a transport has decoded its content
    /// coding: `Content-Encoding` and the coded `Content-Length`.
    ///
    /// - Returns: the coding removed (the `Content-Encoding` value), `nil` when there was none.
    public mutating func removeContentCoding() -> String? {
        guard let coding = self["Content-Encoding"], !coding.caseInsensitiveEquals("identity") else { return nil }
        remove("Content-Encoding")
        remove("Content-Length")
        return coding
    }

    /// Makes a strong `ETag` weak, for content decoded from a content coding. A strong tag names the
    /// exact bytes of one representation (RFC 9110 §8.8.1), the coded one here, so decoded bytes may
    /// only claim to be equivalent to it, as nginx's gzip and Varnish's gunzip do. `If-None-Match`
    /// compares weakly, so a client's revalidation still matches.
    public mutating func weakenEntityTag() {
        for index in fields.indices where fields[index].name.caseInsensitiveEquals("ETag") {
            let tag = fields[index].value.trimmingHTTPWhitespace()
            if tag.hasPrefix("\"") { fields[index].value = "W/" + tag }
        }
    }

    /// The comma-separated list members of every line named `name`, trimmed, empty members dropped
    /// (RFC 9110 §5.6.1). Commas inside quoted strings do not split.
    public func listValues(for name: String) -> [String] {
        // Into one array, line by line: a lazy filter, map and flatMap made an array per line and
        // cost several times the split (every response received has its `Cache-Control` and
        // `Connection` split).
        var members: [String] = []
        var next = firstIndex(named: name)
        while let index = next {
            HTTPHeaders.appendList(fields[index].value, to: &members)
            next = firstIndex(named: name, from: index + 1)
        }
        return members
    }

    /// Splits a list-based field value at commas that are not inside a quoted string.
    ///
    /// Read as bytes, as the grammar is written (RFC 9110 §5.6): the delimiters, quotes and
    /// backslashes are ASCII, so the members are cut without building a `Character` at a time (every
    /// stored response's `Cache-Control` is split on every hit).
    public static func splitList(_ value: String) -> [String] {
        var members: [String] = []
        appendList(value, to: &members)
        return members
    }

    /// Appends the members of a list-based field value (``splitList(_:)``) to `members`.
    private static func appendList(_ value: String, to members: inout [String]) {
        forEachListMember(of: value) { members.append(String(decoding: $0, as: UTF8.self)) }
    }

    /// Calls `body` with the bytes of each member of the list-based field value `value`, in order
    /// (RFC 9110 §5.6.1): split at commas outside quoted strings, the spaces and tabs around each
    /// dropped, empty members skipped. The bytes are valid only inside `body`: readers that keep
    /// only part of a member (a directive's name and value) make strings of that part alone.
    public static func forEachListMember(of value: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        var value = value
        value.withUTF8 { bytes in
            func member(_ range: Range<Int>) {
                if let member = withoutHTTPWhitespace(bytes[range]) { body(UnsafeBufferPointer(rebasing: member)) }
            }
            var start = 0
            var inQuotes = false
            var escaped = false
            for index in bytes.indices {
                let byte = bytes[index]
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") && inQuotes {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inQuotes.toggle()
                } else if byte == UInt8(ascii: ",") && !inQuotes {
                    member(start..<index)
                    start = index + 1
                }
            }
            member(start..<bytes.count)
        }
    }
}

extension HTTPHeaders: CustomStringConvertible {
    /// The field lines, one per line, with credentials redacted (see ``HTTPHeaders/redacted()``).
    public var description: String {
        redacted().fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }
}

extension HTTPHeaders {
    /// Request fields that carry credentials: they go only to the origin they were given for.
    public static let credentialNames = ["Authorization", "Cookie", "Proxy-Authorization"]

    /// Names whose values are secrets: they never appear in logs, errors or `inspect` output.
    public static let sensitiveNames = Set(credentialNames.map { $0.lowercased() } + ["set-cookie"])

    /// A copy in which every sensitive value (``sensitiveNames``) reads `<redacted>`.
    public func redacted() -> HTTPHeaders {
        HTTPHeaders(fields.map { field in
            HTTPHeaders.sensitiveNames.contains(field.name.lowercased())
                ? HTTPField(name: field.name, value: "<redacted>") : field
        })
    }
}

extension StringProtocol {
    /// ASCII case-insensitive comparison, as HTTP field names and tokens are compared.
    ///
    /// Inlinable, so that callers in other modules get it specialised for their string types: every
    /// header lookup runs it once per field line.
    @inlinable
    public func caseInsensitiveEquals(_ other: some StringProtocol) -> Bool {
        // Most names asked of are compared with names of other lengths: the counts decide those.
        guard utf8.count == other.utf8.count else { return false }
        // Native strings compare over their bytes in place: iterating two UTF-8 views in step costs
        // several times more, and a hit compares every stored field's name a few times.
        let inPlace = utf8.withContiguousStorageIfAvailable { lhs in
            other.utf8.withContiguousStorageIfAvailable { rhs in asciiCaseInsensitiveEquals(lhs, rhs) }
        }
        if let inPlace, let equal = inPlace { return equal }
        return zip(utf8, other.utf8).allSatisfy { lhs, rhs in
            lhs == rhs || asciiLower(lhs) == asciiLower(rhs)
        }
    }

    /// The string without leading and trailing spaces and horizontal tabs (HTTP's OWS).
    public func trimmingHTTPWhitespace() -> String {
        withoutHTTPWhitespace(String(self).utf8).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}

/// `bytes` without the spaces and tabs around them (OWS), `nil` when nothing else is in them.
/// Inlinable, so that the modules that trim bytes of their own with it get it specialised.
@inlinable
package func withoutHTTPWhitespace<Bytes: BidirectionalCollection<UInt8>>(_ bytes: Bytes) -> Bytes.SubSequence? {
    guard let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
        let last = bytes.lastIndex(where: { $0 != 0x20 && $0 != 0x09 })
    else { return nil }
    return bytes[first...last]
}

extension StringProtocol {
    /// Whether the string is an HTTP token (RFC 9110 §5.6.2), as a field name or a method must be:
    /// one or more letters, digits and ``!#$%&'*+-.^_`|~``, nothing else.
    public var isHTTPToken: Bool {
        !isEmpty && utf8.allSatisfy(isTokenByte)
    }
}

extension String {
    /// Whether the string holds a CR, LF or NUL, which no field value sent may hold (RFC 9110 §5.5):
    /// found with `memchr`, as a value is most of a field's bytes, which a loop over the UTF-8 view
    /// read at about 30 instructions a byte.
    public var holdsLineBreakOrNUL: Bool {
        var text = self
        return text.withUTF8 { bytes in
            guard let start = bytes.baseAddress, !bytes.isEmpty else { return false }
            return memchr(start, 0x0D, bytes.count) != nil || memchr(start, 0x0A, bytes.count) != nil
                || memchr(start, 0, bytes.count) != nil
        }
    }
}

/// Whether `byte` may stand in an HTTP token (`tchar`, RFC 9110 §5.6.2).
private func isTokenByte(_ byte: UInt8) -> Bool {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
        UInt8(ascii: "a")...UInt8(ascii: "z"):
        return true
    default:
        return "!#$%&'*+-.^_`|~".utf8.contains(byte)
    }
}

/// `byte` lowercased when it is an ASCII capital letter, otherwise as it is.
@inlinable
public func asciiLower(_ byte: UInt8) -> UInt8 {
    (byte >= 65 && byte <= 90) ? byte + 32 : byte
}

/// Whether two byte strings are equal when ASCII letters are compared without case.
public func asciiCaseInsensitiveEquals(_ lhs: UnsafeBufferPointer<UInt8>, _ rhs: UnsafeBufferPointer<UInt8>) -> Bool {
    guard lhs.count == rhs.count else { return false }
    for index in 0..<lhs.count {
        let left = lhs[index]
        let right = rhs[index]
        if left != right, asciiLower(left) != asciiLower(right) { return false }
    }
    return true
}
