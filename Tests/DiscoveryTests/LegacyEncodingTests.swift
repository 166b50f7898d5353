import Foundation
import Testing

@testable import Discovery

/// Pages in the legacy encodings of the WHATWG Encoding Standard: paths are requested in UTF-8,
/// queries in the page's encoding (URL Standard), as Chromium does. The bytes and the expected
/// escapes were worked out with Python's codecs (`'日本'.encode('cp932')`), not with iconv.
@Suite struct LegacyEncodingTests {
    /// A label, a word in that encoding, the word's path escapes (UTF-8) and its query escapes.
    static let words: [(String, [UInt8], String, String)] = [
        ("shift_jis", [0x93, 0xFA, 0x96, 0x7B], "%E6%97%A5%E6%9C%AC", "%93%FA%96%7B"),
        ("euc-kr", [0xC7, 0xD1, 0xB1, 0xB9], "%ED%95%9C%EA%B5%AD", "%C7%D1%B1%B9"),
        ("gbk", [0xD6, 0xD0, 0xCE, 0xC4], "%E4%B8%AD%E6%96%87", "%D6%D0%CE%C4"),
        ("gb18030", [0xD6, 0xD0, 0x81, 0x39, 0xEE, 0x39], "%E4%B8%AD%E3%90%80", "%D6%D0%819%EE9"),
        ("big5", [0xA4, 0xA4, 0xA4, 0xE5], "%E4%B8%AD%E6%96%87", "%A4%A4%A4%E5"),
        ("iso-8859-2", [0xB3, 0xF3, 0xBC], "%C5%82%C3%B3%C5%BA", "%B3%F3%BC"),
        ("windows-1251", [0xC4, 0xEE, 0xEC], "%D0%94%D0%BE%D0%BC", "%C4%EE%EC"),
        ("koi8-r", [0xE4, 0xCF, 0xCD], "%D0%94%D0%BE%D0%BC", "%E4%CF%CD"),
        (
            "iso-2022-jp", [0x1B, 0x24, 0x42, 0x46, 0x7C, 0x4B, 0x5C, 0x1B, 0x28, 0x42], "%E6%97%A5%E6%9C%AC",
            "%1B$BF%7CK%5C%1B(B"
        ),
        ("euc-jp", [0xC6, 0xFC, 0xCB, 0xDC], "%E6%97%A5%E6%9C%AC", "%C6%FC%CB%DC"),
    ]

    @Test func glibcDecodesAndEncodesEveryEncoding() {
        for encoding in TextEncoding.allCases {
            #expect(TextDecoder(encoding: encoding).encoding == encoding, "\(encoding)")
            if let name = encoding.iconvEncoderName {
                #expect(IconvConverter(from: "UTF-8", to: name) != nil, "\(encoding)")
            }
        }
    }

    /// `<img src="/p…​.png?q=…">` with the word in both places.
    private static func image(_ word: [UInt8]) -> [UInt8] {
        Array("<img src=\"/p".utf8) + word + Array(".png?q=".utf8) + word + Array("\">".utf8)
    }

    @Test(arguments: words)
    func decodesAPageDeclaredByMeta(_ label: String, _ word: [UInt8], _ path: String, _ query: String) {
        let bytes = Array("<html><head><meta charset=\"\(label)\"></head>".utf8) + Self.image(word)
        #expect(render(scanReferences(bytes)) == ["image https://example.com/p\(path).png?q=\(query)"], "\(label)")
    }

    @Test(arguments: words)
    func decodesAPageLabelledByTheTransportSplitAnywhere(
        _ label: String, _ word: [UInt8], _ path: String, _ query: String
    ) {
        let bytes = Self.image(word) + Self.image(word)
        let expected = Array(repeating: "image https://example.com/p\(path).png?q=\(query)", count: 2)
        #expect(render(scanByteByByte(bytes, charset: label)) == expected, "\(label)")
        for split in 1..<bytes.count {
            let found = render(scanReferences(bytes, chunks: [split], charset: label))
            #expect(found == expected, "\(label) split at \(split)")
            if found != expected { return }
        }
    }

    @Test func aCopyOfTheScannerKeepsTheStateOfAStatefulEncoding() {
        // ISO-2022-JP: ESC $ B switches to JIS X 0208 (日 is F|), ESC ( B back to ASCII.
        let head: [UInt8] = Array("<img src=\"/".utf8) + [0x1B, 0x24, 0x42, 0x46, 0x7C]
        let rest: [UInt8] = [0x4B, 0x5C, 0x1B, 0x28, 0x42] + Array(".png\">".utf8)
        var scanner = HTMLScanner(documentURL: pageURL, charset: "iso-2022-jp")
        _ = scanner.feed(head)
        var copy = scanner
        let expected = ["image https://example.com/%E6%97%A5%E6%9C%AC.png"]
        #expect(render(copy.feed(rest) + copy.finish()) == expected)
        #expect(render(scanner.feed(rest) + scanner.finish()) == expected)
    }

    static let invalidPages: [(String, [UInt8], String)] = [
        // A lead byte before an ASCII byte: U+FFFD, and the ASCII byte is itself.
        ("shift_jis", [0x81, 0x2E, 0x70, 0x6E, 0x67], "%EF%BF%BD.png"),
        // A lead byte before the closing quote.
        ("shift_jis", [0x93], "%EF%BF%BD"),
        // A byte that starts nothing.
        ("euc-kr", [0xFF, 0x61], "%EF%BF%BDa"),
        ("gb18030", [0x81, 0x30, 0x81, 0x20, 0x61], "%EF%BF%BD0%EF%BF%BD%20a"),
        ("big5", [0xFF, 0xA4, 0xA4], "%EF%BF%BD%E4%B8%AD"),
        // Bytes ISO-8859-6 leaves undefined.
        ("iso-8859-6", [0xA1, 0x61], "%EF%BF%BDa"),
        // An escape sequence ISO-2022-JP does not know.
        ("iso-2022-jp", [0x1B, 0x24, 0x5A, 0x61], "%EF%BF%BD$Za"),
    ]

    @Test(arguments: invalidPages)
    func replacesInvalidSequencesAndGoesOn(_ label: String, _ value: [UInt8], _ path: String) {
        let bytes = Array("<img src=\"/a".utf8) + value + Array("\"><img src=\"/b.png\">".utf8)
        let found = render(scanReferences(bytes, charset: label))
        #expect(found == ["image https://example.com/a\(path)", "image https://example.com/b.png"], "\(label)")
    }

    @Test func aSequenceCutOffByTheEndOfTheDocumentIsReplaced() {
        var scanner = HTMLScanner(documentURL: pageURL, charset: "shift_jis")
        _ = scanner.feed(Array("<div id=\"x".utf8) + [0x93])
        _ = scanner.finish()
        // The tag is cut off too, so nothing is reported; the decoder must not lose or crash on it.
        #expect(scanner.documentTree.elements.allSatisfy { $0.name != "div" })
    }

    @Test func replacementLabelsDecodeToASingleReplacementCharacter() {
        #expect(scan(#"<meta charset="iso-2022-kr"><img src="a.png">"#).isEmpty)
        #expect(render(scanReferences(Array(#"<img src="a.png">"#.utf8), charset: "hz-gb-2312")).isEmpty)
    }

    @Test func aStylesheetInShiftJISDeclaredByCharset() {
        let bytes =
            Array("@charset \"Shift_JIS\";\nbody { background: url(/p".utf8) + [0x93, 0xFA, 0x96, 0x7B]
            + Array(".png?q=".utf8) + [0x93, 0xFA, 0x96, 0x7B] + Array(") }".utf8)
        let url = URL(string: "https://example.com/css/a.css")!
        var scanner = CSSScanner(stylesheetURL: url)
        let found = scanner.feed(bytes) + scanner.finish()
        // URLs in CSS take UTF-8 for their query, whatever the stylesheet's encoding.
        #expect(found.map(\.url.absoluteString)
            == ["https://example.com/p%E6%97%A5%E6%9C%AC.png?q=%E6%97%A5%E6%9C%AC"])
        #expect(scanner.encoding == .shiftJIS)
    }

    @Test func aCharacterTheEncodingLacksBecomesItsReferenceInTheQuery() {
        // ☃ has no Shift_JIS bytes; 日 has.
        let bytes = Array(#"<meta charset="shift_jis"><img src="a.png?q="#.utf8) + [0x93, 0xFA]
            + Array("&#9731;\">".utf8)
        #expect(render(scanReferences(bytes)) == ["image https://example.com/dir/a.png?q=%93%FA%26%239731%3B"])
    }
}
