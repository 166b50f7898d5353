import Foundation

/// Turns an attribute or CSS value into the absolute URL to fetch, or rejects it.
///
/// It follows the URL Standard's input clean-up: leading and trailing C0 controls and spaces are
/// stripped and tabs and newlines removed anywhere. Empty values, same-document references
/// (`#id`, as in SVG `<use href="#icon">`), and schemes that are never fetched over the network
/// (`javascript:`, `data:`, `about:`, `mailto:`, `blob:`, `tel:`, `sms:`, `vbscript:`) are dropped.
/// The fragment is removed from the result: it is not sent to servers.
enum URLCleaner {
    static let ignoredSchemes: Set<String> = ["javascript", "data", "about", "mailto", "blob", "tel", "sms", "vbscript"]

    /// The absolute, fragment-free URL for `value` relative to `base`, or `nil` when it is not fetchable.
    static func resolve(_ value: String, against base: URL) -> URL? {
        var cleaned = String.UnicodeScalarView()
        for scalar in value.unicodeScalars where scalar != "\t" && scalar != "\n" && scalar != "\r" {
            cleaned.append(scalar)
        }
        var text = Substring(String(cleaned))
        while let first = text.unicodeScalars.first, first.value <= 0x20 { text = text.dropFirst() }
        while let last = text.unicodeScalars.last, last.value <= 0x20 { text = text.dropLast() }
        guard !text.isEmpty, !text.hasPrefix("#") else { return nil }
        if let scheme = scheme(of: text), ignoredSchemes.contains(scheme) { return nil }
        guard let resolved = URL(string: String(text), relativeTo: base) else { return nil }
        if let scheme = resolved.scheme?.lowercased(), ignoredSchemes.contains(scheme) { return nil }
        let absolute = resolved.absoluteString
        let end = absolute.utf8.firstIndex(of: UInt8(ascii: "#")) ?? absolute.endIndex
        return URL(string: String(absolute[..<end]))
    }

    /// The lower-cased scheme of `text` if it starts with one (`[A-Za-z][A-Za-z0-9+.-]*:`).
    private static func scheme(of text: Substring) -> String? {
        guard let colon = text.utf8.firstIndex(of: UInt8(ascii: ":")) else { return nil }
        let candidate = text[..<colon]
        guard let first = candidate.unicodeScalars.first, isASCIILetter(first) else { return nil }
        for scalar in candidate.unicodeScalars {
            guard isASCIILetter(scalar) || ("0"..."9").contains(scalar) || "+-.".unicodeScalars.contains(scalar)
            else { return nil }
        }
        return candidate.lowercased()
    }

    private static func isASCIILetter(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar)
    }
}
