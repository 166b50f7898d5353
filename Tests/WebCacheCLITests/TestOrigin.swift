import Foundation
import HTTPCore
import LocalOrigin

/// A small site on 127.0.0.1 for the end-to-end tests: a page that sets a cookie, its stylesheet
/// and script, an about page that shares the stylesheet and shows a photo, numbered pages for long
/// runs (`/pages/N.html` shares the stylesheet and shows six photos, `/pages/N/1.svg` to
/// `/pages/N/6.svg`; all cacheable for ten minutes), a page answered only while `gate` is open
/// (`/held.html`), a text sent gzip-coded whatever the request asks (`/coded.txt`), and a 404 for
/// anything else.
enum TestOrigin {
    static let page = "<html><head><link rel=stylesheet href=/style.css><script src=/app.js></script></head></html>\n"
    static let stylesheet = "body { color: teal }\n"
    static let script = "console.log('app')\n"
    static let about = "<html><head><link rel=stylesheet href=/style.css></head><img src=/team.svg></html>\n"
    static let photo = "<svg xmlns='http://www.w3.org/2000/svg'/>\n"
    /// "hello gzip " 100 times, gzip-coded.
    static let codedText = Data(base64Encoded: "H4sIAIylDGsC/8tIzcnJV0ivyixQyBhljjJHmaNMcpkATFbXD0wEAAA=")!

    /// Starts a server that waits `latency` before each response; the caller stops it.
    static func start(latency: Duration = .zero, gate: Gate = Gate()) throws -> OriginServer {
        let server = OriginServer(configuration: .init(latency: latency)) { request in
            switch request.path {
            case "/held.html":
                gate.passing(.text(about, contentType: "text/html; charset=utf-8", headers: ["Cache-Control": "max-age=600"]))
            case "/page.html":
                .text(page, contentType: "text/html; charset=utf-8",
                      headers: ["Cache-Control": "max-age=600", "ETag": "\"page-1\"",
                                "Set-Cookie": "session=s3cr3t-cookie; Path=/; HttpOnly"])
            case "/style.css":
                .text(stylesheet, contentType: "text/css",
                      headers: ["Cache-Control": "max-age=600", "ETag": "\"css-1\""])
            case "/app.js":
                .text(script, contentType: "text/javascript", headers: ["Cache-Control": "max-age=600"])
            case "/about.html":
                .text(about, contentType: "text/html; charset=utf-8", headers: ["Cache-Control": "max-age=600"])
            case "/coded.txt":
                OriginResponse(headers: ["Content-Type": "text/plain", "Content-Encoding": "gzip",
                                         "Cache-Control": "max-age=600", "ETag": "\"gz\""],
                               body: .bytes(codedText))
            case "/team.svg":
                .text(photo, contentType: "image/svg+xml", headers: ["Cache-Control": "max-age=600"])
            case let path where path.hasPrefix("/pages/") && path.hasSuffix(".html"):
                .text(numberedPage(path), contentType: "text/html; charset=utf-8",
                      headers: ["Cache-Control": "max-age=600"])
            case let path where path.hasPrefix("/pages/") && path.hasSuffix(".svg"):
                .text(photo, contentType: "image/svg+xml", headers: ["Cache-Control": "max-age=600"])
            default:
                .text("Not found: \(request.path)\n", status: 404)
            }
        }
        try server.start()
        return server
    }

    /// How many photos a numbered page shows.
    static let numberedPagePhotos = 6

    /// The numbered page at `path` (`/pages/N.html`): the stylesheet and its own photos.
    static func numberedPage(_ path: String) -> String {
        let images = (1...numberedPagePhotos).map { "<img src=\(path.dropLast(5))/\($0).svg>" }.joined()
        return "<html><head><link rel=stylesheet href=/style.css></head>\(images)</html>\n"
    }
}
