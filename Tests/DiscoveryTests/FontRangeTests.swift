import Foundation
import Testing

@testable import Discovery

/// `@font-face` `unicode-range` (CSS Fonts Level 4 §4.5): the descriptor's syntax, the characters a
/// page shows, and the faces a device fetches for them; and `@import … supports()`.
@Suite struct FontRangeTests {
    // MARK: - The descriptor

    static let descriptors: [(String, [ClosedRange<UInt32>]?)] = [
        ("U+0-7F", [0...0x7F]),
        ("u+0025-00ff", [0x25...0xFF]),
        ("U+4??", [0x400...0x4FF]),
        ("U+26", [0x26...0x26]),
        ("U+0000-00FF, U+0131, U+2000-206F", [0...0xFF, 0x131...0x131, 0x2000...0x206F]),
        ("U+0400-045F /* Cyrillic */, U+2116", [0x400...0x45F, 0x2116...0x2116]),
        ("U+10????", [0x10_0000...0x10_FFFF]),
        // Invalid: the whole descriptor is, and the face is used for every character.
        ("U+7F-0", nil),
        ("U+110000", nil),
        ("U+0-7F, latin", nil),
        ("U+4?0", nil),
        ("U+1234567", nil),
        ("U+0-7F,", nil),
        ("", nil),
        ("U+?-F", nil),
    ]

    @Test(arguments: descriptors)
    func readsTheDescriptor(_ row: (String, [ClosedRange<UInt32>]?)) {
        #expect(UnicodeRange(row.0)?.ranges == row.1, "\(row.0)")
    }

    // MARK: - The characters

    @Test func keepsASCIIAsTwoClassesAndTheRestExactly() {
        let latin = TextCharacters("Hello")
        #expect(latin.meets(0x41...0x41) && latin.meets(0x7E...0x7E))
        #expect(!latin.meets(0x20...0x20) && !latin.meets(0x80...0x10_FFFF))
        let cyrillic = TextCharacters("Привет мир")
        #expect(cyrillic.meets(0x20...0x20) && cyrillic.meets(0x400...0x45F))
        #expect(!cyrillic.meets(0x21...0x7E) && !cyrillic.meets(0x460...0x4FF) && !cyrillic.meets(0x3FF...0x40E))
        #expect(cyrillic.meets(0x3FF...0x41F))
        let emoji = TextCharacters("🙂")
        #expect(emoji.meets(0x1F600...0x1F64F) && !emoji.meets(0x1F300...0x1F5FF) && !emoji.meets(0...0xFFFF))
    }

    /// The characters of the page's text, whatever pieces its bytes arrive in (with a charset, so
    /// that each piece is read as it comes, not held back for the prescan).
    static func documentCharacters(_ html: String, pieceLength: Int? = nil) -> TextCharacters {
        var scanner = HTMLScanner(documentURL: pageURL, charset: "utf-8")
        let bytes = Array(html.utf8)
        var start = 0
        while start < bytes.count {
            let end = min(bytes.count, start + (pieceLength ?? bytes.count))
            _ = scanner.feed(bytes[start..<end])
            start = end
        }
        _ = scanner.finish()
        return scanner.documentTree.shownCharacters()
    }

    @Test func readsTheTextThePageShows() {
        let html = "<title>Заголовок</title><script>var s = 'Ελληνικά'</script><style>p { color: red }</style>"
            + "<p>Caf&eacute; &#x416; &#1044; &amp; ok</p><textarea>ё</textarea><img alt='Ω'>"
            + "<input placeholder='ש'><!-- 中文 --><noscript>ק</noscript>"
        for piece in [nil, 1, 2, 3, 5] {
            let characters = Self.documentCharacters(html, pieceLength: piece)
            let shown: [UInt32] = [0xE9, 0x416, 0x414, 0x451, 0x3A9, 0x5E9]
            let missing = shown.filter { !characters.meets($0...$0) }.map { String($0, radix: 16) }
            #expect(missing.isEmpty, "in pieces of \(piece ?? 0)")
            // The title, scripts, styles, comments and noscript (with scripting on) show nothing.
            let hidden: [UInt32] = [0x417, 0x395, 0x4E2D, 0x5E7]
            let seen = hidden.filter { characters.meets($0...$0) }.map { String($0, radix: 16) }
            #expect(seen.isEmpty, "in pieces of \(piece ?? 0)")
            #expect(!characters.isUnbounded)
        }
    }

    @Test func aReferenceWebcacheDoesNotKnowMayBeAnyCharacter() {
        #expect(Self.documentCharacters("<p>&Alpha;</p>").isUnbounded)
        #expect(!Self.documentCharacters("<p>AT&T &copy2024 & more</p>").isUnbounded)
        #expect(Self.documentCharacters("<p>&copy2024</p>").meets(0xA9...0xA9))
    }

    @Test func listItemsQuotesAndControlsAddWhatTheBrowserDraws() {
        #expect(Self.documentCharacters("<ul><li>x</ul>").meets(0x2022...0x2022))
        #expect(Self.documentCharacters("<q>x</q>").meets(0xAB...0xAB))
        #expect(!Self.documentCharacters("<p>x</p>").meets(0xAB...0xAB))
    }

    static func cssCharacters(_ css: String) -> TextCharacters {
        var scanner = CSSScanner(stylesheetURL: URL(string: "https://example.com/s.css")!)
        _ = scanner.feed(Array(css.utf8)) + scanner.finish()
        return scanner.textCharacters
    }

    @Test func contentQuotesAndListStylesShowText() {
        let characters = Self.cssCharacters(#"a::before { content: "\2014  " } q { quotes: "‹" "›" }"#
            + #" ol { list-style: upper-roman inside } .x::after { content: counter(n, decimal) "Ж" }"#)
        for shown: UInt32 in [0x2014, 0x2039, 0x203A, 0x416, 0x49] { #expect(characters.meets(shown...shown)) }
        #expect(!characters.isUnbounded)
        #expect(Self.cssCharacters(#"a::after { content: attr(data-label) }"#).isUnbounded)
        #expect(Self.cssCharacters("ol { list-style-type: lower-greek }").isUnbounded)
        #expect(Self.cssCharacters("ul { list-style: square }").meets(0x25AA...0x25AA))
        // A rule Chromium does not apply shows nothing.
        #expect(Self.cssCharacters(#"@supports (display: -ms-grid) { a::before { content: "Ж" } }"#).isEmpty)
    }

    // MARK: - Faces

    static let splitFaces = """
        @font-face { font-family: Body; src: url(body-cyrillic.woff2) format("woff2");
          unicode-range: U+0301, U+0400-045F, U+0490-0491, U+04B0-04B1, U+2116; }
        @font-face { font-family: Body; src: url(body-latin.woff2) format("woff2");
          unicode-range: U+0000-00FF, U+0131, U+0152-0153, U+2000-206F, U+2074, U+20AC, U+2122, U+FEFF; }
        @font-face { font-family: Body; src: url(body-all.woff2) format("woff2"); unicode-range: U+0-7F, nonsense; }
        body { font-family: Body, sans-serif }
        """

    static func faces(_ html: String, _ css: String = splitFaces) -> [String] {
        DeviceChoiceTests.fetched(#"<link rel=stylesheet href="s.css">"# + html, stylesheets: ["s.css": css],
                                  device: .desktop).filter { $0.hasSuffix(".woff2") }
    }

    @Test func fetchesTheFacesOfTheCharactersThePageShows() {
        #expect(Self.faces("<p>Hello, world") == ["body-latin.woff2", "body-all.woff2"])
        #expect(Self.faces("<p>Привет, мир") == ["body-cyrillic.woff2", "body-latin.woff2", "body-all.woff2"])
        #expect(Self.faces("<p>Hello <span>&#1046;</span>") == ["body-cyrillic.woff2", "body-latin.woff2",
                                                                  "body-all.woff2"])
        #expect(Self.faces(#"<p>Hello</p><img src="x.png" alt="Фото">"#).contains("body-cyrillic.woff2"))
        // Text that only a script writes is not seen, as elements a script makes are not.
        #expect(Self.faces("<p>Hello</p><script>document.body.append('Привет')</script>")
            == ["body-latin.woff2", "body-all.woff2"])
        // `content` in a stylesheet shows its characters too.
        #expect(Self.faces("<p class=x>Hello", Self.splitFaces + #" .x::before { content: "№" }"#)
            == ["body-cyrillic.woff2", "body-latin.woff2", "body-all.woff2"])
    }

    @Test func aSkippedFaceSaysWhy() {
        var scanner = HTMLScanner(documentURL: pageURL)
        let html = "<p>Hello</p><style>\(Self.splitFaces)</style>"
        let references = scanner.feed(Array(html.utf8)) + scanner.finish()
        var selection = PageSelection(chooser: ReferenceChooser(device: .desktop))
        let choices = selection.add(references) + selection.addFontFamilies(scanner.usedFontFamilies)
            + selection.completeDocument(scanner.documentTree) + selection.finish()
        let reasons = Dictionary(uniqueKeysWithValues: choices.map { ($0.reference.url.lastPathComponent, $0.reason) })
        #expect(reasons["body-cyrillic.woff2"] == "the page's text has no character in the face's unicode-range "
            + "'U+0301, U+0400-045F, U+0490-0491, U+04B0-04B1, U+2116'")
        #expect(choices.first { $0.reference.url.lastPathComponent == "body-latin.woff2" }?.fetches == true)
    }

    // MARK: - @import supports()

    static let importConditions: [(String, String, String?)] = [
        (#") supports(display: grid) screen"#, "screen", "display: grid"),
        (#" layer(base) supports((display: grid) and (not (display: inline-grid)))"#, "",
         "(display: grid) and (not (display: inline-grid))"),
        (#" print"#, "print", nil),
        (#" supports(not (display: grid)) (min-width: 600px)"#, "(min-width: 600px)", "not (display: grid)"),
    ]

    @Test(arguments: importConditions)
    func readsAnImportsConditions(_ row: (String, String, String?)) {
        let read = CSSRuleContext.importConditions(row.0)
        #expect(read.media == row.1 && read.supports == row.2, "\(row.0)")
    }

    /// As Chromium 156 does: a `supports()` declaration it does not support drops the `@import`; a
    /// condition that is false leaves it, and the stylesheet is fetched.
    @Test func anImportWhoseSupportsDeclarationIsUnsupportedIsNotFetched() {
        let css = """
            @import url(grid.css) supports(display: grid);
            @import url(ms.css) supports(display: -ms-grid);
            @import "not-grid.css" supports(not (display: grid));
            @import url(selector.css) layer(x) supports(selector(:has(a))) screen;
            @import url(unknown.css) supports(made-up-property: 1);
            """
        let fetched = DeviceChoiceTests.fetched(#"<link rel=stylesheet href="s.css">"#, stylesheets: ["s.css": css],
                                                device: .desktop)
        #expect(fetched == ["s.css", "grid.css", "not-grid.css", "selector.css", "unknown.css"])
    }
}
