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
    ]

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
