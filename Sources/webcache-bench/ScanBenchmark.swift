import Discovery
import Foundation

/// HTML scanning throughput on pages like the preload benchmark's: tags with references, inline
/// styles and a large comment, fed in 16 KiB chunks as a transfer delivers them.
struct ScanBenchmark {
    private static let pageCount = 40
    private static let chunkSize = 16 * 1024

    func run() {
        let pages = (0..<Self.pageCount).map(Self.page)
        let bytes = pages.reduce(0) { $0 + $1.count }
        let documentURL = URL(string: "https://bench.test/pages/page.html")!
        var references = 0
        // One pass to warm up, then the measured passes.
        var best = Double.infinity
        for _ in 0..<6 {
            let start = DispatchTime.now()
            for page in pages {
                var scanner = HTMLScanner(documentURL: documentURL, charset: "utf-8")
                var offset = 0
                while offset < page.count {
                    let end = min(offset + Self.chunkSize, page.count)
                    references += scanner.feed(page[offset..<end]).count
                    offset = end
                }
                references += scanner.finish().count
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            best = min(best, seconds)
        }
        precondition(references > 0, "The scanner found nothing.")
        let megabytes = Double(bytes) / 1_000_000
        print("| measure | value |")
        print("|---|---|")
        print("| HTML scanned, \(Self.pageCount) pages, \(String(format: "%.1f", megabytes)) MB, 16 KiB chunks "
            + "(best of 5) | \(String(format: "%.0f MB/s", megabytes / best)) |")
    }

    /// A page of about 100 KB: head links, 60 images with srcset and style attributes, a comment of
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
}
