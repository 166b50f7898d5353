import Foundation
import Testing

@testable import Discovery

/// What a page's references become for a device: the scanner reports every candidate with its
/// condition, and ``PageSelection`` chooses. Expected picks for the desktop (1280×800 at 1x) and the
/// phone (390×844 at 3x).
struct DeviceChoiceTests {
    /// The URLs fetched for `device`, in the order decided, as paths relative to the page's folder.
    static func fetched(
        _ html: String, stylesheets: [String: String] = [:], chooser: ReferenceChooser
    ) -> [String] {
        // The page is a Swift string, so UTF-8 (undeclared, it would be read as windows-1252).
        var scanner = HTMLScanner(documentURL: pageURL, charset: "utf-8")
        let references = scanner.feed(Array(html.utf8)) + scanner.finish()
        var selection = PageSelection(chooser: chooser)
        selection.viewport = scanner.viewport
        var choices = selection.add(references)
        var families = scanner.usedFontFamilies
        var characters = TextCharacters()
        for (name, css) in stylesheets.sorted(by: { $0.key < $1.key }) {
            let url = URL(string: name, relativeTo: pageURL)!.absoluteURL
            var cssScanner = CSSScanner(stylesheetURL: url)
            let found = cssScanner.feed(Array(css.utf8)) + cssScanner.finish()
            let media = references.first { $0.url == url }?.condition?.media ?? []
            choices += selection.add(found, inheritedMedia: media)
            families.formUnion(cssScanner.usedFontFamilies)
            characters.formUnion(cssScanner.textCharacters)
        }
        choices += selection.addFontFamilies(families)
        choices += selection.addTextCharacters(characters)
        choices += selection.completeDocument(scanner.documentTree)
        choices += selection.finish()
        return choices.filter { $0.fetches && $0.reference.isRequisite }.map { relative($0.reference.url) }
    }

    /// `url` relative to the test page's folder when it is in it.
    static func relative(_ url: URL) -> String {
        let prefix = "https://example.com/dir/"
        let text = url.absoluteString
        return text.hasPrefix(prefix) ? String(text.dropFirst(prefix.count)) : text
    }

    static func fetched(_ html: String, stylesheets: [String: String] = [:], device: DeviceProfile) -> [String] {
        fetched(html, stylesheets: stylesheets, chooser: ReferenceChooser(device: device))
    }

    /// (markup, desktop picks, phone picks)
    static let table: [(String, [String], [String])] = [
        // img srcset with x and w descriptors; src as the 1x fallback (HTML §4.8.4.3).
        (#"<img src="a1.jpg" srcset="a2.jpg 2x, a3.jpg 3x">"#, ["a1.jpg"], ["a3.jpg"]),
        (#"<img src="s.jpg" srcset="s.jpg 400w, m.jpg 800w, l.jpg 1600w" sizes="(max-width: 600px) 100vw, 50vw">"#,
         ["m.jpg"], ["l.jpg"]),
        (#"<img src="plain.jpg">"#, ["plain.jpg"], ["plain.jpg"]),
        // <picture>: the first source whose media matches and whose type decodes (§4.8.4.3.7).
        (#"<picture><source media="(min-width: 800px)" srcset="wide.webp 1x, wide2.webp 2x" type="image/webp">"#
            + #"<source srcset="x.heic" type="image/heic"><source srcset="narrow.jpg 1x, narrow3.jpg 3x">"#
            + #"<img src="fallback.jpg"></picture>"#,
         ["wide.webp"], ["narrow3.jpg"]),
        (#"<picture><source media="(prefers-color-scheme: dark)" srcset="dark.png"><img src="light.png"></picture>"#,
         ["light.png"], ["light.png"]),
        // <link rel=preload as=image> with imagesrcset/imagesizes and media (§4.6.7.11).
        (#"<link rel="preload" as="image" href="h.jpg" imagesrcset="h-400.jpg 400w, h-1600.jpg 1600w" imagesizes="100vw">"#,
         ["h-1600.jpg"], ["h-1600.jpg"]),
        (#"<link rel="preload" as="image" href="m.jpg" media="(max-width: 600px)">"#, [], ["m.jpg"]),
        (#"<link rel="preload" as="script" href="p.js" media="print">"#, [], []),
        // Stylesheets load whatever their media; what is in them then obeys it.
        (#"<link rel="stylesheet" href="print.css" media="print">"#, ["print.css"], ["print.css"]),
        // CSS: @media, the selector, image-set() (CSS Images 4 §2.2); the later rule wins (CSS Cascade 4 §6).
        (#"<style>body { background: url(d.png) } @media (max-width: 600px) { body { background: url(m.png) } }</style>"#,
         ["d.png"], ["m.png"]),
        (#"<style>@media (max-width: 600px) { body { background: url(m.png) } } body { background: url(d.png) }</style>"#,
         ["d.png"], ["d.png"]),
        (#"<div class="hero"></div><style>.hero { background: url(hero.png) } .promo { background: url(promo.png) }</style>"#,
         ["hero.png"], ["hero.png"]),
        (#"<p class=x><style>.x { background: image-set("x1.png" 1x, "x2.png" 2x, "x3.png" 3x) }</style>"#,
         ["x1.png"], ["x3.png"]),
        (#"<a href="/">a</a><style>a:hover { background: url(hover.png) } .none:hover { background: url(no.png) }</style>"#,
         ["hover.png"], ["hover.png"]),
        (#"<div style="background: url(inline.png)"></div>"#, ["inline.png"], ["inline.png"]),
        // A later declaration for the same selector and property replaces an image where its media matches.
        (#"<header class=h></header><style>.h { background: url(base.png) } "#
            + #"@media (max-width: 600px) { .h { background-image: url(narrow.png) } } .h { background-color: red }</style>"#,
         ["base.png"], ["narrow.png"]),
        (#"<p class=h><style>.h { background: url(gone.png) } .h { background: none }</style>"#, [], []),
        (#"<style media="print">body { background: url(p.png) }</style>"#, [], []),
        (#"<nav class=m></nav><style>.m { @media (width < 600px) { & { background: url(nested.png) } } }</style>"#,
         [], ["nested.png"]),
        // @supports: the rules of a condition Chromium does not meet apply nowhere and replace nothing
        // (CSS Conditional 3 §2); those of an undecided condition are kept, and replace nothing either.
        (#"<p class=a></p><p class=b></p><style>@supports (display:grid){.a{background:url(d-sup.png)}}"#
            + #"@supports not (display:grid){.b{background:url(d-nosup.png)}}</style>"#,
         ["d-sup.png"], ["d-sup.png"]),
        (#"<p class=sp></p><style>@supports (display: grid) { .sp { background: url(sp-grid.png) } }"#
            + #"@supports (display: -ms-grid) { .sp { background: url(sp-ms.png) } }</style>"#,
         ["sp-grid.png"], ["sp-grid.png"]),
        (#"<p class=u></p><style>.u { background: url(u-base.png) }"#
            + #"@supports (frobnicate: 1) { .u { background: url(u-new.png) } }"#
            + #"@supports selector(:has(a)) { @media (max-width: 600px) { .u { background: url(u-has.png) } } }"#
            + "</style>",
         ["u-base.png", "u-new.png"], ["u-has.png"]),
        (#"<p>x</p><style>@supports (-moz-appearance: none) { @font-face { font-family: F; src: url(f.woff2) }"#
            + #" p { font-family: F } }</style>"#,
         [], []),
        // @font-face: the first src the device loads, when a rule names the family (CSS Fonts 4 §4.3).
        (#"<p>text</p><style>@font-face { font-family: Body; src: local(Body), url(b.woff2) format("woff2"), url(b.woff) format("woff") }"#
            + #"@font-face { font-family: Unused; src: url(u.woff2) format("woff2") } p { font: 16px/1.4 Body, serif }</style>"#,
         ["b.woff2"], ["b.woff2"]),
        (#"<style>@font-face { font-family: "Icon Font"; src: url(i.eot?#iefix) format("embedded-opentype"), url(i.svg) format("svg"), url(i.ttf) format("truetype") }"#
            + #":root { --icons: "Icon Font" } i { font-family: var(--icons) }</style>"#,
         ["i.ttf"], ["i.ttf"]),
        (#"<b>bold</b><style>@font-face { font-family: V; src: url(v.woff2) format("woff2") tech(color-svg), url(v2.woff2) format(woff2-variations) } b { font-family: v }</style>"#,
         ["v2.woff2"], ["v2.woff2"]),
        // A face only for a rule that matches an element: no element has the class `icon`.
        (#"<p>x</p><style>@font-face { font-family: Icons; src: url(ic.woff2) format("woff2") } .icon { font-family: Icons }</style>"#,
         [], []),
        // Icons: the last usable rel=icon; touch icons and mask icons only with --icons all.
        (#"<link rel="icon" href="16.png" sizes="16x16"><link rel="icon" href="32.png" sizes="32x32">"#
            + #"<link rel="icon" href="i.heic" type="image/heic"><link rel="apple-touch-icon" href="t.png">"#
            + #"<link rel="mask-icon" href="m.svg">"#,
         ["32.png"], ["32.png"]),
        // JPEG XL, which Chromium decodes and asks for first.
        (#"<picture><source srcset="p.jxl" type="image/jxl"><img src="p.png"></picture>"#, ["p.jxl"], ["p.jxl"]),
        // `sizes="auto, …"` of a lazy image: its laid-out width, the width attribute (HTML §4.8.4.3.11).
        (#"<img loading=lazy width=100 sizes="auto, 100vw" srcset="a-200.png 200w, a-400.png 400w, a-1600.png 1600w">"#,
         ["a-200.png"], ["a-400.png"]),
        // Not lazy, `auto` is no size, and the next entry applies.
        (#"<img width=100 sizes="auto, 100vw" srcset="e-200.png 200w, e-1600.png 1600w">"#,
         ["e-1600.png"], ["e-1600.png"]),
    ]

    /// The table's pages are made for phones: laid out as wide as the screen.
    static let mobileReady = #"<meta name="viewport" content="width=device-width, initial-scale=1">"#

    @Test(arguments: table)
    func choosesForEachDevice(_ row: (String, [String], [String])) {
        let (html, desktop, phone) = row
        #expect(Self.fetched(Self.mobileReady + html, device: .desktop) == desktop, "desktop: \(html)")
        #expect(Self.fetched(Self.mobileReady + html, device: .phone) == phone, "phone: \(html)")
    }

    /// A page that declares no viewport is laid out 980 pixels wide on a phone, as Chromium and
    /// Safari lay it out: its media queries, `vw` and `sizes` are of that width, its pixel ratio
    /// stays the screen's, and `device-width` is the screen's.
    @Test func aPageWithoutAViewportIsLaidOut980PixelsWideOnAPhone() {
        let body = """
            <style>.b { background: url(wide.png) } @media (max-width: 600px) { .b { background: url(narrow.png) } }
            @media (device-width: 390px) { .s { background: url(screen.png) } }</style>
            <div class=b></div><div class=s></div>
            <img srcset="a-200.png 200w, a-400.png 400w, a-800.png 800w, a-1600.png 1600w"
                 sizes="(max-width: 600px) 100vw, 25vw">
            """
        // 25vw of 980 at 3x: 735 pixels, the 800w candidate.
        #expect(Self.fetched(body, device: .phone) == ["a-800.png", "wide.png", "screen.png"])
        #expect(Self.fetched(Self.mobileReady + body, device: .phone) == ["a-1600.png", "narrow.png", "screen.png"])
        #expect(Self.fetched(#"<meta name=viewport content="width=600">"# + body, device: .phone)
            == ["a-1600.png", "narrow.png", "screen.png"])
        // A desktop's layout viewport is its window, whatever the page declares.
        #expect(Self.fetched(body, device: .desktop) == ["a-400.png", "wide.png"])
        #expect(Self.fetched(#"<meta name=viewport content="width=500">"# + body, device: .desktop)
            == ["a-400.png", "wide.png"])

        var scanner = HTMLScanner(documentURL: pageURL)
        let references = scanner.feed(Array(body.utf8)) + scanner.finish()
        var selection = PageSelection(chooser: ReferenceChooser(device: .phone))
        let reasons = Dictionary(uniqueKeysWithValues: selection.add(references).map {
            ($0.reference.url.lastPathComponent, $0.reason)
        })
        #expect(reasons["a-1600.png"] == "980x2120 at 3x takes a-800.png instead")
    }

    /// `--all-candidates` is the same selection with the exhaustive chooser: everything found.
    @Test(arguments: table)
    func allCandidatesFetchesEverything(_ row: (String, [String], [String])) {
        var scanner = HTMLScanner(documentURL: pageURL)
        let found = (scanner.feed(Array(row.0.utf8)) + scanner.finish()).filter(\.isRequisite)
        #expect(Self.fetched(row.0, chooser: .allCandidates) == found.map { Self.relative($0.url) })
    }

    /// Rules in an external stylesheet are matched against the page, under the link's media.
    /// `media=print onload="this.media='all'"`: the sheet applies to every medium once loaded, so
    /// what it needs is fetched for the screen.
    @Test func aStylesheetWhoseMediaItsOnloadSwapsAppliesToTheScreen() {
        let html = #"<p>x</p><link rel=stylesheet href=async.css media=print onload="this.media='all'">"#
        let fetched = Self.fetched(html, stylesheets: ["async.css": "p { background: url(bg.png) }"], device: .desktop)
        #expect(fetched.contains("async.css"))
        #expect(fetched.contains("bg.png"), "\(fetched)")
        let printOnly = Self.fetched(#"<p>x</p><link rel=stylesheet href=print.css media=print>"#,
                                     stylesheets: ["print.css": "p { background: url(pbg.png) }"], device: .desktop)
        #expect(!printOnly.contains("pbg.png"), "\(printOnly)")
    }

    @Test func externalStylesheetsAreMatchedAgainstThePage() {
        let html = #"<link rel=stylesheet href="s.css"><link rel=stylesheet href="p.css" media="print"><div class="card"></div>"#
        let css = [
            "s.css": "@import url(narrow.css) (max-width: 600px); "
                + ".card { background: url(card.png) } .modal { background: url(modal.png) }",
            "p.css": ".card { background: url(card-print.png) }",
        ]
        // Imported stylesheets load whatever their media, as linked ones do (checked against Chromium).
        #expect(Self.fetched(html, stylesheets: css, device: .desktop) == ["s.css", "p.css", "narrow.css", "card.png"])
        #expect(Self.fetched(html, stylesheets: css, device: .phone) == ["s.css", "p.css", "narrow.css", "card.png"])
    }

    /// Every choice says why.
    @Test func choicesSayWhy() throws {
        var scanner = HTMLScanner(documentURL: pageURL)
        let html = #"<img src="a.jpg" srcset="b.jpg 2x"><style>.no { background: url(n.png) }"#
            + #"@supports (display: -ms-grid) { body { background: url(ms.png) } }</style>"#
        let references = scanner.feed(Array(html.utf8)) + scanner.finish()
        var selection = PageSelection(chooser: ReferenceChooser(device: .desktop))
        let choices = selection.add(references) + selection.completeDocument(scanner.documentTree)
        let reasons = Dictionary(uniqueKeysWithValues: choices.map { ($0.reference.url.lastPathComponent, $0.reason) })
        #expect(reasons["b.jpg"] == "1280x800 at 1x takes a.jpg instead")
        #expect(reasons["n.png"] == "no element of the page matches '.no'")
        #expect(reasons["ms.png"] == "its @supports condition '(display: -ms-grid)' is false in Chromium")
        #expect(choices.first { $0.reference.url.lastPathComponent == "a.jpg" }?.fetches == true)
    }
}
