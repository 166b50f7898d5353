import Foundation
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
                return
            }
            origin = Array(bytes[..<pathStart])
            let pathAndQuery = bytes[pathStart...]
            let pathEnd = pathAndQuery.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
            let lastSlash = bytes[pathStart..<pathEnd].lastIndex(of: UInt8(ascii: "/"))!
            directory = Array(bytes[pathStart...lastSlash])
            path = Array(bytes[pathStart..<pathEnd])
        }
    }

    /// The absolute, fragment-free URL for `value` relative to `base`, with its query in
    /// `queryEncoding`, or `nil` when it is not fetchable.
    static func resolve(_ value: String, against base: URL, queryEncoding: TextEncoding = .utf8) -> URL? {
        resolve(value, against: Base(base), queryEncoding: queryEncoding)
    }

    /// ``resolve(_:against:queryEncoding:)`` against a base whose parts are already computed.
    static func resolve(_ value: String, against base: Base, queryEncoding: TextEncoding = .utf8) -> URL? {
        if let origin = base.origin, let resolved = resolvePlainReference(value, origin: origin, base: base) {
            return resolved.isEmpty ? nil : URL(string: String(decoding: resolved, as: UTF8.self))
        }
        return resolveWithFoundation(value, against: base.url, queryEncoding: queryEncoding)
    }

    /// The absolute URL's bytes for a relative reference made only of bytes a URL holds as they are
    /// (no scheme, no `//` authority, no space, control, non-ASCII, `\\` or `%` that starts no
    /// escape), by RFC 3986 §5.2; empty for a fragment-only or empty reference; `nil` for any other.
    static func resolvePlainReference(_ value: String, origin: [UInt8], base: Base) -> [UInt8]? {
        var value = value
        return value.withUTF8 { bytes -> [UInt8]? in
            var end = bytes.count
            var queryStart: Int?
            for index in 0..<bytes.count {
                let byte = bytes[index]
                guard byte < 0x80, plainBytes[Int(byte)] else {
                    guard byte == UInt8(ascii: "%"), index + 2 < bytes.count, isHexDigit(bytes[index + 1]),
                        isHexDigit(bytes[index + 2])
                    else { return nil }
                    continue
                }
                if byte == UInt8(ascii: "#") {
                    end = index
                    break
                }
                if byte == UInt8(ascii: "?") {
                    if queryStart == nil { queryStart = index }
                } else if byte == UInt8(ascii: ":"), queryStart == nil,
                    !bytes[..<index].contains(UInt8(ascii: "/"))
                {
                    return nil
                }
            }
            // Empty and fragment-only references are dropped (same-document references).
            guard end > 0 else { return [] }
            if bytes.count >= 2 && bytes[0] == UInt8(ascii: "/") && bytes[1] == UInt8(ascii: "/") { return nil }
            let pathEnd = queryStart ?? end
            var result = origin
            result.reserveCapacity(origin.count + base.directory.count + end)
            if pathEnd == 0 {
                // A query alone: the base's path with the new query.
                result += base.path
            } else if bytes[0] == UInt8(ascii: "/") {
                appendRemovingDotSegments(UnsafeBufferPointer(rebasing: bytes[0..<pathEnd]), to: &result)
            } else {
                var merged = base.directory
                merged.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[0..<pathEnd]))
                merged.withUnsafeBufferPointer { appendRemovingDotSegments($0, to: &result) }
            }
            result.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[pathEnd..<end]))
            return result
        }
    }

    /// Appends `path` (absolute) with its `.` and `..` segments removed (RFC 3986 §5.2.4).
    private static func appendRemovingDotSegments(_ path: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        let start = output.count
        var index = 0
        while index < path.count {
            // One segment: from this `/` to the next.
            var next = index + 1
            while next < path.count && path[next] != UInt8(ascii: "/") { next += 1 }
            let length = next - index - 1
            let isDot = length == 1 && path[index + 1] == UInt8(ascii: ".")
            let isDotDot = length == 2 && path[index + 1] == UInt8(ascii: ".") && path[index + 2] == UInt8(ascii: ".")
            if isDot || isDotDot {
                if isDotDot, let slash = output[start...].lastIndex(of: UInt8(ascii: "/")) {
                    output.removeSubrange(slash...)
                }
                // A final `.` or `..` leaves the directory, with its slash.
                if next == path.count { output.append(UInt8(ascii: "/")) }
            } else {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: path[index..<next]))
            }
            index = next
        }
        if output.count == start { output.append(UInt8(ascii: "/")) }
    }

    /// The ASCII bytes a plain reference may hold: RFC 3986's unreserved and reserved characters
    /// other than the brackets (as ``URL/init(parsing:relativeTo:)`` keeps them).
    private static let plainBytes: [Bool] = (0..<128).map { value in
        let scalar = Unicode.Scalar(UInt8(value))
        return ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
            || "-._~:/?#@!$&'()*+,;=".unicodeScalars.contains(scalar)
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
        if queryEncoding == .windows1252, ["http", "https", "ftp", "file"].contains(effectiveScheme) {
            text = Substring(windows1252Query(of: text))
        }
        guard let resolved = URL(parsing: String(text), relativeTo: base) else { return nil }
        if let scheme = resolved.scheme?.lowercased(), ignoredSchemes.contains(scheme) { return nil }
        let absolute = resolved.absoluteString
        let end = absolute.utf8.firstIndex(of: UInt8(ascii: "#")) ?? absolute.endIndex
        return URL(string: String(absolute[..<end]))
    }

    /// `text` with every non-ASCII character of its query (from the first `?` to the fragment)
    /// percent-encoded as its windows-1252 byte, or as its numeric character reference when
    /// windows-1252 has no byte for it.
    private static func windows1252Query(of text: Substring) -> String {
        guard let questionMark = text.firstIndex(of: "?") else { return String(text) }
        let queryEnd = text[questionMark...].firstIndex(of: "#") ?? text.endIndex
        var result = String(text[..<questionMark])
        for scalar in text[questionMark..<queryEnd].unicodeScalars {
            if scalar.isASCII {
                result.unicodeScalars.append(scalar)
            } else if let byte = TextDecoder.windows1252Byte(for: scalar) {
                result += "%" + String(byte, radix: 16, uppercase: true)
            } else {
                result += "%26%23\(scalar.value)%3B"
            }
        }
        return result + text[queryEnd...]
    }
}
