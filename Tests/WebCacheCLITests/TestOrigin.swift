import Foundation
import HTTPCore
import LocalOrigin

/// A small site on 127.0.0.1 for the end-to-end tests: a page that sets a cookie, its stylesheet
/// and script, an about page that shares the stylesheet and shows a photo (all cacheable for ten
/// minutes), and a 404 for anything else.
enum TestOrigin {
    static let page = "<html><head><link rel=stylesheet href=/style.css><script src=/app.js></script></head></html>\n"
    static let stylesheet = "body { color: teal }\n"
    static let script = "console.log('app')\n"
    static let about = "<html><head><link rel=stylesheet href=/style.css></head><img src=/team.svg></html>\n"
    static let photo = "<svg xmlns='http://www.w3.org/2000/svg'/>\n"

    /// Starts a server; the caller stops it.
    static func start() throws -> OriginServer {
        let server = OriginServer { request in
            switch request.path {
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
            case "/team.svg":
                .text(photo, contentType: "image/svg+xml", headers: ["Cache-Control": "max-age=600"])
            default:
                .text("Not found: \(request.path)\n", status: 404)
            }
        }
        try server.start()
        return server
    }
}
