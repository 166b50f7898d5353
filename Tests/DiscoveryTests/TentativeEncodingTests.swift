import Foundation
import Testing

@testable import Discovery

/// A page that declares nothing is windows-1252 until a `<meta>` says otherwise, as in browsers.
@Suite struct TentativeEncodingTests {
    private let late = Array(("<!--" + String(repeating: "x", count: 1100) + "-->").utf8)

    @Test func aPageThatDeclaresNothingIsWindows1252() {
        let bytes = Array("<img src=\"/pa".utf8) + [0xE9] + Array(".png\">".utf8)
        var scanner = HTMLScanner(documentURL: pageURL)
        #expect(render(scanner.feed(bytes) + scanner.finish()) == ["image https://example.com/pa%C3%A9.png"])
        #expect(scanner.encoding == .windows1252)
    }

    /// The late page: a windows-1252 é before the `<meta>`, a UTF-8 é after it.
    private var switchingToUTF8: [UInt8] {
        late + Array("<img src=\"/a".utf8) + [0xE9] + Array(".png\"><META Charset=utf-8><img src=\"/b".utf8)
            + [0xC3, 0xA9] + Array(".png\">".utf8)
    }

    @Test func aLateMetaCharsetChangesTheEncodingOfWhatFollows() {
        let expected = ["image https://example.com/a%C3%A9.png", "image https://example.com/b%C3%A9.png"]
        var scanner = HTMLScanner(documentURL: pageURL)
        #expect(render(scanner.feed(switchingToUTF8) + scanner.finish()) == expected)
        #expect(scanner.encoding == .utf8)
        #expect(render(scanByteByByte(switchingToUTF8)) == expected)
        for split in stride(from: late.count, to: switchingToUTF8.count, by: 1) {
            let found = render(scanReferences(switchingToUTF8, chunks: [split]))
            #expect(found == expected, "split at \(split)")
            if found != expected { return }
        }
    }

    @Test func aLateHTTPEquivChangesTheEncodingToShiftJIS() {
        let bytes = late + Array(#"<meta http-equiv="content-type" content="text/html; charset=sjis">"#.utf8)
            + Array("<img src=\"/p".utf8) + [0x93, 0xFA, 0x96, 0x7B] + Array(".png?q=".utf8)
            + [0x93, 0xFA, 0x96, 0x7B] + Array("\">".utf8)
        #expect(render(scanReferences(bytes)) == ["image https://example.com/p%E6%97%A5%E6%9C%AC.png?q=%93%FA%96%7B"])
    }

    @Test func onlyTheFirstLateMetaCounts() {
        let bytes = late + Array("<meta charset=windows-1252><meta charset=utf-8><img src=\"/a".utf8) + [0xE9]
            + Array(".png\">".utf8)
        #expect(render(scanReferences(bytes)) == ["image https://example.com/a%C3%A9.png"])
    }

    @Test func aLateMetaDoesNotChangeAnEncodingTheTransportGave() {
        let bytes = late + Array("<meta charset=utf-8><img src=\"/a".utf8) + [0xE9] + Array(".png\">".utf8)
        #expect(render(scanReferences(bytes, charset: "windows-1252")) == ["image https://example.com/a%C3%A9.png"])
    }

    @Test func aMetaInACommentOrAnAttributeChangesNothing() {
        let bytes = late + Array("<!-- <meta charset=utf-8> --><p title='<meta charset=utf-8>'><img src=\"/a".utf8)
            + [0xC3, 0xA9] + Array(".png\">".utf8)
        #expect(render(scanReferences(bytes)) == ["image https://example.com/a%C3%83%C2%A9.png"])
    }
}
