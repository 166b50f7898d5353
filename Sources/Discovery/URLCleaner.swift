import FoundationEssentials
import HTTPCore

/// Turns an attribute or CSS value into the absolute URL to fetch, or rejects it.
///
/// It follows the URL Standard's input clean-up: leading and trailing C0 controls and spaces are
/// stripped and tabs and newlines removed anywhere. Empty values, same-document references
/// (`#id`, as in SVG `<use href="#icon">`), and schemes that are never fetched over the network
/// (`javascript:`, `data:`, `about:`, `mailto:`, `blob:`, `tel:`, `sms:`, `vbscript:`) are dropped.
/// The fragment is removed from the result: it is not sent to servers.
///
/// A document's URLs carry its encoding in their query (URL Standard, "encoding-parse a URL"): in a
/// windows-1252 page, `?q=é` is requested as `?q=%E9`, and a character windows-1252 lacks as its
/// numeric character reference (`%26%239731%3B`). Paths, and the queries of UTF-8 and UTF-16
/// documents and of CSS, are UTF-8.
///
/// Most references are plain relative paths (`img/a.png`, `/css/site.css`, `../b.gif?v=2`) against
/// an `http` or `https` base: those are resolved by the merge and dot-segment removal of RFC 3986
/// §5.2 on bytes and parsed once, and the rest go through Foundation's relative resolution.
enum URLCleaner {
    static let ignoredSchemes: Set<String> = ["javascript", "data", "about", "mailto", "blob", "tel", "sms", "vbscript"]

    /// A base URL with the parts the byte-level resolution needs, computed once.
    struct Base: Sendable {
        /// The base URL itself.
        let url: URL
        /// `scheme://authority` of an `http` or `https` base whose path starts with `/`; `nil` otherwise.
        let origin: [UInt8]?
        /// The base's path up to and including its last `/`.
        let directory: [UInt8]
        /// The base's path and query, for a reference that is only a query or empty.
        let path: [UInt8]
        /// Whether ``directory`` may hold a `.` or `..` segment (a segment starting with `.`).
        let directoryMayHoldDots: Bool

        init(_ url: URL) {
            self.url = url
            var bytes = Array(url.absoluteString.utf8)
            if let hash = bytes.firstIndex(of: UInt8(ascii: "#")) { bytes.removeSubrange(hash...) }
            let scheme = url.scheme?.lowercased()
            guard scheme == "http" || scheme == "https",
                let separator = bytes.firstRange(of: Array("://".utf8)),
                let pathStart = bytes[separator.upperBound...].firstIndex(of: UInt8(ascii: "/")),
                !bytes[separator.upperBound..<pathStart].contains(where: { $0 == UInt8(ascii: "?") })
            else {
                origin = nil
                directory = []
                path = []
                directoryMayHoldDots = false
                return
            }
            origin = Array(bytes[..<pathStart])
            let pathAndQuery = bytes[pathStart...]
            let pathEnd = pathAndQuery.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
            let lastSlash = bytes[pathStart..<pathEnd].lastIndex(of: UInt8(ascii: "/"))!
            directory = Array(bytes[pathStart...lastSlash])
            path = Array(bytes[pathStart..<pathEnd])
            directoryMayHoldDots = zip(directory, directory.dropFirst()).contains {
                $0 == UInt8(ascii: "/") && $1 == UInt8(ascii: ".")
            }
        }
    }

    /// The absolute, fragment-free URL for `value` relative to `base`, with its query in
    /// `queryEncoding`, as text (what the URL's `absoluteString` gives), or `nil` when it is not fetchable.
    static func resolve(_ value: String, against base: URL, queryEncoding: TextEncoding = .utf8) -> String? {
        resolve(value, against: Base(base), queryEncoding: queryEncoding)
    }

    /// ``resolve(_:against:queryEncoding:)`` against a base whose parts are already computed.
    static func resolve(_ value: String, against base: Base, queryEncoding: TextEncoding = .utf8) -> String? {
        if let resolved = resolvePlainReference(value, base: base) {
            return resolved.isEmpty ? nil : resolved
        }
        return resolveWithFoundation(value, against: base.url, queryEncoding: queryEncoding)?.absoluteString
    }

    /// The absolute URL's text for a reference made only of bytes a URL holds as they are (no
    /// space, control, non-ASCII, `\\` or `%` that starts no escape) against an `http` or `https`
    /// base: a relative path, an absolute path or a query alone, resolved by RFC 3986 §5.2; or an
    /// `http`/`https` URL or a scheme-relative `//host/…` with a plain host and port, which
    /// Foundation keeps as written. Empty for a fragment-only or empty reference; `nil` for any
    /// other reference, or another base, which Foundation resolves.
    static func resolvePlainReference(_ value: String, base: Base) -> String? {
        guard let origin = base.origin else { return nil }
        var value = value
        return value.withUTF8 { resolvePlainReference($0, origin: origin, base: base) }
    }

    private static func resolvePlainReference(
        _ bytes: UnsafeBufferPointer<UInt8>, origin: [UInt8], base: Base
    ) -> String? {
        var end = bytes.count
        var queryStart: Int?
        var schemeEnd: Int?
        var sawSlash = false
        // Whether a path segment starts with `.`: only then can it be `.` or `..`, which need removing.
        var mayHoldDots = false
        var index = 0
        scan: while index < bytes.count {
            let byte = bytes[index]
            index += 1
            // Most bytes are letters, digits and the like, which decide nothing: passed over first.
            if isPlain(byte) { continue }
            guard URL.holdsAfterHost(byte) else {
                guard byte == UInt8(ascii: "%"), index + 1 < bytes.count, isHexDigit(bytes[index]),
                    isHexDigit(bytes[index + 1])
                else { return nil }
                continue
            }
            let position = index - 1
            switch byte {
            case UInt8(ascii: "#"):
                end = position
                break scan
            case UInt8(ascii: "?"):
                if queryStart == nil { queryStart = position }
            case UInt8(ascii: "/"):
                sawSlash = true
            case UInt8(ascii: "."):
                if queryStart == nil && (position == 0 || bytes[position - 1] == UInt8(ascii: "/")) {
                    mayHoldDots = true
                }
            case UInt8(ascii: ":"):
                if queryStart == nil && !sawSlash && schemeEnd == nil { schemeEnd = position }
            default:
                break
            }
        }
        // Empty and fragment-only references are dropped (same-document references).
        guard end > 0 else { return "" }
        if let schemeEnd {
            // An absolute URL: Foundation keeps an `http` or `https` one with a plain host as written.
            guard isHTTPScheme(UnsafeBufferPointer(rebasing: bytes[..<schemeEnd])),
                hasPlainAuthority(bytes, from: schemeEnd + 1, to: end)
            else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[..<end]), as: UTF8.self)
        }
        if hasPlainAuthority(bytes, from: 0, to: end) {
            // Scheme-relative: the base's scheme, the rest as written.
            let scheme = origin[...origin.firstIndex(of: UInt8(ascii: ":"))!]
            return String(unsafeUninitializedCapacity: scheme.count + end) { output in
                var count = 0
                append(scheme, to: output, &count)
                append(UnsafeBufferPointer(rebasing: bytes[..<end]), to: output, &count)
                return count
            }
        }
        if bytes.count >= 2 && bytes[0] == UInt8(ascii: "/") && bytes[1] == UInt8(ascii: "/") { return nil }
        let pathEnd = queryStart ?? end
        let capacity = origin.count + max(base.directory.count, base.path.count) + end + 1
        return String(unsafeUninitializedCapacity: capacity) { output in
            var count = 0
            append(origin, to: output, &count)
            if pathEnd == 0 {
                // A query alone: the base's path with the new query.
                append(base.path, to: output, &count)
            } else if bytes[0] == UInt8(ascii: "/") {
                let path = UnsafeBufferPointer(rebasing: bytes[0..<pathEnd])
                if mayHoldDots {
                    appendRemovingDotSegments(path, to: output, &count)
                } else {
                    append(path, to: output, &count)
                }
            } else if !mayHoldDots && !base.directoryMayHoldDots {
                // Most relative paths: the merge (RFC 3986 §5.2.3) has no dot segment to remove.
                append(base.directory, to: output, &count)
                append(UnsafeBufferPointer(rebasing: bytes[0..<pathEnd]), to: output, &count)
            } else {
                let directory = base.directory
                withUnsafeTemporaryAllocation(of: UInt8.self, capacity: directory.count + pathEnd) { merged in
                    var length = 0
                    append(directory, to: merged, &length)
                    append(UnsafeBufferPointer(rebasing: bytes[0..<pathEnd]), to: merged, &length)
                    appendRemovingDotSegments(UnsafeBufferPointer(rebasing: merged[..<length]), to: output, &count)
                }
            }
            append(UnsafeBufferPointer(rebasing: bytes[pathEnd..<end]), to: output, &count)
            return count
        }
    }

    /// Whether `bytes` spell `http` or `https` in any case.
    private static func isHTTPScheme(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 4 || bytes.count == 5 else { return false }
        for (index, byte) in bytes.enumerated() where byte | 0x20 != Self.https[index] { return false }
        return true
    }

    private static let https = Array("https".utf8)

    /// Whether `bytes[start..<end]` starts with `//` and an authority Foundation keeps as written:
    /// a host of letters, digits, `-`, `.` and `_`, and a port of one to five digits if any (no user,
    /// no IPv6 or escaped host), up to a `/`, `?` or `end`.
    private static func hasPlainAuthority(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Bool {
        guard end - start > 2, bytes[start] == UInt8(ascii: "/"), bytes[start + 1] == UInt8(ascii: "/") else {
            return false
        }
        var index = start + 2
        while index < end, isHostByte(bytes[index]) { index += 1 }
        guard index > start + 2 else { return false }
        if index < end && bytes[index] == UInt8(ascii: ":") {
            let portStart = index + 1
            index = portStart
            while index < end, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
            guard (1...5).contains(index - portStart) else { return false }
        }
        return index == end || bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?")
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_")
    }

    /// Copies `bytes` to `output` at `count`, advancing `count`: one copy of the run, not a loop
    /// over its bytes (an origin and a path are copied for every reference).
    private static func append(
        _ bytes: UnsafeBufferPointer<UInt8>, to output: UnsafeMutableBufferPointer<UInt8>, _ count: inout Int
    ) {
        guard let source = bytes.baseAddress, !bytes.isEmpty else { return }
        precondition(count + bytes.count <= output.count, "A resolved URL outgrew the room made for it.")
        (output.baseAddress! + count).update(from: source, count: bytes.count)
        count += bytes.count
    }

    private static func append(_ bytes: [UInt8], to output: UnsafeMutableBufferPointer<UInt8>, _ count: inout Int) {
        bytes.withUnsafeBufferPointer { append($0, to: output, &count) }
    }

    private static func append(
        _ bytes: ArraySlice<UInt8>, to output: UnsafeMutableBufferPointer<UInt8>, _ count: inout Int
    ) {
        bytes.withUnsafeBufferPointer { append($0, to: output, &count) }
    }

    /// Appends `path` (absolute) to `output` at `count` with its `.` and `..` segments removed
    /// (RFC 3986 §5.2.4); a `..` above the root stays at the root. What `output` held before stays.
    private static func appendRemovingDotSegments(
        _ path: UnsafeBufferPointer<UInt8>, to output: UnsafeMutableBufferPointer<UInt8>, _ count: inout Int
    ) {
        let start = count
        var index = 0
        while index < path.count {
            // One segment: from this `/` to the next.
            var next = index + 1
            while next < path.count && path[next] != UInt8(ascii: "/") { next += 1 }
            let length = next - index - 1
            let isDot = length == 1 && path[index + 1] == UInt8(ascii: ".")
            let isDotDot = length == 2 && path[index + 1] == UInt8(ascii: ".") && path[index + 2] == UInt8(ascii: ".")
            if isDot || isDotDot {
                if isDotDot {
                    // Back to the last `/` written, if any.
                    var slash = count
                    while slash > start && output[slash - 1] != UInt8(ascii: "/") { slash -= 1 }
                    if slash > start { count = slash - 1 }
                }
                // A final `.` or `..` leaves the directory, with its slash.
                if next == path.count {
                    output[count] = UInt8(ascii: "/")
                    count += 1
                }
            } else {
                append(UnsafeBufferPointer(rebasing: path[index..<next]), to: output, &count)
            }
            index = next
        }
        if count == start {
            output[count] = UInt8(ascii: "/")
            count += 1
        }
    }

    /// Whether a URL holds `byte` after its host as it is (``URL/holdsAfterHost(_:)``) and it is
    /// none of `#`, `.`, `/`, `:` and `?` (bytes 35, 46, 47, 58 and 63), which the resolution looks for.
    private static func isPlain(_ byte: UInt8) -> Bool {
        let bits = URL.afterHostBits
        return URL.holds(byte, low: bits.low & ~(1 << 35 | 1 << 46 | 1 << 47 | 1 << 58 | 1 << 63), high: bits.high)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte | 0x20)
    }

    /// The general resolution, through Foundation, for every reference.
    static func resolveWithFoundation(_ value: String, against base: URL, queryEncoding: TextEncoding) -> URL? {
        var cleaned = String.UnicodeScalarView()
        for scalar in value.unicodeScalars where scalar != "\t" && scalar != "\n" && scalar != "\r" {
            cleaned.append(scalar)
        }
        var text = Substring(String(cleaned))
        while let first = text.unicodeScalars.first, first.value <= 0x20 { text = text.dropFirst() }
        while let last = text.unicodeScalars.last, last.value <= 0x20 { text = text.dropLast() }
        guard !text.isEmpty, !text.hasPrefix("#") else { return nil }
        let explicitScheme = URL.scheme(ofReference: text)
        if let explicitScheme, ignoredSchemes.contains(explicitScheme) { return nil }
        // Only special schemes other than ws(s) take the document's encoding for their query.
        let effectiveScheme = explicitScheme ?? base.scheme?.lowercased() ?? ""
        if queryEncoding.outputEncoding != .utf8, ["http", "https", "ftp", "file"].contains(effectiveScheme) {
            text = Substring(QueryEncoder.encodingQuery(of: text, in: queryEncoding))
        }
        guard let resolved = URL(parsing: String(text), relativeTo: base) else { return nil }
        if let scheme = resolved.scheme?.lowercased(), ignoredSchemes.contains(scheme) { return nil }
        let absolute = resolved.absoluteString
        let end = absolute.utf8.firstIndex(of: UInt8(ascii: "#")) ?? absolute.endIndex
        return URL(string: String(absolute[..<end]))
    }
}
