import Foundation
import Testing

@testable import Discovery

private let cssURL = URL(string: "https://cdn.example.com/css/site.css")!
private let c = "https://cdn.example.com/css/"

/// Scans `css` as a stylesheet file and renders each reference as `kind construct url`.
private func scanCSS(_ css: String) -> [String] {
    CSSScanner.references(in: Array(css.utf8), stylesheetURL: cssURL).map {
        "\($0.kind.rawValue) \($0.source.css?.rawValue ?? "-") \($0.url.absoluteString)"
    }
}

@Suite struct CSSScannerTests {
    static let cases: [(String, [String])] = [
        // @import forms
        (#"@import "a.css";"#, ["stylesheet @import \(c)a.css"]),
        ("@import 'd.css'", ["stylesheet @import \(c)d.css"]),
        ("@import url(b.css) screen and (min-width: 10px);", ["stylesheet @import \(c)b.css"]),
        (#"@import url( "c.css" ) layer(base) supports(display: grid);"#, ["stylesheet @import \(c)c.css"]),
        (#"@IMPORT "upper.css";"#, ["stylesheet @import \(c)upper.css"]),
        (#"@charset "utf-8"; @layer base; @import "after-charset.css";"#, ["stylesheet @import \(c)after-charset.css"]),
        (#"a { color: red } @import "late.css";"#, []),
        (#"@import foo "bad.css";"#, []),
        (#"@media print { @import "nested.css"; }"#, []),
        // An @import is valid only before any other rule but @charset and @layer statements, with no
        // @layer between it and an earlier @import; an invalid one's URL, and @namespace's, is no reference.
        (#"a { color: red } @import url(late.css);"#, []),
        (#"@namespace svg url(http://www.w3.org/2000/svg); @import "after-namespace.css";"#, []),
        (#"@import "first.css"; @layer a; @import "after-layer.css";"#, ["stylesheet @import \(c)first.css"]),
        (#"x; @import "in-a-prelude.css"; .a { color: red }"#, []),
        (#"@import "one.css"; /* a comment */ <!-- @import "two.css" --> ;"#, [
            "stylesheet @import \(c)one.css", "stylesheet @import \(c)two.css",
        ]),
        (#"@namespace url(ns.css); a { background: url(kept.png) }"#, ["image url() \(c)kept.png"]),
        (#"@media print { @import url(nested.css); }"#, []),
        // url() forms
        ("a{background:url(x.png)}", ["image url() \(c)x.png"]),
        ("a{background:URL(  spaced.png  )}", ["image url() \(c)spaced.png"]),
        (#"a{background:url("sp ace.png")}"#, ["image url() \(c)sp%20ace.png"]),
        ("a{background:url('../img/up.png')}", ["image url() https://cdn.example.com/img/up.png"]),
        (#"a{background:url(a\(b\).png)}"#, ["image url() \(c)a(b).png"]),
        (#"a{background:url(\61 .png)}"#, ["image url() \(c)a.png"]),
        (#"a{background:u\72l(escaped-name.png)}"#, ["image url() \(c)escaped-name.png"]),
        ("a{background:url(bad url.png)} b{background:url(good.png)}", ["image url() \(c)good.png"]),
        ("a{background:url(bad(.png)} b{background:url(good.png)}", ["image url() \(c)good.png"]),
        ("a{background:url()} b{filter:url(#f)} c{background:url(data:image/png;base64,AA)}", []),
        ("a{cursor:url(c.cur),auto;list-style:url(l.svg#frag)}", ["image url() \(c)c.cur", "image url() \(c)l.svg"]),
        // comments and strings
        ("/* url(no.png) @import 'no.css'; */ a{background:url(yes.png)}", ["image url() \(c)yes.png"]),
        (#"a::before{content:"url(no.png)"} b{content:'\'url(no2.png)'}"#, []),
        ("a{content:\"unterminated\n; background:url(after.png)}", ["image url() \(c)after.png"]),
        (#"a{background:url("with\"quote.png")}"#, ["image url() \(c)with%22quote.png"]),
        // image-set
        (
            #"a{background:image-set("1x.png" 1x, url(2x.png) 2x, 'type.avif' type("image/avif"))}"#,
            ["image image-set() \(c)1x.png", "image image-set() \(c)2x.png", "image image-set() \(c)type.avif"]
        ),
        ("a{background:-webkit-image-set('w.png' 1x)}", ["image image-set() \(c)w.png"]),
        (#"a{background:linear-gradient("not-a-url.png", red)}"#, []),
        // A name lowered as Unicode: the Kelvin sign is a `k`.
        ("a{background:-web\u{212A}it-image-set('k.png' 1x)}", ["image image-set() \(c)k.png"]),
        // Functions and names before a parenthesis that hold no URL, and `src(`, which does.
        (
            "a{x:rgba(0,0,0,.5) calc(1px) 2url(n.png) #url(h.png) url (sp.png) é(e.png) src('s.png')}",
            ["image url() \(c)s.png"]
        ),
        // @font-face
        (
            #"@font-face{font-family:"X";src:local(X),url(f.woff2) format("woff2"),url('f.woff') format('woff')}"#
                + " a{background:url(after.png)}",
            ["font @font-face \(c)f.woff2", "font @font-face \(c)f.woff", "image url() \(c)after.png"]
        ),
        (
            "@media print{@font-face{src:url(m.woff)}} b{background:url(i.png)}",
            ["font @font-face \(c)m.woff", "image url() \(c)i.png"]
        ),
        ("@font-face;a{background:url(i.png)}", ["image url() \(c)i.png"]),
        // Unterminated at the end of the stylesheet
        ("a{background:url(eof.png", ["image url() \(c)eof.png"]),
    ]

    /// Stylesheets cut off in each state the tokenizer and its context can be left in: inside a
    /// comment, a string, an escape, a name, a `url(`, an `image-set(`, parentheses, an
    /// `@font-face` or `@media` block, after an `@import`, with URLs held and fonts named.
    static let unfinished = [
        "/* open", #"a { b: "str"#, #"a { b: "x\"#, "a { b: \\61", "@media print { .a { background: url(x.png) 1",
        "@font-face { font-family: F; src: url(a.woff) format(\"woff\")", #"@import "i.css" print"#,
        ".a { background-image: image-set(\"a.png\" 1x, \"b.png\"", ".a { font: 12px Face; margin: (1 (2",
        "a { b: url(  unq", "a { b: url( x y", "a { --v: Face, Other; color: red } b { top: 1px } c {", "@ab",
        "a { background: url(r.png); } b {", "@font-face { font-family: F; src: url(a.woff); x",
    ]

    /// A reset tokenizer is a new one in every stored property, whatever state it was left in:
    /// a `style` attribute after another must not see anything of the one before.
    @Test(arguments: unfinished)
    func resetMakesTheTokenizerNew(_ css: String) {
        let fresh = String(reflecting: CSSTokenizer())
        var tokenizer = CSSTokenizer()
        Array(css.utf8).withUnsafeBufferPointer { tokenizer.consume($0) }
        #expect(String(reflecting: tokenizer) != fresh, "the case leaves a state to reset")
        tokenizer.reset()
        #expect(String(reflecting: tokenizer) == fresh)
    }

    @Test(arguments: cases)
    func findsReferences(_ css: String, _ expected: [String]) {
        #expect(scanCSS(css) == expected)
    }

    @Test func decodesEscapesLikeCSSSyntax() {
        let raw = Array(#"a\62 c\\\"\0 \110000 \D800 x"#.utf8)
        #expect(raw.withUnsafeBufferPointer(CSSTokenizer.decodeEscapes) == "abc\\\"\u{FFFD}\u{FFFD}\u{FFFD}x")
        #expect(Array("line\\\ncontinued".utf8).withUnsafeBufferPointer(CSSTokenizer.decodeEscapes) == "linecontinued")
    }

    @Test func readsTheCharsetRule() {
        var bytes = Array(#"@charset "windows-1252"; a{background:url(caf"#.utf8)
        bytes += [0xE9] + Array(".png)}".utf8)
        var scanner = CSSScanner(stylesheetURL: cssURL)
        let found = scanner.feed(bytes) + scanner.finish()
        #expect(scanner.encoding == .windows1252)
        #expect(found.map(\.url.absoluteString) == ["\(c)caf%C3%A9.png"])
    }

    /// A stylesheet that declares nothing is read in its page's encoding (CSS Syntax §3.2), which the
    /// page's scanner gives its stylesheet references.
    @Test func fallsBackToThePagesEncoding() {
        let latin = Array("a{background:url(cr".utf8) + [0xE8] + Array("me.png)}".utf8)
        var scanner = CSSScanner(stylesheetURL: cssURL, environmentEncoding: .windows1252)
        let found = scanner.feed(latin) + scanner.finish()
        #expect(scanner.encoding == .windows1252)
        #expect(found.map(\.url.absoluteString) == ["\(c)cr%C3%A8me.png"])
        // A declaration still wins over the page's encoding
        var declared = CSSScanner(stylesheetURL: cssURL, charset: "utf-8", environmentEncoding: .windows1252)
        _ = declared.feed(Array("a{}".utf8))
        #expect(declared.encoding == .utf8)

        var page = HTMLScanner(documentURL: pageURL, charset: "windows-1252")
        let references = page.feed(Array("<link rel=stylesheet href=s.css><img src=i.png>".utf8)) + page.finish()
        #expect(references.map(\.environmentEncoding) == [.windows1252, nil])
    }

    @Test func prefersTheTransportCharsetAndTheBOM() {
        let latin = Array("a{background:url(caf".utf8) + [0xE9] + Array(".png)}".utf8)
        let withHint = CSSScanner.references(in: latin, stylesheetURL: cssURL, charset: "ISO-8859-1")
        #expect(withHint.map(\.url.absoluteString) == ["\(c)caf%C3%A9.png"])

        let units = Array("a{background:url(é.png)}".utf16)
        let utf16: [UInt8] = [0xFF, 0xFE] + units.flatMap { unit -> [UInt8] in [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        var scanner = CSSScanner(stylesheetURL: cssURL, charset: "windows-1252")
        let found = scanner.feed(utf16) + scanner.finish()
        #expect(scanner.encoding == .utf16LittleEndian)
        #expect(found.map(\.url.absoluteString) == ["\(c)%C3%A9.png"])
    }

    @Test func dropsTokensOverTheCap() {
        let long = String(repeating: "x", count: CSSTokenizer.maximumTokenLength + 1)
        #expect(scanCSS("a{background:url(\(long))} b{background:url(ok.png)}") == ["image url() \(c)ok.png"])
    }

    /// At-rule names in any case, a `@media` query list trimmed of ASCII and Unicode spaces, and
    /// `!important` in any case, as the conditions of the URLs in them show: `url media selector
    /// replacements` (the number of later declarations that replace it).
    static let conditions: [(String, [String])] = [
        ("@MEDIA\t print and (min-width: 1px) \t{ .a { background: url(a.png) } }",
         ["a.png [print and (min-width: 1px)] .a 0"]),
        ("@Media\u{A0}print\u{A0}{ .a { background: url(a.png) } }", ["a.png [print] .a 0"]),
        ("@media screen and (min-width: 1px), \u{FC}n\u{EF}c\u{F6}d\u{E9} { .a { background: url(a.png) } }",
         ["a.png [screen and (min-width: 1px), \u{FC}n\u{EF}c\u{F6}d\u{E9}] .a 0"]),
        // Past the bytes read as ASCII, a Unicode space still starts the query list.
        ("@media             \u{2003}print { .a { background: url(a.png) } }", ["a.png [print] .a 0"]),
        ("@\u{212A}eyframes k { from { background: url(k.png) } }", ["k.png [] - 0"]),
        ("@-WEBKIT-KEYFRAMES k { from { background: url(k.png) } }", ["k.png [] - 0"]),
        ("@keyframe k { from { background: url(k.png) } }", ["k.png [] from 0"]),
        ("@FONT-FACE { src: url(f.woff) }", ["f.woff [] - 0"]),
        (".a { background: url(a.png) } .a { background: url(b.png) }", ["a.png [] .a 1", "b.png [] .a 0"]),
        (".a { background: url(a.png) !IMPORTANT } .a { background: url(b.png) }", ["a.png [] .a 0", "b.png [] .a 0"]),
        (".a { background: url(a.png)!important} .a { background: url(b.png) }", ["a.png [] .a 0", "b.png [] .a 0"]),
        (".a { background: url(a.png) ! important } .a { background: url(b.png) }", ["a.png [] .a 1", "b.png [] .a 0"]),
        (".a { background: url(a.png) !importan } .a { background: url(b.png) }", ["a.png [] .a 1", "b.png [] .a 0"]),
    ]

    @Test(arguments: conditions)
    func readsAtRulesAndImportance(css: String, expected: [String]) {
        let found = CSSScanner.references(in: Array(css.utf8), stylesheetURL: cssURL).map { reference in
            let condition = reference.condition
            let media = (condition?.media ?? []).joined(separator: "; ")
            return "\(reference.url.lastPathComponent) [\(media)] \(condition?.selector ?? "-") "
                + "\(condition?.replacedUnder.count ?? 0)"
        }
        #expect(found == expected)
    }
}
