import Testing

@testable import Discovery

/// Selectors Level 4 matching over the tree the HTML scanner builds, by table.
struct SelectorMatchingTests {
    static let page = """
        <!doctype html><html class="js" lang="en"><head><title>t</title></head>
        <body id="top" class="home page">
        <header class="site-header"><nav><ul><li class="item first"><a href="/">Home</a>
        <li class="item"><a>News</a><li class="item last">About</ul></nav></header>
        <main><article class="post featured" title="news"><h2>Title</h2><p>One<p>Two
        <figure><img src="a.jpg" alt="x"></figure></article>
        <section class="gallery"><div class="card"></div><div class="card wide"></div><div class="card"></div></section>
        </main><footer><p class="note">Footer</p></footer>
        <template><div class="only-in-template"></div></template>
        </body></html>
        """

    @Test func classesWrittenOverLinesWithCRLFAreSplitAsBrowsersSplitThem() {
        // An attribute value is read after HTML's newline normalization: a CR LF is one line feed,
        // which is whitespace to the class list and to `~=`.
        var scanner = HTMLScanner(documentURL: pageURL)
        _ = scanner.feed(Array("<body><div class=\"card\r\nwide\rtall\"></div></body>".utf8))
        _ = scanner.finish()
        let tree = scanner.documentTree
        for selector in [".wide", ".card.wide.tall", "[class~=wide]", "[class=\"card\\a wide\\a tall\"]"] {
            #expect(SelectorMatcher.anyElement(of: tree, matches: SelectorList(selector)) == .true, "\(selector)")
        }
    }

    static func tree() -> DocumentTree {
        var scanner = HTMLScanner(documentURL: pageURL)
        _ = scanner.feed(Array(page.utf8))
        _ = scanner.finish()
        return scanner.documentTree
    }

    /// (selector, expected): `.unknown` where state decides, which a chooser fetches.
    static let table: [(String, Truth)] = [
        // Type, class, id, universal, attribute (§5–§7).
        ("article", .true), ("aside", .false), ("*", .true),
        (".card", .true), (".card.wide", .true), (".card.narrow", .false), ("#top", .true), ("#bottom", .false),
        ("body.home.page", .true), ("html.js .post", .true), ("html.no-js .post", .false),
        ("[title]", .true), ("[title=news]", .true), ("[title=\"sport\"]", .false),
        ("[class~=featured]", .true), ("[lang|=en]", .true), ("a[href^=\"/\"]", .true), ("img[src$=\".jpg\"]", .true),
        ("img[src*=png]", .false), ("[title=NEWS i]", .true),
        // An attribute the scanner does not keep is undecided.
        ("[data-unkept]", .unknown),
        // Combinators (§16).
        ("nav a", .true), ("header > nav", .true), ("body > nav", .false), ("main article figure img", .true),
        ("h2 + p", .true), ("h2 + figure", .false), ("h2 ~ figure", .true), ("figure ~ h2", .false),
        ("footer .note", .true), ("header .note", .false),
        // Implied end tags: each <li> and <p> is closed by the next.
        ("li > li", .false), ("ul > li.last", .true), ("p > p", .false), ("p + p", .true),
        // Structural pseudo-classes (§14).
        (":root", .true), ("li:first-child", .true), ("li.first:last-child", .false), ("li:last-child.last", .true),
        (".card:nth-child(2).wide", .true), (".card:nth-child(odd).wide", .false), (".card:nth-of-type(3)", .true),
        (".card:nth-last-child(1):not(.wide)", .true), ("li:nth-child(2n+1 of .item)", .true),
        ("h2:only-child", .false), ("img:only-of-type", .true),
        // Logical combinations (§4).
        (":is(aside, article) h2", .true), (":where(.missing) h2", .false), ("div:not(.wide)", .true),
        (".gallery:not(section)", .false), ("article:has(img)", .true), ("article:has(> img)", .false),
        ("article:has(> figure > img)", .true), ("section:has(+ aside)", .false), ("h2:has(+ p)", .true),
        (":is(.nope, .also-nope)", .false),
        // State and pseudo-elements (§9–§13): undecided, or matching their element.
        ("a:hover", .unknown), (".card::before", .true), (".card:before", .true), (".missing::after", .false),
        ("a:not(:hover)", .unknown), ("li:focus-within > a", .unknown), (".missing:hover", .false),
        // Template content is not part of the document.
        (".only-in-template", .false),
        // Other engines' prefixes make Chromium drop the rule.
        ("input::-moz-placeholder, .card", .false), ("::-webkit-scrollbar", .true),
        // A list that does not parse is undecided.
        ("a[", .unknown), ("div >> p", .unknown),
    ]

    @Test(arguments: table)
    func matchesSelectors(_ row: (String, Truth)) {
        let (selector, expected) = row
        #expect(SelectorMatcher.anyElement(of: Self.tree(), matches: SelectorList(selector)) == expected, "\(selector)")
    }

    @Test func buildsTheImpliedHeadAndBody() {
        var scanner = HTMLScanner(documentURL: pageURL)
        _ = scanner.feed(Array("<title>x</title><div class=a><p>text</div>".utf8))
        _ = scanner.finish()
        let tree = scanner.documentTree
        #expect(SelectorMatcher.anyElement(of: tree, matches: SelectorList("html > head > title")) == .true)
        #expect(SelectorMatcher.anyElement(of: tree, matches: SelectorList("html > body > .a > p")) == .true)
    }

    /// The elements of each name, as the tree files them for type selectors, are those the tree
    /// holds with that name: with names coming back in turn, more names than it remembers at once,
    /// and new names between them, which move the names already filed.
    @Test func filesEveryElementUnderItsName() {
        let names = ["p", "img", "div", "span", "em", "p", "b", "i", "img", "u", "div", "s", "p", "q", "em", "code"]
        var html = "<body>"
        for round in 0..<40 {
            for (offset, name) in names.enumerated() where (round + offset) % 3 != 0 || round < 2 {
                html += "<\(name)>x</\(name)>"
            }
            if round % 10 == 9 { html += "<x-\(round)></x-\(round)>" }
        }
        var scanner = HTMLScanner(documentURL: pageURL)
        _ = scanner.feed(Array(html.utf8))
        _ = scanner.finish()
        let tree = scanner.documentTree
        for name in Set(tree.elements.map(\.name)) {
            let held = tree.elements.indices.filter { tree.elements[$0].name == name }
            #expect(tree.candidates(id: nil, className: nil, name: name) == held, "\(name)")
        }
    }
}
