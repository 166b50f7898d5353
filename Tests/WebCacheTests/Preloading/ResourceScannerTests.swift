import Discovery
import Foundation
import HTTPCore
import Testing

@testable import WebCache

@Suite struct ResourceScannerTests {
    @Test(arguments: [
        ("text/html; charset=utf-8", ResourceScanner.MediaType.html),
        (" Text/CSS ", .css),
        ("\tApplication/Manifest+JSON\t;profile=x", .manifest),
        ("APPLICATION/XHTML+XML", .html),
        ("text/html;", .html),
        ("text/htmlx", .other),
        ("text/ html", .other),
        ("image/png", .other),
        (";charset=utf-8", .missing),
        ("", .missing),
        (" \t ", .missing),
        ("T\u{E9}XT/html", .other),
    ])
    func theMediaTypeIsWhatComesBeforeTheFirstSemicolonTrimmedWithoutASCIICase(
        value: String, expected: ResourceScanner.MediaType
    ) {
        #expect(ResourceScanner.mediaType(of: value) == expected)
    }

    /// A scanner fed a body in pieces keeps its state from one piece to the next: the references,
    /// the font families and the document's elements are those of the body fed whole.
    @Test(arguments: ["text/html", "text/css"])
    func aBodyFedInPiecesGivesWhatItGivesWhole(contentType: String) throws {
        let body = contentType == "text/html"
            ? #"<html><head><link rel=stylesheet href="/a.css"><style>p { font-family: Serif1 }</style></head>"#
                + #"<body><img src="/one.png" srcset="/two.png 2x"><p class=x>text</p><script src=/s.js></script>"#
                + "</body></html>"
            : #"@import "b.css"; p { font-family: Serif2; background: url(/bg.png) } @font-face { src: url(/f.woff2) }"#
        let url = try #require(URL(string: "http://origin.test/page.html"))
        let item = PreloadItem(url: url, kind: contentType == "text/html" ? nil : .stylesheet, depth: 0)
        func scan(inPiecesOf size: Int) throws -> (references: [String], families: Set<FontFamilyUse>, document: Bool) {
            var scanner = ResourceScanner(
                for: item, url: url, headers: ["Content-Type": contentType], includesMedia: true)
            let bytes = Data(body.utf8)
            var found: [Reference] = []
            for start in stride(from: 0, to: bytes.count, by: size) {
                found += scanner.feed(bytes.subdata(in: start..<min(start + size, bytes.count)))
            }
            found += try scanner.finish()
            return (found.map(\.urlString), scanner.usedFontFamilies, scanner.documentTree != nil)
        }
        let whole = try scan(inPiecesOf: 1 << 20)
        #expect(whole.references.count >= 3)
        #expect(!whole.families.isEmpty)
        #expect(whole.document == (contentType == "text/html"))
        for size in [1, 3, 17] {
            let pieces = try scan(inPiecesOf: size)
            #expect(pieces.references == whole.references, "pieces of \(size)")
            #expect(pieces.families == whole.families, "pieces of \(size)")
            #expect(pieces.document == whole.document, "pieces of \(size)")
        }
    }
}
