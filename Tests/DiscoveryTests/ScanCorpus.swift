import Foundation
import WebCacheTestSupport

@testable import Discovery

/// Documents for the differential scanner tests: the fixtures and pages and stylesheets generated
/// from a fixed seed, built from the constructs the scanners treat specially (comments, raw text,
/// script data escapes, CDATA, character references, CSS escapes, `@font-face`, `image-set()`…),
/// cut and mixed with junk so that every tokenizer state is entered from odd places.
enum ScanCorpus {
    /// One document: its name, bytes and the `charset` label it is scanned with.
    struct Document {
        var name: String
        var bytes: [UInt8]
        var charset: String?
    }

    static let htmlCount = 240
    static let cssCount = 120
    /// Stylesheets made of ``namePiece(_:)``, after the others.
    static let nameCSSCount = 60

    static func htmlDocuments() throws -> [Document] {
        var documents = [
            Document(name: "tricky.html", bytes: try fixture("tricky.html")),
            Document(name: "latin1.html", bytes: try fixture("latin1.html")),
            Document(name: "tricky.html as UTF-16LE", bytes: try ChunkingTests.trickyUTF16()),
        ]
        var random = SeededGenerator(seed: 17)
        for number in 0..<htmlCount {
            documents.append(generatedPage(number, &random))
        }
        return documents
    }

    static func cssDocuments() throws -> [Document] {
        var documents = [Document(name: "site.css", bytes: try fixture("site.css"))]
        var random = SeededGenerator(seed: 1717)
        for number in 0..<cssCount {
            var text = number % 9 == 0 ? "@charset \"utf-8\";\n" : ""
            for _ in 0..<random.below(40) + 1 { text += stylesheetPiece(&random) }
            let bytes = mutated(Array(text.utf8), &random, rate: number % 3 == 0 ? 60 : 0)
            documents.append(Document(name: "generated-\(number).css", bytes: bytes,
                                      charset: number % 11 == 5 ? "windows-1252" : nil))
        }
        random = SeededGenerator(seed: 1718)
        for number in 0..<nameCSSCount {
            var text = ""
            for _ in 0..<random.below(30) + 1 { text += namePiece(&random) }
            let bytes = mutated(Array(text.utf8), &random, rate: number % 2 == 0 ? 20 : 0)
            documents.append(Document(name: "names-\(number).css", bytes: bytes))
        }
        return documents
    }

    // MARK: - HTML

    private static func generatedPage(_ number: Int, _ random: inout SeededGenerator) -> Document {
        var html = ""
        switch number % 7 {
        case 0: html += "<!DOCTYPE html><html><head><meta charset=\"windows-1252\">"
        case 1: html += "<!doctype html>\n<HTML lang=en><HEAD><meta http-equiv=\"Content-Type\" content=\"text/html; charset=utf-8\">"
        case 2: html += "<html><head>"
        default: break
        }
        for _ in 0..<random.below(60) + 1 { html += htmlPiece(&random) }
        let rate = number % 4 == 0 ? 40 : 0
        switch number % 10 {
        case 3:
            // UTF-16LE with a byte order mark.
            let units: [UInt8] = html.utf16.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
            let bytes: [UInt8] = [0xFF, 0xFE] + units
            return Document(name: "generated-\(number).html", bytes: mutated(bytes, &random, rate: rate / 4))
        case 6:
            // windows-1252 by label: non-ASCII bytes are single bytes.
            let bytes = html.unicodeScalars.map { $0.isASCII ? UInt8($0.value) : UInt8(0x80 + $0.value % 0x80) }
            return Document(name: "generated-\(number).html", bytes: mutated(bytes, &random, rate: rate),
                            charset: "iso-8859-1")
        default:
            return Document(name: "generated-\(number).html", bytes: mutated(Array(html.utf8), &random, rate: rate),
                            charset: number % 5 == 0 ? "utf-8" : nil)
        }
    }

    private static let urls = [
        "a.png", "/img/b c.jpg", "../up/x.gif?q=é&amp;r=2", "//cdn.example.net/lib.js", "https://other.test/y.css",
        "#frag", "javascript:void(0)", "data:image/png;base64,AAAA", " \t spaced.png \n", "c%20d.png#top",
        "naïve-café.png", "€uro.svg", "q?a=1&copy=2&amp=3&#x41;&#0;&lt", "emoji-😀.png", "", "  ", "MIXED/Case.PNG",
        "f.woff2", "?only=query", "mailto:x@y.z", "http://[::1]/v6.png", "x\u{0}y.png",
    ]

    private static let words = [
        "text", "more & less", "&amp;", "&copy", "&#169;", "&#x1F600;", "é", "€", "<", ">", "<<", "a<b", "</", "<!",
        "<?php echo 1 ?>", "\n", "\t", "  ", "--", "-->", "]]>", "=", "\"", "'", "&notit;", "&", "\u{0}", "ünï",
    ]

    private static func url(_ random: inout SeededGenerator) -> String { random.pick(urls) }

    private static func quoted(_ value: String, _ random: inout SeededGenerator) -> String {
        switch random.below(4) {
        case 0: "'\(value)'"
        case 1 where !value.contains(" ") && !value.isEmpty && !value.contains(">"): value
        default: "\"\(value)\""
        }
    }

    private static func htmlPiece(_ random: inout SeededGenerator) -> String {
        let u = quoted(url(&random), &random)
        let u2 = url(&random)
        switch random.below(46) {
        case 0: return "<img src=\(u) alt=\"\(random.pick(words))\">"
        case 1: return "<IMG SRC=\(u) SrcSet=\"\(u2) 1x, \(url(&random)) 2x\" sizes=\"(max-width: 600px) 100vw, 50vw\">"
        case 2: return "<picture><source media=\"(min-width: 800px)\" srcset=\"\(u2) 800w\" type=\"image/webp\"><img src=\(u)></picture>"
        case 3: return "<link rel=\"stylesheet\" href=\(u) media=\"print\">"
        case 4: return "<link rel=preload as=image imagesrcset=\"\(u2) 1x, \(url(&random)) 2x\" imagesizes=50vw href=\(u)>"
        case 5: return "<link rel=\"icon apple-touch-icon\" sizes=\"16x16\" type=\"image/png\" href=\(u)>"
        case 6: return "<script src=\(u)></script>"
        case 7: return "<script type=module src=\(u)></script><script nomodule src=\(quoted(u2, &random))></script>"
        case 8: return "<script>var s = \"<!--<script>\"; document.write('<img src=no.png>'); </script>-->\"</script>"
        case 9: return "<script><!-- if (a<b) { x = '</scr' + 'ipt>' } //--></script>"
        case 10:
            return "<style media=screen>@import \"\(u2)\" screen; .a > .b{background:url(\(u2)) no-repeat}"
                + " @font-face{font-family:\"Fancy\";src:url(f.woff2) format(\"woff2\"),url('f.woff')} p{font:12px Fancy}</style>"
        case 11: return "<div style=\"background-image: url('\(u2)'); font-family: Fancy, serif\" class=\"a b  c\" id=x\(random.below(9))>"
        case 12: return "</div>"
        case 13: return "<svg viewBox=\"0 0 1 1\"><image href=\(u)/><use xlink:href=\"\(u2)\"></use>"
                + "<style>.x{fill:url(\(u2))}</style><![CDATA[<img src=cdata.png>]]></svg>"
        case 14: return "<math><mi><img src=\(u)></mi><annotation-xml encoding=\"text/html\"><img src=m.png></annotation-xml></math>"
        case 15: return "<!-- <img src=\(u)> -->"
        case 16: return "<!--->" + random.pick(["<!-->", "<!---->", "<!-- -- --!>", "<!--x--!>"])
        case 17: return "<textarea><img src=\(u)></textarea>"
        case 18: return "<title>\(random.pick(words)) <img src=no.png></title>"
        case 19: return "<template><img src=\(u)><style>a{background:url(t.png)}</style></template>"
        case 20: return "<noscript><img src=\(u)></noscript>"
        case 21: return "<base href=\"https://static.example.org/root/\">"
        case 22: return "<a href=\(u)>\(random.pick(words))</a><area href=\(quoted(u2, &random))>"
        case 23: return "<iframe src=\(u)></iframe><frame src=\(u)>"
        case 24: return "<video poster=\(u) src=\(quoted(u2, &random))><source src=\(u)><track src=t.vtt></video>"
        case 25: return "<object data=\(u)></object><embed src=\(u)>"
        case 26: return "<input type=IMAGE src=\(u)><input type=text src=no.png>"
        case 27: return "<body background=\(u)><table background=\(u)><tr><td background=\(u)>x</table>"
        case 28: return "<svg><font color=red><img src=\(u)></font></svg>"
        case 29: return "<p>\(random.pick(words))<p>\(random.pick(words))<li>x<li>y<dt>d<dd>e"
        case 30: return "<img data-src=\(u) data-srcset=\"\(u2) 2x\" data-lazy-src=\(u) data-original=\(u) data-bg=\(u)>"
        case 31: return "<img src=\(u) src=\"dup.png\" \(random.pick(["/", "//", "= =", "a=", "=b"]))>"
        case 32: return "</script ><script src=\(u) defer></SCRIPT >"
        case 33: return "<script type=\"application/ld+json\" src=\(u)>{\"a\": \"</script>\"}</script>"
        case 34: return "<xmp><img src=\(u)></xmp><iframe><img src=no.png></iframe><noembed></noembed><noframes></noframes>"
        case 35: return "<div id=\"main\" role=\"main\" hidden lang=en data-theme=dark aria-hidden=\"true\" title='\(random.pick(words))'>"
        case 36: return "<img src=\"\(String(repeating: "long/", count: random.below(40)))x.png\">"
        case 37: return "<" + random.pick(["", "/", "!", "?", "a", "A", "-", "1", " "])
        case 38: return random.pick(words)
        case 39: return "<source srcset=\(u)><track src=\(u)>"
        case 40: return "<script><!--<script>alert(1)</script>--></script>"
        case 41: return "<script>a = \"<!--\"; b = '<script>'; c = '-->'; </script>"
        case 42: return "<style>/* </style> */ a{background:url(\(u2))}</style >"
        case 43: return "<svg><desc><img src=\(u)></desc><title><style>b{x:url(\(u2))}</style></title><b>out</b></svg>"
        case 44: return "<button style=\"font: italic bold 12px/30px Georgia, serif\" disabled>go</button>"
        default: return "<plaintext><img src=\(u)>"
        }
    }

    // MARK: - CSS

    private static func stylesheetPiece(_ random: inout SeededGenerator) -> String {
        let u = url(&random)
        let escaped = u.replacingOccurrences(of: "a", with: "\\61 ").replacingOccurrences(of: ")", with: "\\)")
        switch random.below(24) {
        case 0: return "@import \"\(u)\";\n"
        case 1: return "@import url(\(escaped)) screen and (min-width: 600px);\n"
        case 2: return "@import url('\(u)') layer(base) supports(display: grid) print;\n"
        case 3: return ".a, #b > c:hover { background: url(\(escaped)) no-repeat; color: red }\n"
        case 4: return "div { background-image: url(\"\(u)\") !important; }\n"
        case 5: return "@media (max-width: 600px) { .c { background: url('\(u)') } @media print { .d{content:url(\(u))} } }\n"
        case 6: return "@font-face { font-family: 'Fancy \(random.below(3))'; src: url(\(u)) format(\"woff2\") tech(variations), local(x), url(f.woff); }\n"
        case 7: return ".e { background-image: image-set(\"\(u)\" 1x, url(\(u)) 2x type('image/avif'), linear-gradient(red, blue) 3x); }\n"
        case 8: return ".f { background: -webkit-image-set(url(\(u)) 1dppx, '\(u)' 192dpi); }\n"
        case 9: return "/* url(\(u)) @import \"no.css\"; */\n"
        case 10: return ".g { font: italic 12px/1.5 \"Fancy 1\", sans-serif; --brand-font: Fancy 2; }\n"
        case 11: return ".h { cursor: url(\(u)), auto; list-style: url(\(u)); border-image: url(\(u)) 30; mask: url(\(u)); }\n"
        case 12: return ".i { background: url(  \(u)  ); background: url(bad url); background: url(bad\"q); }\n"
        case 13: return ".j { content: \"a\\\"b\\\n c\"; background: url(\\75 rl.png); }\n"
        case 14: return "\\@import \"x.css\"; .k\\:l { background: u\\72 l(esc.png) }\n"
        case 15: return "@keyframes spin { from { background: url(\(u)) } to { transform: rotate(1turn) } }\n"
        case 16: return ".n { & .o { background: url(\(u)) } &:hover { background: url(\(u)) } }\n"
        case 17: return "@supports (display: grid) { .p { background: url(\(u)) } }\n"
        case 18: return "src(\"\(u)\") ; .q { x: src('\(u)') }\n"
        case 19: return random.pick(["{", "}", "(", ")", "url(", "\"", "'", "/*", "*/", "\\", ";", "@", "#", "\n", "é", "@import"])
        case 20: return ".r { background: url(\(u)); }\n.r { background: none }\n@media print { .r { background: url(p.png) } }\n"
        case 21: return "@layer base { .s { background: url(\(u)) } }\n"
        case 22: return ".t{background:url(\(u))}.u{background:url(\(u))}\n"
        default: return "@page { margin: 1cm } @namespace svg url(http://www.w3.org/2000/svg);\n"
        }
    }

    /// Names, numbers and hashes right before parentheses and escapes, which decide whether a
    /// function is `url(`, `image-set(` or `src(`: in any case, escaped, after a digit or `#`, with a
    /// space before the parenthesis, and non-ASCII.
    private static func namePiece(_ random: inout SeededGenerator) -> String {
        let u = url(&random)
        switch random.below(12) {
        case 0: return ".a{background:#u\\72l(\(u)) #url(\(u))}\n"
        case 1: return ".b{background:\\75rl(\(u)) u\\rl(\(u))}\n"
        case 2: return ".c{margin:2url(\(u)) -2url(\(u)) .5url(\(u)) 1e3url(\(u))}\n"
        case 3: return ".d{background:URL(\(u)) Url (\(u))}\n"
        case 4: return ".e{background:image-set(\"\(u)\" 1x)}.f{x:-WEBKIT-image-set(url(\(u)) 2x)}\n"
        case 5: return ".g{x:a\\(url(\(u)) b\\ url(\(u))}\n"
        case 6: return "#h.i>j+k~l{background:x url(\(u)),url(\(u))}\n"
        case 7: return ".m{x:calc(1px + 2px) rgba(0,0,0,.5) var(--u, url(\(u)))}\n"
        case 8: return "@media screen{.n{x:url(\(u))}}@font-face{src:url(\(u))}@import url(\(u));\n"
        case 9: return ".o{x:é(url(\(u))) éurl(\(u)) url\u{00E9}(\(u))}\n"
        case 10: return random.pick(["url", "#", "-", "2", "\\", "(", "u\\72", "image-set", "@import", " ", "src"])
        default: return ".p{x:src(\"\(u)\") src (\"\(u)\")}\n"
        }
    }

    // MARK: - Mutation

    private static let junk: [UInt8] = Array("<>/=\"' -!&;#[]?\n\t\0\\(){}*@".utf8) + [0xC3, 0xA9, 0xFF, 0xE2, 0x82, 0xED, 0xA0]

    /// `bytes` with about one change in `rate` bytes: a junk byte inserted, a byte dropped or a run repeated.
    private static func mutated(_ bytes: [UInt8], _ random: inout SeededGenerator, rate: Int) -> [UInt8] {
        guard rate > 0 else { return bytes }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + bytes.count / rate + 16)
        var index = 0
        while index < bytes.count {
            if random.below(rate) == 0 {
                switch random.below(3) {
                case 0: output.append(random.pick(junk))
                case 1: index += 1
                default: output.append(contentsOf: bytes[index..<min(bytes.count, index + random.below(12))])
                }
                continue
            }
            output.append(bytes[index])
            index += 1
        }
        return output
    }
}

/// Picks for the generated corpus, from the seeded generator so that it is the same on every machine.
extension SeededGenerator {
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

    mutating func pick<T>(_ items: [T]) -> T { items[below(items.count)] }
}
