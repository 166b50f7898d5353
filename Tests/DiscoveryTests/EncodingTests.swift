import Foundation
import Testing

@testable import Discovery

private let d = "https://example.com/dir/"

@Suite struct EncodingTests {
    private func utf16(_ text: String, bigEndian: Bool) -> [UInt8] {
        let bom: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        return bom + text.utf16.flatMap { unit in
            bigEndian ? [UInt8(unit >> 8), UInt8(unit & 0xFF)] : [UInt8(unit & 0xFF), UInt8(unit >> 8)]
        }
    }

    @Test(arguments: [false, true])
    func decodesUTF16WithABOM(_ bigEndian: Bool) {
        let bytes = utf16(#"<img src="é😀.png"><meta charset="windows-1252">"#, bigEndian: bigEndian)
        var scanner = HTMLScanner(documentURL: pageURL)
        let found = render(scanner.feed(bytes) + scanner.finish())
        #expect(found == ["image \(d)%C3%A9%F0%9F%98%80.png"])
        #expect(scanner.encoding == (bigEndian ? .utf16BigEndian : .utf16LittleEndian))
    }

    static let latin1Pages: [(String, String?)] = [
        (#"<meta charset="windows-1252">"#, nil),
        (#"<meta charset=ISO-8859-1>"#, nil),
        (#"<meta http-equiv="Content-Type" content="text/html; charset=latin1">"#, nil),
        (#"<META CONTENT='text/html;charset="us-ascii"' HTTP-EQUIV=content-type>"#, nil),
        ("", "iso-8859-1"),
        (#"<meta charset="utf-8">"#, "windows-1252"),
    ]

    @Test(arguments: latin1Pages)
    func decodesWindows1252FromMetaOrTransport(_ head: String, _ charset: String?) {
        let bytes = Array("<html><head>\(head)</head><img src=\"caf".utf8) + [0xE9, 0x80] + Array(".png\">".utf8)
        var scanner = HTMLScanner(documentURL: pageURL, charset: charset)
        let found = render(scanner.feed(bytes) + scanner.finish())
        #expect(found == ["image \(d)caf%C3%A9%E2%82%AC.png"])
        #expect(scanner.encoding == .windows1252)
    }

    static let undeclaredPages: [(String, String)] = [
        ("no declaration", ""),
        ("meta inside a comment", #"<!-- <meta charset="utf-8"> -->"#),
        ("meta in another tag's attribute", #"<div title='<meta charset="utf-8">'>"#),
        ("http-equiv missing", #"<meta content="text/html; charset=utf-8">"#),
        ("unknown label", #"<meta charset="klingon">"#),
    ]

    /// Browsers read a page that declares nothing as windows-1252: UTF-8's é is Ã© there.
    @Test(arguments: undeclaredPages)
    func fallsBackToWindows1252(_ label: String, _ head: String) {
        let bytes = Array("\(head)<img src=\"é.png\">".utf8)
        var scanner = HTMLScanner(documentURL: pageURL)
        let found = render(scanner.feed(bytes) + scanner.finish())
        #expect(found == ["image \(d)%C3%83%C2%A9.png"], "\(label)")
        #expect(scanner.encoding == .windows1252)
    }

    @Test func aUTF16LabelInASCIIBytesMeansUTF8() {
        let bytes = Array(#"<meta charset="utf-16le"><img src="é.png">"#.utf8)
        var scanner = HTMLScanner(documentURL: pageURL)
        #expect(render(scanner.feed(bytes) + scanner.finish()) == ["image \(d)%C3%A9.png"])
        #expect(scanner.encoding == .utf8)
    }

    @Test func theBOMWinsOverTheTransportLabel() {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("<img src=\"é.png\">".utf8)
        var scanner = HTMLScanner(documentURL: pageURL, charset: "windows-1252")
        #expect(render(scanner.feed(bytes) + scanner.finish()) == ["image \(d)%C3%A9.png"])
    }

    @Test func replacesInvalidUTF8() {
        let bytes = Array("<img src=\"a".utf8) + [0xE9, 0xF0, 0x9F] + Array("b.png\">".utf8)
        #expect(render(scanReferences(bytes, charset: "utf-8")) == ["image \(d)a%EF%BF%BD%EF%BF%BDb.png"])
    }

    @Test func decodesUTF8AsTheStandardLibraryDoesSplitAnywhere() {
        // Random mixes of ASCII runs, valid sequences and broken ones in an attribute value, cut
        // into random chunks: the tokenizer keeps the bytes and the value replaces exactly what
        // Swift's own decoder replaces (maximal subparts, as the Encoding Standard does).
        var generator = SystemRandomNumberGenerator()
        let pieces: [[UInt8]] = [
            Array("plain ascii text ".utf8), Array("é".utf8), Array("😀".utf8), Array("€".utf8),
            [0x80], [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x98], [0xFF], [0xED, 0xA0, 0x80], [0xC0, 0xAF], [0x41],
        ]
        for _ in 0..<2_000 {
            var value: [UInt8] = []
            for _ in 0..<Int.random(in: 1...12, using: &generator) {
                value += pieces.randomElement(using: &generator)!
            }
            let bytes = Array("<div id=\"".utf8) + value + Array("\"></div>".utf8)
            var scanner = HTMLScanner(documentURL: pageURL, charset: "utf-8")
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + Int.random(in: 1...8, using: &generator))
                _ = scanner.feed(bytes[offset..<end])
                offset = end
            }
            _ = scanner.finish()
            let id = scanner.documentTree.elements.first { $0.name == "div" }?.id
            let expected = String(decoding: value, as: UTF8.self)
            #expect(id == expected, "\(value)")
            if id != expected { return }
        }
    }

    @Test func holdsBackOnlyUntilTheEncodingIsKnown() {
        var scanner = HTMLScanner(documentURL: pageURL)
        #expect(scanner.feed(Array("<img src=a.png>".utf8)).isEmpty)
        #expect(scanner.encoding == nil)
        #expect(render(scanner.finish()) == ["image \(d)a.png"])

        var labelled = HTMLScanner(documentURL: pageURL, charset: "utf-8")
        #expect(render(labelled.feed(Array("<img src=a.png>".utf8))) == ["image \(d)a.png"])
    }

    static let labels: [(String, TextEncoding?)] = [
        ("utf-8", .utf8), (" UTF8 ", .utf8), ("unicode-1-1-utf-8", .utf8),
        ("utf-16", .utf16LittleEndian), ("UTF-16LE", .utf16LittleEndian), ("utf-16be", .utf16BigEndian),
        ("iso-8859-1", .windows1252), ("latin1", .windows1252), ("US-ASCII", .windows1252), ("cp1252", .windows1252),
        ("shift_jis", .shiftJIS), ("X-SJIS", .shiftJIS), ("windows-31j", .shiftJIS), ("gb2312", .gbk),
        ("GB18030", .gb18030), ("big5-hkscs", .big5), ("ks_c_5601-1987", .eucKR), ("latin2", .iso8859_2),
        ("iso_8859-5:1988", .iso8859_5), ("iso-8859-9", .windows1254), ("koi8-ru", .koi8U), ("tis-620", .windows874),
        ("x-mac-ukrainian", .xMacCyrillic), ("iso-2022-kr", .replacement), ("x-user-defined", .windows1252),
        ("klingon", nil), ("", nil),
    ]

    @Test(arguments: labels)
    func mapsLabelsLikeTheEncodingStandard(_ label: String, _ encoding: TextEncoding?) {
        #expect(TextEncoding(label: label) == encoding)
    }
}

/// A document's URLs carry its encoding in their query (URL Standard, "encoding-parse a URL").
@Suite struct QueryEncodingTests {
    private func scanWindows1252(_ html: String) -> [String] {
        let bytes = html.unicodeScalars.map { scalar -> UInt8 in
            if scalar.isASCII || (0xA0...0xFF).contains(scalar.value) { return UInt8(scalar.value) }
            return scalar == "€" ? 0x80 : UInt8(ascii: "?")
        }
        return render(scanReferences(bytes, charset: "windows-1252"))
    }

    @Test func aWindows1252PageEncodesItsQueriesInWindows1252AndItsPathsInUTF8() {
        #expect(scanWindows1252(#"<img src="café.png?q=café&c=€#é">"#)
            == ["image \(d)caf%C3%A9.png?q=caf%E9&c=%80"])
    }

    @Test func aCharacterWindows1252LacksBecomesItsNumericReference() {
        #expect(scanWindows1252(#"<img src="a.png?q=&#9731;">"#) == ["image \(d)a.png?q=%26%239731%3B"])
    }

    @Test func theBaseURLTakesTheDocumentEncodingToo() {
        #expect(scanWindows1252(#"<base href="/b/?v=é"><img src="?x=é">"#) == ["image https://example.com/b/?x=%E9"])
    }

    @Test func urlsInCSSAreUTF8EvenInAWindows1252Page() {
        #expect(scanWindows1252(#"<div style="background: url(bg.png?q=é)"></div>"#)
            == ["image \(d)bg.png?q=%C3%A9"])
    }

    @Test func escapesAlreadyInAURLAreKeptBesideCharactersThatNeedEncoding() {
        // A browser requests /%C3%A4%20b.png; encoding the % again would name another resource.
        #expect(scan(#"<img src="ä%20b.png?q=ö%26"><link rel=icon href="..\icons\a b.ico">"#, charset: "utf-8")
            == ["image \(d)%C3%A4%20b.png?q=%C3%B6%26", "icon https://example.com/icons/a%20b.ico"])
    }

    @Test func utf8AndUTF16PagesEncodeTheirQueriesInUTF8() {
        #expect(scan(#"<meta charset="utf-8"><img src="a.png?q=é">"#) == ["image \(d)a.png?q=%C3%A9"])
        let units = #"<img src="a.png?q=é">"#.utf16
        let utf16: [UInt8] = [0xFF, 0xFE] + units.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(render(scanReferences(utf16)) == ["image \(d)a.png?q=%C3%A9"])
    }
}
