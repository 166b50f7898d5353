import FoundationEssentials
import HTTPCore

/// A character encoding the scanners can decode.
///
/// The labels follow the WHATWG Encoding Standard: `iso-8859-1`, `latin1` and `us-ascii` all mean
/// windows-1252, as they do in browsers, and `utf-16` means UTF-16 little-endian.
public enum TextEncoding: String, Sendable, Hashable, CaseIterable {
    /// UTF-8, the default for documents that declare nothing.
    case utf8 = "UTF-8"
    /// UTF-16 little-endian; chosen by a byte order mark or a transport label.
    case utf16LittleEndian = "UTF-16LE"
    /// UTF-16 big-endian; chosen by a byte order mark or a transport label.
    case utf16BigEndian = "UTF-16BE"
    /// windows-1252, which browsers also use for ISO-8859-1 and US-ASCII labels.
    case windows1252 = "windows-1252"

    /// Finds the encoding for a label such as `utf-8`, `ISO-8859-1` or ` Latin1 `.
    ///
    /// - Returns: `nil` when the label names an encoding this module does not decode.
    public init?(label: String) {
        let key = label.trimmingScalars(in: "\t\n\u{0C}\r ").lowercased()
        guard let encoding = Self.labels[key] else { return nil }
        self = encoding
    }

    private static let labels: [String: TextEncoding] = {
        var table: [String: TextEncoding] = [:]
        let utf8 = ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"]
        let utf16LE = ["csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"]
        let utf16BE = ["unicodefffe", "utf-16be"]
        let windows1252 = [
            "ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100",
            "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252",
            "x-cp1252",
            // x-user-defined is not windows-1252, but a document declaring it is decoded that way.
            "x-user-defined",
        ]
        for label in utf8 { table[label] = .utf8 }
        for label in utf16LE { table[label] = .utf16LittleEndian }
        for label in utf16BE { table[label] = .utf16BigEndian }
        for label in windows1252 { table[label] = .windows1252 }
        return table
    }()
}
