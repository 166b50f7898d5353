import Foundation
import Testing

@testable import Discovery

private let d = "https://example.com/dir/"

/// The byte-level tokenizers skip runs of text, comments, raw text, script data, bogus comments,
/// quoted attribute values, CDATA and CSS comments with a search for the byte that ends them. Each
/// case here puts such a run, and the delimiters that end it, at every split position of two and of
/// three chunks, and the references must be the expected ones every time.
@Suite struct ByteBoundaryTests {
    static let htmlCases: [(String, [String])] = [
        ("text < text<img src=a.png>", ["image \(d)a.png"]),
        ("<!-- <img src=no.png> - -- --!-> --!><img src=a.png><!----><!---><img src=b.png>",
         ["image \(d)a.png", "image \(d)b.png"]),
        ("<?php echo '<img src=no.png' ?><img src=a.png>", ["image \(d)a.png"]),
        ("<!DOCTYPE html PUBLIC \"-//W3C//DTD HTML 4.01//EN\"><!bogus <x>><img src=a.png>", ["image \(d)a.png"]),
        ("<textarea><img src=no.png></textare</textarea\t><img src=a.png>", ["image \(d)a.png"]),
        ("<style>a{background:url(b.png)}</sty</ x{background:url(c.png)}</STYLE ><img src=a.png>",
         ["image \(d)b.png", "image \(d)c.png", "image \(d)a.png"]),
        ("<script><!--<script></script>--><img src=no.png></script><img src=a.png>", ["image \(d)a.png"]),
        ("<script>if (a<b && c<!d) { x = '</scr' + 'ipt>' }</script><img src=a.png>", ["image \(d)a.png"]),
        ("<plaintext><img src=no.png></plaintext>", []),
        ("<img alt=\"a>b\" src=\"x&amp;y.png\" title='q\"r'><img src='a.png'>",
         ["image \(d)x&y.png", "image \(d)a.png"]),
        ("<svg><![CDATA[ <image href=\"no.png\"/> ] ]] ]]]><image href=\"a.png\"/></svg>", ["image \(d)a.png"]),
        ("<svg><style><![CDATA[ .x{fill:url(s.png)} ]]></style></svg>", ["image \(d)s.png"]),
        ("<img src=\"café-€-😀.png\">", ["image \(d)caf%C3%A9-%E2%82%AC-%F0%9F%98%80.png"]),
        ("<IMG data-SRC=lazy.png SRC=a.png>", ["image \(d)a.png", "image \(d)lazy.png"]),
        ("<img src=\"a\0b.png\">", ["image \(d)a%EF%BF%BDb.png"]),
        ("<div style=\"background: url('é.png')\"></div>", ["image \(d)%C3%A9.png"]),
    ]

    @Test(arguments: htmlCases)
    func htmlSplitAnywhereGivesTheExpectedReferences(_ html: String, _ expected: [String]) {
        let bytes = Array(html.utf8)
        #expect(render(scanReferences(bytes, charset: "utf-8")) == expected)
        for first in 0...bytes.count {
            #expect(render(scanReferences(bytes, chunks: [first], charset: "utf-8")) == expected, "split at \(first)")
            for second in stride(from: first, through: min(bytes.count, first + 12), by: 1) {
                let found = render(scanReferences(bytes, chunks: [first, second - first], charset: "utf-8"))
                if found != expected {
                    Issue.record("split at \(first) and \(second): \(found)")
                    return
                }
            }
        }
    }

    static let cssCases: [(String, [String])] = [
        ("/* url(no.png) * / ** */ .a{background:url(a.png)}", ["image https://cdn.example.com/css/a.png"]),
        ("/**/@import 'i.css';/***/.b{background:url( \"b\\2e png\" )}", [
            "stylesheet https://cdn.example.com/css/i.css", "image https://cdn.example.com/css/b.png",
        ]),
        (".c{content:\"/*\";background:url(c.png)}/* */", ["image https://cdn.example.com/css/c.png"]),
        (".é{background:url(é.png)}", ["image https://cdn.example.com/css/%C3%A9.png"]),
        // A byte order mark is not text, whether the first chunk is read in place or held back.
        ("\u{FEFF}url(bom.png)", ["image https://cdn.example.com/css/bom.png"]),
    ]

    /// The CSS rule context reads a declaration that ends where it started in place and copies
    /// the rest (a declaration or prelude cut by a chunk's end, one with a comment, one it reads
    /// for fonts, images or `image-set()`); the whole result, conditions and font uses included,
    /// must not depend on where the chunks end.
    static let cssContextCases = [
        "@import url(\"a.css\") screen and (min-width: 1px);@import 'b.css' print;"
            + ".a > b, #c::after { color: red; margin: 0 auto; border: 1px solid rgba(0, 0, 0, .1);"
            + " font: 400 1rem/1.5 \"Body One\", Helvetica Neue, sans-serif; background: url(a.png) no-repeat }"
            + "@media (min-width: 700px) { .d { padding/**/: 1px; background-image: image-set(\"d.png\" 1x, "
            + "url(d2.png) 2x); } .d { background-image: url(e.png) } }"
            + "@font-face { font-family: \"Body One\"; src: url(f.woff2) format(\"woff2\"), local(x); }"
            + ".e{font-family:Body One,serif;--x:\"y\";color:blue}",
    ]

    @Test(arguments: cssContextCases)
    func cssContextSplitAnywhereGivesTheWholeResult(_ css: String) {
        let document = ScanCorpus.Document(name: "case", bytes: Array(css.utf8), charset: "utf-8")
        let whole = ScanDifferentialTests.scanCSS(document, chunks: nil)
        #expect(whole.contains("d2.png") && whole.contains("screen and (min-width: 1px)") && whole.contains("body one"))
        expectEverySplit(of: document, secondCutsAfter: [1, 7], give: whole, scan: ScanDifferentialTests.scanCSS)
    }

    /// A tag's kept attributes and the element it names, at every split: the references and the
    /// document tree (ids, classes, attributes by name) must be those of the whole page.
    static let htmlTreeCases: [(String, [String])] = [
        ("<html lang=en><body class=\"a b\"><p id=p1 class=x>t<img src=a.png alt=\"\" data-src=l.png"
            + " srcset=\"a.png 1x, a2.png 2x\" alt=dup><picture><source srcset=s.webp type=image/webp>"
            + "<img src=p.png></picture><video poster=v.jpg src=v.mp4><track src=t.vtt></video>"
            + "<PLAINTEXT><img src=no.png>", ["l.png", "\"data-src\"", "s.webp", "t.vtt", "\"lang\""]),
        ("<body><textarea><img src=no.png></TEXTAREA><template><img src=no.png></template>"
            + "<svg><image href=i.png /><style>.s{background:url(s.png)}</style></svg>"
            + "<div style='background: url(\"d.png\")' hidden><a href=l.html>x</a></div>",
         ["i.png", "s.png", "d.png", "l.html", "\"hidden\""]),
    ]

    @Test(arguments: htmlTreeCases)
    func htmlTreeSplitAnywhereGivesTheWholeResult(_ html: String, _ reported: [String]) {
        let document = ScanCorpus.Document(name: "case", bytes: Array(html.utf8), charset: "utf-8")
        let whole = ScanDifferentialTests.scanHTML(document, chunks: nil)
        for text in reported { #expect(whole.contains(text), "\(text)") }
        #expect(!whole.contains("no.png"))
        expectEverySplit(of: document, secondCutsAfter: [1, 5], give: whole, scan: ScanDifferentialTests.scanHTML)
    }

    /// Records an issue for the first split of `document` into three chunks, cut at each position and
    /// again each of `gaps` bytes later, for which `scan` does not give `whole`.
    private func expectEverySplit(
        of document: ScanCorpus.Document, secondCutsAfter gaps: [Int], give whole: String,
        scan: (ScanCorpus.Document, [Int]?) -> String
    ) {
        for first in 0...document.bytes.count {
            for second in gaps.map({ first + $0 }) where second <= document.bytes.count {
                let found = scan(document, [first, second - first, document.bytes.count - second])
                if found != whole {
                    Issue.record("split at \(first) and \(second): \(found)")
                    return
                }
            }
        }
    }

    @Test(arguments: cssCases)
    func cssSplitAnywhereGivesTheExpectedReferences(_ css: String, _ expected: [String]) {
        let bytes = Array(css.utf8)
        let url = URL(string: "https://cdn.example.com/css/site.css")!
        for first in 0...bytes.count {
            for second in first...min(bytes.count, first + 12) {
                var scanner = CSSScanner(stylesheetURL: url, charset: "utf-8")
                let found = scanner.feed(bytes[..<first]) + scanner.feed(bytes[first..<second])
                    + scanner.feed(bytes[second...]) + scanner.finish()
                if render(found) != expected {
                    Issue.record("split at \(first) and \(second): \(render(found))")
                    return
                }
            }
        }
    }
}
