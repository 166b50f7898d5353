import Foundation
import Testing
import WebCacheTestSupport

@testable import Discovery

private let d = "https://example.com/dir/"
private let s = "https://static.example.org/root/"

/// Scanning must not depend on where the network splits the bytes: whole, in two chunks at every
/// byte position, and one byte at a time must give the same references.
@Suite struct ChunkingTests {
    static let trickyExpected = [
        "stylesheet \(d)css/main.css?v=1&lang=fr",
        "image \(d)hero-1x.jpg",
        "image \(d)hero-2x.jpg",
        "image \(d)hero.jpg",
        "icon https://example.com/favicon.ico",
        "manifest \(d)app.webmanifest",
        "script \(d)js/app.js",
        "stylesheet \(d)css/print.css",
        "font \(d)fonts/%C3%BCn%C3%AF.woff2",
        "image \(d)bg-1x.png",
        "image \(d)bg-2x.png",
        "image \(d)sp%20ace(1).png",
        "image \(d)body-bg.gif",
        "image \(d)images/na%C3%AFve%20caf%C3%A9.png",
        "image \(d)images/a,1.png",
        "image \(d)images/b.png",
        "image \(d)images/c.png",
        "image \(s)after-base.png",
        "image \(s)lazy.jpg",
        "image \(s)pic.avif",
        "image \(s)pic.jpg",
        "image \(s)sprite.svg",
        "image \(s)svg-image.png",
        "image \(s)svg-style.png",
        "image \(s)fo-bg.png",
        "image \(s)breakout.png",
        "image \(s)div-bg.png",
        "link \(s)page2.html (not requisite)",
        "document \(s)frame.html",
        "image \(s)poster.jpg",
        "embed \(s)flash.swf",
    ]

    static let latin1Expected = [
        "image \(d)caf%C3%A9.png",
        "image \(d)%E2%82%ACuro.png",
        "image \(d)na%C3%AFve.png",
        "image \(d)%C3%BCber.png",
        "link \(d)se%C3%B1or.html (not requisite)",
    ]

    static let cssExpected = [
        "stylesheet https://cdn.example.com/css/reset.css",
        "stylesheet https://cdn.example.com/css/theme.css",
        "font https://cdn.example.com/css/fonts/%C3%BCn%C3%AF.woff2",
        "font https://cdn.example.com/css/fonts/uni.woff",
        "image https://cdn.example.com/css/hero.png",
        "image https://cdn.example.com/css/a%20b.png",
        "image https://cdn.example.com/css/x1.png",
        "image https://cdn.example.com/css/x2.png",
        "image https://cdn.example.com/css/escaped.png",
        "image https://cdn.example.com/shared/d.png",
    ]

    /// The tricky page re-encoded as UTF-16LE with a byte order mark (its `<meta charset>` is ignored).
    static func trickyUTF16() throws -> [UInt8] {
        let text = String(decoding: try fixture("tricky.html"), as: UTF8.self)
        return [0xFF, 0xFE] + text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    static func pages() throws -> [(String, [UInt8], [String])] {
        [
            ("tricky.html", try fixture("tricky.html"), trickyExpected),
            ("tricky.html as UTF-16LE", try trickyUTF16(), trickyExpected),
            ("latin1.html", try fixture("latin1.html"), latin1Expected),
        ]
    }

    @Test func fixturesYieldTheExpectedReferences() throws {
        for (name, bytes, expected) in try Self.pages() {
            #expect(render(scanReferences(bytes)) == expected, "\(name)")
        }
        let cssURL = try #require(URL(string: "https://cdn.example.com/css/site.css"))
        let css = CSSScanner.references(in: try fixture("site.css"), stylesheetURL: cssURL)
        #expect(render(css) == Self.cssExpected)
    }

    /// Thousands of scans: on a thread of its own, so that other tests' tasks are not held up.
    @Test func htmlSplitAtEveryBytePositionGivesTheSameReferences() async throws {
        try await offThePool { try Self.checkEveryHTMLSplit() }
    }

    private static func checkEveryHTMLSplit() throws {
        for (name, bytes, _) in try Self.pages() {
            let whole = scanReferences(bytes)
            for split in 0...bytes.count {
                let parts = scanReferences(bytes, chunks: [split])
                if parts != whole {
                    Issue.record("\(name) split at byte \(split): \(render(parts)) != \(render(whole))")
                    break
                }
            }
            #expect(scanByteByByte(bytes) == whole, "\(name) fed one byte at a time")
        }
    }

    @Test func cssSplitAtEveryBytePositionGivesTheSameReferences() throws {
        let bytes = try fixture("site.css")
        let url = URL(string: "https://cdn.example.com/css/site.css")!
        let whole = CSSScanner.references(in: bytes, stylesheetURL: url)
        for split in 0...bytes.count {
            var scanner = CSSScanner(stylesheetURL: url)
            let parts = scanner.feed(bytes[..<split]) + scanner.feed(bytes[split...]) + scanner.finish()
            if parts != whole {
                Issue.record("site.css split at byte \(split): \(render(parts))")
                break
            }
        }
        var scanner = CSSScanner(stylesheetURL: url)
        var oneByOne: [Reference] = []
        for byte in bytes { oneByOne += scanner.feed([byte]) }
        #expect(oneByOne + scanner.finish() == whole)
    }

    @Test func largeChunksAreScannedInSlices() throws {
        // Given: a page far larger than the decoding slice, with references at both ends.
        let filler = String(repeating: "<p>Lorem ipsum dolor sit amet &amp; more text.</p>\n", count: 4000)
        let page = Array("<img src=first.png>\(filler)<img src=last.png>".utf8)
        #expect(page.count > 2 * HTMLScanner.sliceLength)
        // When
        let found = render(scanReferences(page, charset: "utf-8"))
        // Then
        #expect(found == ["image \(d)first.png", "image \(d)last.png"])
    }
}
