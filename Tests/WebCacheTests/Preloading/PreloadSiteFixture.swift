import Foundation
import WebCacheTestSupport

/// A generated site whose pages share assets and use every kind of reference the preloader follows,
/// with the ground truth: the requisites of each page, through stylesheets and the manifest.
struct PreloadSiteFixture {
    /// The page paths, such as `/page-1.html`.
    let pages: [String]
    /// Each page's requisites (paths), through stylesheets and the manifest.
    let requisites: [String: Set<String>]

    /// Every requisite of every page, each once.
    var allRequisites: Set<String> { requisites.values.reduce(into: Set()) { $0.formUnion($1) } }

    /// Every path the site must serve once for a full preload: pages and requisites.
    var allPaths: Set<String> { allRequisites.union(pages) }

    /// The requisites shared by every page.
    static let shared: Set<String> = [
        "/css/a.css", "/css/b.css", "/css/c.css",
        "/img/a-bg.png", "/img/b-bg.png", "/img/c-bg.png", "/fonts/c.woff2",
        "/js/shared.js", "/js/app.mjs", "/fonts/preloaded.woff2",
        "/favicon.ico", "/site.webmanifest", "/img/icon-192.png", "/img/icon-512.png",
        "/img/hero-480.png", "/img/hero-960.png", "/img/hero-1440.png",
        "/img/photo.webp", "/img/photo.avif", "/img/photo.jpg",
        "/img/block.png",
    ]

    /// Writes `pageCount` pages and their assets under `root`.
    static func write(pageCount: Int, to root: TemporaryFolder, under prefix: String = "site")
        throws -> PreloadSiteFixture
    {
        func put(_ path: String, _ text: String) throws { try root.write(prefix + path, text) }
        func putBinary(_ path: String, size: Int) throws {
            try root.write(preloadFiller(size, seed: UInt8(truncatingIfNeeded: path.count)), to: prefix + path)
        }

        // The @import chain: a.css → b.css → c.css, each with a url() image, c.css with a font.
        try put("/css/a.css", "@import \"b.css\";\nbody { background: url(../img/a-bg.png) no-repeat; }\n")
        try put("/css/b.css", "@import url('c.css');\n.b { background-image: url(\"../img/b-bg.png\"); }\n")
        try put("/css/c.css", """
            @font-face { font-family: "Body"; src: url(../fonts/c.woff2) format("woff2"); }
            .c { background: url(../img/c-bg.png); }

            """)
        try put("/js/shared.js", "console.log('shared');\n")
        try put("/js/app.mjs", "export const ready = true;\n")
        try put("/site.webmanifest", """
            {"name": "Fixture", "icons": [{"src": "img/icon-192.png", "sizes": "192x192"},
            {"src": "/img/icon-512.png", "sizes": "512x512"}]}
            """)
        for path in shared where path.hasSuffix(".png") || path.hasSuffix(".woff2") || path.hasSuffix(".ico")
            || path.hasSuffix(".webp") || path.hasSuffix(".avif") || path.hasSuffix(".jpg")
        {
            try putBinary(path, size: 600 + path.count * 37)
        }

        var pages: [String] = []
        var requisites: [String: Set<String>] = [:]
        for index in 1...pageCount {
            let page = "/page-\(index).html"
            let own = ["/img/style-\(index).png", "/img/only-\(index).png"]
            for path in own { try putBinary(path, size: 900 + index * 13) }
            try put(page, """
                <!DOCTYPE html>
                <html><head><meta charset="utf-8"><title>Page \(index)</title>
                <link rel="stylesheet" href="css/a.css">
                <link rel="preload" href="fonts/preloaded.woff2" as="font" type="font/woff2" crossorigin>
                <link rel="icon" href="/favicon.ico">
                <link rel="manifest" href="site.webmanifest">
                <script src="js/shared.js" defer></script>
                <script type="module" src="js/app.mjs"></script>
                <style>.block { background: url(img/block.png); }</style>
                </head><body>
                <div style="background-image: url('img/style-\(index).png')">Styled</div>
                <img src="img/hero-480.png"
                     srcset="img/hero-480.png 480w, img/hero-960.png 960w, img/hero-1440.png 1440w"
                     sizes="100vw" alt="Hero">
                <picture>
                  <source srcset="img/photo.avif" type="image/avif">
                  <source srcset="img/photo.webp" type="image/webp">
                  <img src="img/photo.jpg" alt="Photo">
                </picture>
                <img src="img/only-\(index).png" alt="Own">
                <a href="page-\(index % pageCount + 1).html">Next</a>
                </body></html>

                """)
            pages.append(page)
            requisites[page] = shared.union(own)
        }
        return PreloadSiteFixture(pages: pages, requisites: requisites)
    }
}
