import Foundation
import Testing

@testable import Discovery

/// One HTML snippet and the references it must yield, rendered as `kind url`.
struct HTMLCase: CustomTestStringConvertible, Sendable {
    var html: String
    var expected: [String]
    var options = HTMLScanner.Options()
    var testDescription: String { html }
}

private let d = "https://example.com/dir/"

@Suite struct HTMLScannerTests {
    // MARK: - Elements and attributes

    static let elementCases: [HTMLCase] = [
        HTMLCase(html: #"<img src="a.png">"#, expected: ["image \(d)a.png"]),
        HTMLCase(html: "<IMG SRC=a.png>", expected: ["image \(d)a.png"]),
        HTMLCase(html: "<img src='a.png' SRC=b.png>", expected: ["image \(d)a.png"]),
        HTMLCase(html: "<image src=i.png>", expected: ["image \(d)i.png"]),
        HTMLCase(
            html: #"<img src=a.png srcset="a,b.png 1x, c.png 2x">"#,
            expected: ["image \(d)a.png", "image \(d)a,b.png", "image \(d)c.png"]
        ),
        HTMLCase(
            html: #"<picture><source srcset="s.webp 1x, s2.webp 2x" type="image/webp"><img src=i.jpg></picture>"#,
            expected: ["image \(d)s.webp", "image \(d)s2.webp", "image \(d)i.jpg"]
        ),
        HTMLCase(html: "<source srcset=orphan.png src=orphan.mp4>", expected: []),
        HTMLCase(html: "<link rel=stylesheet href=s.css>", expected: ["stylesheet \(d)s.css"]),
        HTMLCase(html: #"<link rel="Alternate StyleSheet" href=alt.css>"#, expected: ["stylesheet \(d)alt.css"]),
        HTMLCase(html: "<link rel=stylesheet disabled href=d.css>", expected: ["stylesheet \(d)d.css"]),
        // A type other than CSS is not fetched; parameters and case do not matter (HTML §4.6.7).
        HTMLCase(
            html: #"<link rel=stylesheet type="text/plain" href=p.css>"#
                + #"<link rel=stylesheet type=" Text/CSS; charset=utf-8" href=c.css>"#
                + #"<link rel=stylesheet type="" href=e.css>"#,
            expected: ["stylesheet \(d)c.css", "stylesheet \(d)e.css"]),
        HTMLCase(html: "<link rel=preload as=style href=p.css>", expected: ["stylesheet \(d)p.css"]),
        HTMLCase(html: "<link rel=preload as=script href=p.js>", expected: ["script \(d)p.js"]),
        HTMLCase(html: "<link rel=preload as=font href=f.woff2 crossorigin>", expected: ["font \(d)f.woff2"]),
        HTMLCase(html: "<link rel=preload as=fetch href=data.json>", expected: ["other \(d)data.json"]),
        HTMLCase(html: "<link rel=preload href=no-as.js>", expected: []),
        HTMLCase(
            html: #"<link rel=preload as=image href=i.png imagesrcset="i1.png 1x, i2.png 2x">"#,
            expected: ["image \(d)i1.png", "image \(d)i2.png", "image \(d)i.png"]
        ),
        HTMLCase(html: "<link rel=modulepreload href=m.js>", expected: ["script \(d)m.js"]),
        HTMLCase(
            html: #"<link rel="shortcut icon" href=/favicon.ico>"#,
            expected: ["icon https://example.com/favicon.ico"]
        ),
        HTMLCase(html: "<link rel=apple-touch-icon href=t.png>", expected: ["icon \(d)t.png"]),
        HTMLCase(html: "<link rel=apple-touch-icon-precomposed href=t.png>", expected: ["icon \(d)t.png"]),
        HTMLCase(html: "<link rel=mask-icon href=m.svg color=red>", expected: ["icon \(d)m.svg"]),
        HTMLCase(html: "<link rel=manifest href=app.webmanifest>", expected: ["manifest \(d)app.webmanifest"]),
        // Link types are split on every ASCII whitespace, a CR LF pair too, and compared in ASCII
        // case only: the Kelvin sign is no "k".
        HTMLCase(html: "<link rel=\"stylesheet\r\nICON\" href=s.css>", expected: ["stylesheet \(d)s.css", "icon \(d)s.css"]),
        HTMLCase(html: "<link rel=\"\u{0C}Manifest\t\" href=m.json>", expected: ["manifest \(d)m.json"]),
        HTMLCase(html: "<link rel=\"mas\u{212A}-icon\" href=k.svg>", expected: []),
        HTMLCase(html: "<link rel=canonical href=c.html><link rel=prefetch href=n.html>", expected: []),
        HTMLCase(html: "<script src=a.js></script>", expected: ["script \(d)a.js"]),
        HTMLCase(html: "<script type=module src=m.js></script>", expected: ["script \(d)m.js"]),
        HTMLCase(html: #"<script type=" Text/JavaScript " src=b.js></script>"#, expected: ["script \(d)b.js"]),
        HTMLCase(html: "<script language=javascript src=l.js></script>", expected: ["script \(d)l.js"]),
        HTMLCase(html: #"<script type="application/ld+json" src=x.json></script>"#, expected: []),
        HTMLCase(html: #"<script type="text/template" src=t.html></script>"#, expected: []),
        HTMLCase(html: "<script nomodule src=legacy.js></script>", expected: ["script \(d)legacy.js (not requisite)"]),
        HTMLCase(html: "<video poster=p.jpg src=v.mp4></video>", expected: ["image \(d)p.jpg"]),
        HTMLCase(html: "<input type=IMAGE src=b.png><input src=no.png>", expected: ["image \(d)b.png"]),
        // An enumerated attribute is not trimmed.
        HTMLCase(html: #"<input type="image " src=t.png><input type=" image" src=l.png>"#, expected: []),
        HTMLCase(
            html: "<object data=o.swf></object><embed src=e.svg>",
            expected: ["embed \(d)o.swf", "embed \(d)e.svg"]
        ),
        HTMLCase(
            html: "<iframe src=f.html></iframe><frame src=g.html>",
            expected: ["document \(d)f.html", "document \(d)g.html"]
        ),
        HTMLCase(
            html: "<body background=b.png><table background=t.png><tr><td background=c.png><th background=h.png>",
            expected: ["image \(d)b.png", "image \(d)t.png", "image \(d)c.png", "image \(d)h.png"]
        ),
        HTMLCase(
            html: "<a href=next.html>n</a><map><area href=/area.html></map>",
            expected: ["link \(d)next.html (not requisite)", "link https://example.com/area.html (not requisite)"]
        ),
        HTMLCase(
            html: #"<img data-src=l.jpg data-srcset="l1.jpg 1x, l2.jpg 2x">"#
                + "<div data-bg=bg.jpg data-lazy-src=z.jpg data-original=o.jpg>",
            expected: [
                "image \(d)l.jpg", "image \(d)l1.jpg", "image \(d)l2.jpg", "image \(d)z.jpg", "image \(d)o.jpg",
                "image \(d)bg.jpg",
            ]
        ),
        HTMLCase(
            html: #"<div style="background: url('bg.png') , url(&quot;two.png&quot;)">"#,
            expected: ["image \(d)bg.png", "image \(d)two.png"]
        ),
        HTMLCase(
            html: "<style>@import \"i.css\"; body { background: url(b.png) }</style><img src=after.png>",
            expected: ["stylesheet \(d)i.css", "image \(d)b.png", "image \(d)after.png"]
        ),
        HTMLCase(
            html: "<style>@font-face { src: url(f.woff2) format('woff2') }</style>",
            expected: ["font \(d)f.woff2"]
        ),
    ]

    @Test(arguments: elementCases)
    func findsReferencesOfEachElement(_ testCase: HTMLCase) {
        #expect(scan(testCase.html, options: testCase.options) == testCase.expected)
    }

    // MARK: - Options

    static let optionCases: [HTMLCase] = [
        HTMLCase(
            html: "<video poster=p.jpg src=v.mp4><source src=v.webm><track src=t.vtt></video><audio src=a.mp3></audio>",
            expected: ["image \(d)p.jpg", "media \(d)v.mp4", "media \(d)v.webm", "media \(d)t.vtt", "media \(d)a.mp3"],
            options: .init(includesMedia: true)
        ),
        HTMLCase(html: "<a href=x.html>x</a>", expected: [], options: .init(includesLinks: false)),
        HTMLCase(html: "<iframe src=f.html></iframe>", expected: [], options: .init(includesFrames: false)),
        HTMLCase(html: "<img data-src=l.jpg>", expected: [], options: .init(includesLazyLoadingHints: false)),
        HTMLCase(
            html: "<noscript><img src=n.png></noscript><img src=after.png>",
            expected: ["image \(d)n.png", "image \(d)after.png"],
            options: .init(scansNoscript: true)
        ),
    ]

    @Test(arguments: optionCases)
    func honoursOptions(_ testCase: HTMLCase) {
        #expect(scan(testCase.html, options: testCase.options) == testCase.expected)
    }

    // MARK: - Tokenization

    /// Each snippet hides `<img src=hidden.png>` where browsers do not fetch it, then shows `shown.png`.
    static let hiddenContexts: [String] = [
        "<!-- <img src=hidden.png> -->",
        "<!-- a -- <img src=hidden.png> --!>",
        "<! <img src=hidden.png>",
        "<? <img src=hidden.png>",
        "</ <img src=hidden.png>",
        "<!DOCTYPE <img src=hidden.png>",
        "<script>document.write('<img src=hidden.png>')</script>",
        "<script>if (a</script) {}</script>",
        "<SCRIPT type=module>'</scripty><img src=hidden.png>'</Script >",
        "<script><!-- <script>x</script> <img src=hidden.png> --></script>",
        "<script><!--<SCRIPT >if (a<b) {}</script><img src=hidden.png>--></script>",
        "<style>/* <img src=hidden.png> */</style>",
        "<textarea><img src=hidden.png></textarea>",
        "<title><img src=hidden.png></title>",
        "<xmp><img src=hidden.png></xmp>",
        "<iframe><img src=hidden.png></iframe>",
        "<noembed><img src=hidden.png></noembed>",
        "<noframes><img src=hidden.png></noframes>",
        "<noscript><img src=hidden.png></noscript>",
        "<template><img src=hidden.png><link rel=stylesheet href=h.css><style>@import 'h.css';</style></template>",
        "<template><template></template><img src=hidden.png></template>",
        "<svg><![CDATA[<img src=hidden.png>]]></svg>",
        "<img src=hidden.png",
    ]

    @Test(arguments: hiddenContexts)
    func ignoresReferencesBrowsersDoNotFetch(_ context: String) {
        let shown = "<img src=shown.png>"
        let html = context.hasSuffix("<img src=hidden.png") ? shown + context : context + shown
        #expect(scan(html) == ["image \(d)shown.png"])
    }

    static let tokenizerCases: [HTMLCase] = [
        HTMLCase(html: "<!--><img src=a.png>", expected: ["image \(d)a.png"]),
        HTMLCase(html: "<!---><img src=a.png>", expected: ["image \(d)a.png"]),
        HTMLCase(html: "<!-- x --!><img src=a.png>", expected: ["image \(d)a.png"]),
        HTMLCase(html: "<!DOCTYPE html><html><img src=a.png>", expected: ["image \(d)a.png"]),
        HTMLCase(html: "<img alt='>' src=a.png>", expected: ["image \(d)a.png"]),
        HTMLCase(html: "<img/src=a.png/>", expected: ["image \(d)a.png/"]),
        HTMLCase(html: "<img src = \"a.png\"\nalt=x>", expected: ["image \(d)a.png"]),
        HTMLCase(html: "<img alt=x src=a.png/>", expected: ["image \(d)a.png/"]),
        HTMLCase(html: "<img alt=x src=\"a.png\"/>", expected: ["image \(d)a.png"]),
        HTMLCase(html: "<script><!-- a </script><img src=a.png>", expected: ["image \(d)a.png"]),
        HTMLCase(html: "<script><!-- <scripts></script><img src=a.png>", expected: ["image \(d)a.png"]),
        HTMLCase(html: "<script><!-- <script></script --></script><img src=a.png>", expected: ["image \(d)a.png"]),
        HTMLCase(html: "<plaintext><img src=p.png></plaintext><img src=q.png>", expected: []),
        HTMLCase(html: "a < b <img src=a.png>", expected: ["image \(d)a.png"]),
        HTMLCase(
            html: "<textarea></textareax><img src=no.png></TEXTAREA><img src=a.png>",
            expected: ["image \(d)a.png"]
        ),
    ]

    @Test(arguments: tokenizerCases)
    func tokenizesLikeHTML5(_ testCase: HTMLCase) {
        #expect(scan(testCase.html) == testCase.expected)
    }

    // MARK: - Foreign content

    static let foreignCases: [HTMLCase] = [
        HTMLCase(
            html: ##"<svg><image href="i.svg"/><use xlink:href="sprite.svg#icon"/><use href="#local"/>"##
                + "<feImage href=f.png /></svg>",
            expected: ["image \(d)i.svg", "image \(d)sprite.svg", "image \(d)f.png"]
        ),
        HTMLCase(
            html: #"<svg><image href="new.png" xlink:href="old.png"/></svg>"#,
            expected: ["image \(d)new.png"]
        ),
        HTMLCase(
            html: "<svg><style>@import \"svg.css\"; rect { fill: url(#g) } </style><rect/></svg>",
            expected: ["stylesheet \(d)svg.css"]
        ),
        HTMLCase(
            html: "<svg><style><![CDATA[ rect { background: url(cdata.png) } ]]></style></svg>",
            expected: ["image \(d)cdata.png"]
        ),
        HTMLCase(
            html: "<svg><title><img src=t.png></title></svg>",
            expected: ["image \(d)t.png"]
        ),
        HTMLCase(
            html: "<svg><foreignObject><div><style>@import 'fo.css';</style></div></foreignObject>"
                + "<image href=back.png /></svg>",
            expected: ["stylesheet \(d)fo.css", "image \(d)back.png"]
        ),
        HTMLCase(
            html: "<svg><g><p><image src=breakout.png></svg>",
            expected: ["image \(d)breakout.png"]
        ),
        HTMLCase(
            html: "<svg><script href=s.js /><a xlink:href=l.html><text>x</text></a></svg>",
            expected: ["script \(d)s.js", "link \(d)l.html (not requisite)"]
        ),
        HTMLCase(
            html: "<math><mi><img src=m.png></mi><annotation-xml encoding=text/html>"
                + "<style>@import 'a.css';</style></annotation-xml></math>",
            expected: ["image \(d)m.png", "stylesheet \(d)a.css"]
        ),
        HTMLCase(
            html: "<svg><textarea><image href=notraw.png /></textarea></svg><textarea><img src=raw.png></textarea>",
            expected: ["image \(d)notraw.png"]
        ),
        HTMLCase(html: "<svg/><img src=after.png>", expected: ["image \(d)after.png"]),
    ]

    @Test(arguments: foreignCases)
    func handlesForeignContent(_ testCase: HTMLCase) {
        #expect(scan(testCase.html) == testCase.expected)
    }

    // MARK: - URLs

    static let urlCases: [HTMLCase] = [
        HTMLCase(
            html: "<img src=\"  a\n.png\t \"><img src=b.png#frag>",
            expected: ["image \(d)a.png", "image \(d)b.png"]
        ),
        HTMLCase(
            html: ##"<img src="javascript:alert(1)"><img src="DATA:image/png;base64,AA"><a href="mailto:a@b.c"></a>"##
                + ##"<img src="about:blank"><img src="blob:https://x/1"><img src=""><img src="   "><img src="#top">"##
                + ##"<a href=" JavaScript:void(0)">"##,
            expected: []
        ),
        HTMLCase(html: "<img src=//cdn.example.net/x.png>", expected: ["image https://cdn.example.net/x.png"]),
        HTMLCase(html: "<img src=\"a b.png\">", expected: ["image \(d)a%20b.png"]),
        HTMLCase(html: "<img src=\"a.png?x=1&amp;y=2\">", expected: ["image \(d)a.png?x=1&y=2"]),
        HTMLCase(html: "<img src=\"a.png?x=1&ampy=2&amp=3\">", expected: ["image \(d)a.png?x=1&ampy=2&amp=3"]),
        HTMLCase(html: "<img src=\"&#x61;&#98;&sol;c.png\">", expected: ["image \(d)ab/c.png"]),
        HTMLCase(html: "<img src=\"javascript&colon;alert(1)\"><img src=\"java&#x0A;script:x\">", expected: []),
    ]

    @Test(arguments: urlCases)
    func cleansAndResolvesURLs(_ testCase: HTMLCase) {
        #expect(scan(testCase.html) == testCase.expected)
    }

    @Test func appliesTheFirstBaseFromWhereItAppears() {
        let html = """
            <img src=a.png><base href="https://cdn.example.net/x/"><img src=b.png>\
            <base href="https://other.example/"><img src=c.png>
            """
        #expect(
            scan(html) == [
                "image \(d)a.png", "image https://cdn.example.net/x/b.png", "image https://cdn.example.net/x/c.png",
            ]
        )
    }

    @Test func resolvesAValueSeenBeforeTheBaseAgainstTheBase() {
        // The same value before and after `<base>`: a URL remembered from before must not be reused.
        let html = #"<img src=a.png><base href="https://cdn.example.net/x/"><img src=a.png srcset="a.png 1x">"#
        #expect(
            scan(html) == [
                "image \(d)a.png", "image https://cdn.example.net/x/a.png", "image https://cdn.example.net/x/a.png",
            ]
        )
    }

    @Test func resolvesTheSameValueInAnAttributeAndInCSSWithTheirOwnQueryEncodings() {
        // In a windows-1252 page an attribute's query takes the page's encoding, a CSS URL's UTF-8.
        var bytes = Array(#"<img src="a?q=_" style="background: url('a?q=_')">"#.utf8)
        for index in bytes.indices where bytes[index] == UInt8(ascii: "_") { bytes[index] = 0xE9 }
        #expect(
            render(scanReferences(bytes, charset: "windows-1252")) == [
                "image https://example.com/dir/a?q=%E9", "image https://example.com/dir/a?q=%C3%A9",
            ]
        )
    }

    @Test func resolvesRelativeBaseAgainstTheDocument() {
        var scanner = HTMLScanner(documentURL: pageURL, charset: "utf-8")
        let found = scanner.feed(Array("<base href=../assets/><img src=a.png>".utf8))
        #expect(scanner.baseURL.absoluteString == "https://example.com/assets/")
        #expect(render(found) == ["image https://example.com/assets/a.png"])
    }

    /// A declarative shadow root (`<template shadowrootmode>`) is shown; a plain template is inert.
    @Test func scansDeclarativeShadowRootsButNotInertTemplates() {
        let html = #"<template shadowrootmode="open"><link rel=stylesheet href=card.css><img src=a.png></template>"#
            + #"<template><img src=inert.png><template shadowrootmode=open><img src=deep.png></template></template>"#
            + "<img src=after.png>"
        #expect(scan(html) == ["stylesheet \(d)card.css", "image \(d)a.png", "image \(d)after.png"])
    }

    /// Past 64 templates open at once, each is still closed by its end tag: what follows them all is
    /// the page's again.
    @Test func closesTemplatesNestedPastTheirListAsTheyOpen() {
        let depth = 70
        let html = String(repeating: "<template>", count: depth) + "<img src=inert.png>"
            + String(repeating: "</template>", count: depth) + "<img src=after.png>"
        #expect(scan(html) == ["image \(d)after.png"])
    }

    /// An `<iframe srcdoc>` is a document of the page's: what it needs is the page's, and its `src`
    /// is not fetched (HTML §4.8.5).
    @Test func scansTheDocumentOfAnIframeSrcdoc() {
        let html = #"<iframe src=fallback.html srcdoc="<link rel=stylesheet href=embed.css><img src='thumb.png'>">"#
            + #"</iframe><iframe srcdoc="&lt;img src=&quot;escaped.png&quot;&gt;"></iframe><iframe src=f.html>"#
        #expect(scan(html) == [
            "stylesheet \(d)embed.css", "image \(d)thumb.png", "image \(d)escaped.png", "document \(d)f.html",
        ])
        // Its style rules match its own elements: what they need carries no selector of the page's.
        let styled = scanReferences(Array(
            #"<iframe srcdoc="<style>.x { background: url(bg.png) }</style><div class=x></div>"></iframe>"#.utf8))
        #expect(styled.map(\.url.absoluteString) == ["\(d)bg.png"])
        #expect(styled.first?.condition?.selector == nil)
    }

    /// A page that forwards at once (`<meta http-equiv=refresh content="0; url=…">`) needs its target.
    @Test(arguments: [
        (#"<meta http-equiv="refresh" content="0; url=/docs/">"#, ["document https://example.com/docs/"]),
        (#"<meta http-equiv=Refresh content="0;URL='next.html'">"#, ["document \(d)next.html"]),
        (#"<meta http-equiv=refresh content="5, target.html">"#, ["document \(d)target.html"]),
        (#"<meta http-equiv=refresh content="300">"#, []),
        (#"<meta name=refresh content="0; url=x.html">"#, []),
    ])
    func reportsTheTargetOfAMetaRefresh(html: String, expected: [String]) {
        #expect(scan(html) == expected)
    }

    @Test func ignoresBaseInsideTemplate() {
        #expect(scan("<template><base href=https://t.example/></template><img src=a.png>") == ["image \(d)a.png"])
    }

    @Test func keepsTheSourceOfEachReference() {
        let references = scanReferences(Array(#"<img srcset="a.png 1x"><div style="background:url(b.png)">"#.utf8))
        #expect(references.map(\.source) == [
            Reference.Source(element: "img", attribute: "srcset"),
            Reference.Source(element: "div", attribute: "style", css: .url),
        ])
        #expect(references.map(\.source.description) == ["<img> srcset", "<div> style url()"])
    }

    // MARK: - Limits

    @Test func dropsAttributeValuesOverTheCapAndKeepsScanning() {
        let long = String(repeating: "x", count: HTMLTokenizer.maximumAttributeValueLength + 1)
        #expect(scan("<img src=\"\(long).png\"><img src=ok.png>") == ["image \(d)ok.png"])
        let fits = String(repeating: "y", count: 1000)
        #expect(scan("<img src=\"\(fits).png\">") == ["image \(d)\(fits).png"])
    }

    @Test func finishEndsAnUnclosedStyleBlock() {
        var scanner = HTMLScanner(documentURL: pageURL, charset: "utf-8")
        #expect(scanner.feed(Array("<style>a { background: url(unclosed.png".utf8)).isEmpty)
        #expect(render(scanner.finish()) == ["image \(d)unclosed.png"])
    }

    @Test func reportsSVGStyleBlocksWithTheirElement() {
        let references = scanReferences(Array("<svg><style>@import 'a.css';</style></svg>".utf8))
        #expect(references.map(\.source) == [Reference.Source(element: "style", css: .importRule)])
    }

    @Test func streamsReferencesAsSoonAsTheirTagIsComplete() {
        var scanner = HTMLScanner(documentURL: pageURL, charset: "utf-8")
        #expect(render(scanner.feed(Array("<p>text</p><img src=a.png".utf8))) == [])
        #expect(render(scanner.feed(Array("><p>more".utf8))) == ["image \(d)a.png"])
        #expect(render(scanner.finish()) == [])
    }

    /// The page's last `<meta name=viewport>` is the one a mobile browser lays it out by, wherever
    /// in the document it stands; one in a template, a shadow root or an `<iframe srcdoc>` is not
    /// the page's, and one without `content` changes nothing.
    @Test func theLastViewportDeclarationOfTheDocumentIsKept() {
        func viewport(_ html: String, chunks: [Int] = []) -> ViewportDeclaration? {
            var scanner = HTMLScanner(documentURL: pageURL)
            var offset = 0
            let bytes = Array(html.utf8)
            for length in chunks {
                _ = scanner.feed(bytes[offset..<(offset + length)])
                offset += length
            }
            _ = scanner.feed(bytes[offset...])
            _ = scanner.finish()
            return scanner.viewport
        }
        #expect(viewport("<p>no declaration</p>") == nil)
        #expect(viewport(#"<meta name=VIEWPORT content="width=600"><meta name="viewport" content="width=700">"#)
            == ViewportDeclaration(width: .pixels(700)))
        #expect(viewport(#"<meta name=viewport content="width=600"><body><p>x<meta name=viewport content="width=700">"#,
                         chunks: [20, 30]) == ViewportDeclaration(width: .pixels(700)))
        #expect(viewport(#"<meta name=viewport content="width=device-width"><meta name=viewport>"#)
            == ViewportDeclaration(width: .deviceWidth))
        #expect(viewport(#"<meta name=viewport content="width=device-width"><meta name=viewport content="">"#)
            == ViewportDeclaration())
        #expect(viewport(#"<meta name=" viewport" content="width=600">"#) == nil)
        #expect(viewport(#"<template><meta name=viewport content="width=600"></template>"#) == nil)
        #expect(viewport(#"<div><template shadowrootmode=open><meta name=viewport content="width=600"></template>"#)
            == nil)
        #expect(viewport(#"<iframe srcdoc="<meta name=viewport content=width=600>"></iframe>"#) == nil)
        // `<meta>` breaks out of SVG content: it is the page's (HTML §13.2.6.5).
        #expect(viewport(#"<svg><meta name=viewport content="width=600"></svg>"#)
            == ViewportDeclaration(width: .pixels(600)))
    }
}
