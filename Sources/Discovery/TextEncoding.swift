import FoundationEssentials
import HTTPCore

/// An encoding of the WHATWG Encoding Standard, which the scanners decode and URL queries are
/// encoded in.
///
/// The raw value is the encoding's name in the standard, and ``init(label:)`` takes its labels
/// as browsers do: `iso-8859-1`, `latin1` and `us-ascii` all mean windows-1252, `utf-16` means
/// UTF-16 little-endian, `sjis` means Shift_JIS. x-user-defined is read as windows-1252.
///
/// UTF-8, UTF-16 and windows-1252 are decoded here; the other legacy encodings through glibc's
/// iconv. A document in an encoding whose iconv module is missing is read as UTF-8.
public enum TextEncoding: String, Sendable, Hashable, CaseIterable {
    /// UTF-8; the default for stylesheets that declare nothing.
    case utf8 = "UTF-8"
    /// UTF-16 little-endian; chosen by a byte order mark or a transport label.
    case utf16LittleEndian = "UTF-16LE"
    /// UTF-16 big-endian; chosen by a byte order mark or a transport label.
    case utf16BigEndian = "UTF-16BE"
    /// windows-1252, which browsers also use for ISO-8859-1 and US-ASCII labels, and the default
    /// for HTML documents that declare nothing.
    case windows1252 = "windows-1252"

    /// The DOS Cyrillic code page.
    case ibm866 = "IBM866"
    /// Latin-2 (Central European).
    case iso8859_2 = "ISO-8859-2"
    /// Latin-3 (South European).
    case iso8859_3 = "ISO-8859-3"
    /// Latin-4 (North European).
    case iso8859_4 = "ISO-8859-4"
    /// Latin/Cyrillic.
    case iso8859_5 = "ISO-8859-5"
    /// Latin/Arabic.
    case iso8859_6 = "ISO-8859-6"
    /// Latin/Greek.
    case iso8859_7 = "ISO-8859-7"
    /// Latin/Hebrew, in visual order.
    case iso8859_8 = "ISO-8859-8"
    /// Latin/Hebrew, in logical order (the same characters as ISO-8859-8).
    case iso8859_8I = "ISO-8859-8-I"
    /// Latin-6 (Nordic).
    case iso8859_10 = "ISO-8859-10"
    /// Latin-7 (Baltic).
    case iso8859_13 = "ISO-8859-13"
    /// Latin-8 (Celtic).
    case iso8859_14 = "ISO-8859-14"
    /// Latin-9 (Latin-1 with the euro sign).
    case iso8859_15 = "ISO-8859-15"
    /// Latin-10 (South-Eastern European).
    case iso8859_16 = "ISO-8859-16"
    /// Russian KOI8.
    case koi8R = "KOI8-R"
    /// Ukrainian KOI8 (with the Belarusian letters of KOI8-RU, as in the standard).
    case koi8U = "KOI8-U"
    /// Mac OS Roman.
    case macintosh = "macintosh"
    /// Thai.
    case windows874 = "windows-874"
    /// Central European Windows code page.
    case windows1250 = "windows-1250"
    /// Cyrillic Windows code page.
    case windows1251 = "windows-1251"
    /// Greek Windows code page.
    case windows1253 = "windows-1253"
    /// Turkish Windows code page (also ISO-8859-9).
    case windows1254 = "windows-1254"
    /// Hebrew Windows code page.
    case windows1255 = "windows-1255"
    /// Arabic Windows code page.
    case windows1256 = "windows-1256"
    /// Baltic Windows code page.
    case windows1257 = "windows-1257"
    /// Vietnamese Windows code page.
    case windows1258 = "windows-1258"
    /// Mac OS Cyrillic.
    case xMacCyrillic = "x-mac-cyrillic"
    /// Simplified Chinese (also GB2312); decoded as gb18030, encoded without four-byte sequences.
    case gbk = "GBK"
    /// Simplified Chinese, the whole of Unicode.
    case gb18030 = "gb18030"
    /// Traditional Chinese, with the Hong Kong supplement.
    case big5 = "Big5"
    /// Japanese EUC.
    case eucJP = "EUC-JP"
    /// Japanese ISO-2022 (stateful: escape sequences switch character sets).
    case iso2022JP = "ISO-2022-JP"
    /// Japanese Shift_JIS, as Windows extends it (code page 932).
    case shiftJIS = "Shift_JIS"
    /// Korean (the Unified Hangul Code of Windows code page 949).
    case eucKR = "EUC-KR"
    /// What labels of encodings browsers refuse (ISO-2022-KR, ISO-2022-CN, HZ-GB-2312) mean: a
    /// document decodes to a single U+FFFD.
    case replacement = "replacement"

    /// Finds the encoding for a label such as `utf-8`, `ISO-8859-1`, ` Latin1 ` or `shift_jis`.
    ///
    /// - Returns: `nil` when the label is none of the Encoding Standard's.
    public init?(label: String) {
        let key = label.trimmingScalars(in: "\t\n\u{0C}\r ").lowercased()
        guard let encoding = Self.labels[key] else { return nil }
        self = encoding
    }

    /// The encoding URLs take for their query (Encoding Standard, "get an output encoding"):
    /// UTF-8 for UTF-16 and for replacement, which have no encoder of their own.
    var outputEncoding: TextEncoding {
        switch self {
        case .utf16LittleEndian, .utf16BigEndian, .replacement: .utf8
        default: self
        }
    }

    /// The name under which glibc's iconv decodes the encoding, or `nil` for those decoded here.
    ///
    /// The choices follow what browsers decode: Shift_JIS with the Windows extensions (CP932, where
    /// `\` and `~` are themselves rather than ¥ and ‾), EUC-KR as its superset CP949, GBK as
    /// gb18030, Big5 with HKSCS, EUC-JP with the NEC and IBM rows, KOI8-U with KOI8-RU's letters.
    var iconvDecoderName: String? {
        switch self {
        case .utf8, .utf16LittleEndian, .utf16BigEndian, .windows1252, .replacement: nil
        case .ibm866: "IBM866"
        case .iso8859_2, .iso8859_3, .iso8859_4, .iso8859_5, .iso8859_6, .iso8859_7, .iso8859_8, .iso8859_10,
            .iso8859_13, .iso8859_14, .iso8859_15, .iso8859_16:
            rawValue
        case .iso8859_8I: "ISO-8859-8"
        case .koi8R: "KOI8-R"
        case .koi8U: "KOI8-RU"
        case .macintosh: "MACINTOSH"
        case .windows874: "CP874"
        case .windows1250, .windows1251, .windows1253, .windows1254, .windows1255, .windows1256, .windows1257,
            .windows1258:
            "CP" + rawValue.dropFirst("windows-".count)
        case .xMacCyrillic: "MAC-CYRILLIC"
        case .gbk, .gb18030: "GB18030"
        case .big5: "BIG5-HKSCS"
        case .eucJP: "EUC-JP-MS"
        case .iso2022JP: "ISO-2022-JP"
        case .shiftJIS: "CP932"
        case .eucKR: "CP949"
        }
    }

    /// The name under which glibc's iconv encodes the encoding; as ``iconvDecoderName`` but for
    /// GBK, whose encoder has no four-byte sequences.
    var iconvEncoderName: String? {
        self == .gbk ? "GBK" : iconvDecoderName
    }

    /// The Encoding Standard's labels of the encoding, in lower case.
    private var labels: [String] {
        switch self {
        case .utf8: ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"]
        case .utf16LittleEndian:
            ["csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"]
        case .utf16BigEndian: ["unicodefffe", "utf-16be"]
        case .windows1252:
            [
                "ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100",
                "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252",
                "x-cp1252",
                // x-user-defined is not windows-1252, but a document declaring it is decoded that way.
                "x-user-defined",
            ]
        case .ibm866: ["866", "cp866", "csibm866", "ibm866"]
        case .iso8859_2: Self.isoLabels(2, year: 1987, extra: ["csisolatin2", "iso-ir-101", "l2", "latin2"])
        case .iso8859_3: Self.isoLabels(3, year: 1988, extra: ["csisolatin3", "iso-ir-109", "l3", "latin3"])
        case .iso8859_4: Self.isoLabels(4, year: 1988, extra: ["csisolatin4", "iso-ir-110", "l4", "latin4"])
        case .iso8859_5: Self.isoLabels(5, year: 1988, extra: ["csisolatincyrillic", "cyrillic", "iso-ir-144"])
        case .iso8859_6:
            Self.isoLabels(6, year: 1987, extra: [
                "arabic", "asmo-708", "csiso88596e", "csiso88596i", "csisolatinarabic", "ecma-114", "iso-8859-6-e",
                "iso-8859-6-i", "iso-ir-127",
            ])
        case .iso8859_7:
            Self.isoLabels(7, year: 1987, extra: [
                "csisolatingreek", "ecma-118", "elot_928", "greek", "greek8", "iso-ir-126", "sun_eu_greek",
            ])
        case .iso8859_8:
            Self.isoLabels(8, year: 1988, extra: [
                "csiso88598e", "csisolatinhebrew", "hebrew", "iso-8859-8-e", "iso-ir-138", "visual",
            ])
        case .iso8859_8I: ["csiso88598i", "iso-8859-8-i", "logical"]
        case .iso8859_10:
            ["csisolatin6", "iso-8859-10", "iso-ir-157", "iso8859-10", "iso885910", "l6", "latin6"]
        case .iso8859_13: ["iso-8859-13", "iso8859-13", "iso885913"]
        case .iso8859_14: ["iso-8859-14", "iso8859-14", "iso885914"]
        case .iso8859_15: ["csisolatin9", "iso-8859-15", "iso8859-15", "iso885915", "iso_8859-15", "l9"]
        case .iso8859_16: ["iso-8859-16"]
        case .koi8R: ["cskoi8r", "koi", "koi8", "koi8-r", "koi8_r"]
        case .koi8U: ["koi8-ru", "koi8-u"]
        case .macintosh: ["csmacintosh", "mac", "macintosh", "x-mac-roman"]
        case .windows874: ["dos-874", "iso-8859-11", "iso8859-11", "iso885911", "tis-620", "windows-874"]
        case .windows1254:
            [
                "cp1254", "csisolatin5", "iso-8859-9", "iso-ir-148", "iso8859-9", "iso88599", "iso_8859-9",
                "iso_8859-9:1989", "l5", "latin5", "windows-1254", "x-cp1254",
            ]
        case .windows1250, .windows1251, .windows1253, .windows1255, .windows1256, .windows1257, .windows1258:
            ["cp" + rawValue.dropFirst("windows-".count), rawValue, "x-cp" + rawValue.dropFirst("windows-".count)]
        case .xMacCyrillic: ["x-mac-cyrillic", "x-mac-ukrainian"]
        case .gbk:
            ["chinese", "csgb2312", "csiso58gb231280", "gb2312", "gb_2312", "gb_2312-80", "gbk", "iso-ir-58", "x-gbk"]
        case .gb18030: ["gb18030"]
        case .big5: ["big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"]
        case .eucJP: ["cseucpkdfmtjapanese", "euc-jp", "x-euc-jp"]
        case .iso2022JP: ["csiso2022jp", "iso-2022-jp"]
        case .shiftJIS: ["csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis", "windows-31j", "x-sjis"]
        case .eucKR:
            [
                "cseuckr", "csksc56011987", "euc-kr", "iso-ir-149", "korean", "ks_c_5601-1987", "ks_c_5601-1989",
                "ksc5601", "ksc_5601", "windows-949",
            ]
        case .replacement: ["csiso2022kr", "hz-gb-2312", "iso-2022-cn", "iso-2022-cn-ext", "iso-2022-kr", "replacement"]
        }
    }

    /// The labels every ISO-8859-`part` encoding from 2 to 9 has, and `extra`.
    private static func isoLabels(_ part: Int, year: Int, extra: [String]) -> [String] {
        ["iso-8859-\(part)", "iso8859-\(part)", "iso8859\(part)", "iso_8859-\(part)", "iso_8859-\(part):\(year)"]
            + extra
    }

    private static let labels: [String: TextEncoding] = {
        var table: [String: TextEncoding] = [:]
        for encoding in allCases {
            for label in encoding.labels { table[label] = encoding }
        }
        return table
    }()
}
