import Discovery
import Foundation

/// Scanning throughput of the HTML and CSS scanners on pages and stylesheets like real ones, fed
/// in 16 KiB chunks as a transfer delivers them.
///
/// - `webcache-bench scan`: a table of the best of five timed passes over each corpus.
/// - `webcache-bench scan --measure`: the same as lines `html <MB/s> <bytes>` and `css <MB/s> <bytes>`.
/// - `webcache-bench scan --passes <n> [--html | --css]`: `n` untimed passes (for instruction counts).
/// - `webcache-bench scan --corpus <dir>`: writes the pages and stylesheets, for other tools to read.
struct ScanBenchmark {
    private static let pageCount = 40
    private static let stylesheetCount = 20
    private static let chunkSize = 16 * 1024
    private static let documentURL = URL(string: "https://bench.test/pages/page.html")!
    private static let stylesheetURL = URL(string: "https://bench.test/css/site.css")!

    let arguments: [String]

    func run() throws {
        let pages = (0..<Self.pageCount).map(Self.page)
        let stylesheets = (0..<Self.stylesheetCount).map(Self.stylesheet)
        if let folder = option("--corpus") {
            let directory = URL(fileURLWithPath: folder)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            for (number, page) in pages.enumerated() {
                try page.write(to: directory.appendingPathComponent("page-\(number).html"))
            }
            for (number, stylesheet) in stylesheets.enumerated() {
                try stylesheet.write(to: directory.appendingPathComponent("sheet-\(number).css"))
            }
            return
        }
        if let passes = option("--passes").flatMap(Int.init) {
            var references = 0
            for _ in 0..<passes {
                if !arguments.contains("--css") { references += Self.scanPages(pages) }
                if !arguments.contains("--html") { references += Self.scanStylesheets(stylesheets) }
            }
            print("\(references) references")
            return
        }
        let html = Self.best { Self.scanPages(pages) }
        let css = Self.best { Self.scanStylesheets(stylesheets) }
        let htmlBytes = pages.reduce(0) { $0 + $1.count }
        let cssBytes = stylesheets.reduce(0) { $0 + $1.count }
        let htmlRate = Double(htmlBytes) / 1e6 / html
        let cssRate = Double(cssBytes) / 1e6 / css
        if arguments.contains("--measure") {
            print("html \(String(format: "%.1f", htmlRate)) \(htmlBytes)")
            print("css \(String(format: "%.1f", cssRate)) \(cssBytes)")
            return
        }
        print("| measure | value |")
        print("|---|---|")
        print("| HTML scanned, \(Self.pageCount) pages, \(String(format: "%.1f", Double(htmlBytes) / 1e6)) MB, "
            + "16 KiB chunks (best of 5) | \(String(format: "%.0f MB/s", htmlRate)) |")
        print("| CSS scanned, \(Self.stylesheetCount) stylesheets, \(String(format: "%.1f", Double(cssBytes) / 1e6)) MB, "
            + "16 KiB chunks (best of 5) | \(String(format: "%.0f MB/s", cssRate)) |")
    }

    private func option(_ name: String) -> String? {
        guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
        return arguments[index + 1]
    }

    /// The best time of five passes after one to warm up, in seconds.
    private static func best(_ pass: () -> Int) -> Double {
        var best = Double.infinity
        var references = 0
        for _ in 0..<6 {
            let start = DispatchTime.now()
            references += pass()
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)
        }
        precondition(references > 0, "The scanner found nothing.")
        return best
    }

    private static func scanPages(_ pages: [Data]) -> Int {
        pages.reduce(0) { references, page in
            var scanner = HTMLScanner(documentURL: documentURL, charset: "utf-8")
            return references + inChunks(page) { scanner.feed($0).count } + scanner.finish().count
        }
    }

    private static func scanStylesheets(_ stylesheets: [Data]) -> Int {
        stylesheets.reduce(0) { references, stylesheet in
            var scanner = CSSScanner(stylesheetURL: stylesheetURL, charset: "utf-8")
            return references + inChunks(stylesheet) { scanner.feed($0).count } + scanner.finish().count
        }
    }

    /// The sum of `feed` over `data` in chunks of ``chunkSize``, as a transfer delivers them.
    private static func inChunks(_ data: Data, _ feed: (Data) -> Int) -> Int {
        var total = 0
        var offset = 0
        while offset < data.count {
            let end = min(offset + chunkSize, data.count)
            total += feed(data[offset..<end])
            offset = end
        }
        return total
    }

    /// A page of about 75 KB: head links, 60 images with srcset and style attributes, a comment of
    /// 60 KB, and text.
    private static func page(_ number: Int) -> Data {
        var html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Page \(number)</title>\n"
        html += "<link rel=\"stylesheet\" href=\"../css/base.css\">\n<script src=\"/js/app.js\" defer></script>\n"
        html += "<style>.block { background: url(/img/block-\(number).png); }</style></head><body>\n"
        for image in 0..<60 {
            html += "<p>Paragraph \(image) of page \(number) with some text &amp; an entity.</p>\n"
            html += "<img src=\"/img/p\(number)-\(image).png\" srcset=\"/img/p\(number)-\(image).png 1x, "
                + "/img/p\(number)-\(image)@2x.png 2x\" alt=\"\" loading=\"lazy\">\n"
            html += "<div style=\"background-image: url('/img/bg-\(image).jpg')\">styled</div>\n"
        }
        html += "<!--" + String(repeating: String(repeating: "x", count: 100) + "\n", count: 600) + "-->\n"
        html += "</body></html>\n"
        return Data(html.utf8)
    }

    /// A stylesheet of about 85 KB like a site's main one: a licence comment, `@import`s,
    /// `@font-face` rules, then sections of rules (selectors, colours, spacing, fonts, some
    /// `url()` backgrounds), `@media` blocks and section comments.
    private static func stylesheet(_ number: Int) -> Data {
        var css = "/*!\n * Theme \(number) v1.2.3 | MIT License\n" + String(repeating: " * text of the licence\n", count: 20)
            + " */\n@import url(\"reset.css\");\n@import \"print.css\" print;\n"
        for weight in [400, 700] {
            css += "@font-face {\n  font-family: \"Body \(number)\";\n  font-weight: \(weight);\n  font-display: swap;\n"
                + "  src: url(\"../fonts/body-\(weight).woff2\") format(\"woff2\"), url(../fonts/body-\(weight).woff) "
                + "format(\"woff\");\n}\n"
        }
        for section in 0..<30 {
            css += "\n/* ==========================================================================\n"
                + "   Section \(section): components\n   ========================================================================== */\n\n"
            for rule in 0..<8 {
                css += ".c\(section)-\(rule), .c\(section)-\(rule) > .item:hover, #main .c\(section)-\(rule)::after {\n"
                css += "  display: flex;\n  margin: 0 auto 1.5rem;\n  padding: 4px 8px;\n  color: #33\(rule)3\(rule)3;\n"
                css += "  border: 1px solid rgba(0, 0, 0, .12);\n  font: 400 1rem/1.5 \"Body \(number)\", Helvetica, sans-serif;\n"
                if rule % 3 == 0 {
                    css += "  background: #fff url(\"../img/s\(section)-\(rule).png\") no-repeat 50% 50%;\n"
                }
                css += "  transition: opacity .2s ease-in-out, transform .2s;\n}\n"
            }
            css += "@media (min-width: 768px) {\n  .c\(section)-0 { flex-direction: row; width: calc(100% - 2rem); }\n"
                + "  .c\(section)-1 { background-image: url(../img/wide-\(section).jpg); }\n}\n"
        }
        return Data(css.utf8)
    }
}
