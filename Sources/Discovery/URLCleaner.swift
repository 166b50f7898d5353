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
enum URLCleaner {
    static let ignoredSchemes: Set<String> = ["javascript", "data", "about", "mailto", "blob", "tel", "sms", "vbscript"]

    /// The absolute, fragment-free URL for `value` relative to `base`, with its query in
    /// `queryEncoding`, or `nil` when it is not fetchable.
    static func resolve(_ value: String, against base: URL, queryEncoding: TextEncoding = .utf8) -> URL? {
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
