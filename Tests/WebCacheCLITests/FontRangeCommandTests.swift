import Foundation
import LocalOrigin
import Testing
import WebCacheTestSupport

/// `webcache preload --device` on a family split by `unicode-range` into a Latin and a Cyrillic
/// face, as web font services serve them: a page fetches the faces whose range holds a character of
/// its text; and an `@import` whose `supports()` declaration Chromium does not support is not fetched,
/// while one whose `supports()` condition is false is, as in Chromium, with none of its rules applied.
@Suite(.timeLimit(.minutes(5)))
final class FontRangeCommandTests: @unchecked Sendable {  // Every stored property is a constant.
    let folder: TemporaryFolder
    let origin: OriginServer
    let webcache: WebcacheRunner

    static let stylesheet = """
        @import url(grid.css) supports(display: grid);
        @import url(legacy.css) supports(display: -ms-grid);
        @import url(old.css) supports(not (display: grid));
        @font-face { font-family: Body; src: url(fonts/body-cyrillic.woff2) format("woff2");
          unicode-range: U+0301, U+0400-045F, U+0490-0491, U+04B0-04B1, U+2116; }
        @font-face { font-family: Body; src: url(fonts/body-latin.woff2) format("woff2");
          unicode-range: U+0000-00FF, U+0131, U+0152-0153, U+2000-206F, U+2074, U+20AC, U+2122, U+FEFF; }
        body { font-family: Body, sans-serif }
        """

    init() throws {
        folder = try TemporaryFolder()
        origin = OriginServer { request in
            switch request.path {
            case "/latin.html":
                .text("<!doctype html><link rel=stylesheet href=site.css><p>Hello, world", contentType: "text/html")
            case "/cyrillic.html":
                // Declared: a page that declares nothing is windows-1252, as in browsers.
                .text("<!doctype html><link rel=stylesheet href=site.css><p>Привет, мир",
                      contentType: "text/html; charset=utf-8")
            case "/referenced.html":
                .text("<!doctype html><link rel=stylesheet href=site.css><p>Hello &#x416;", contentType: "text/html")
            case "/marked.html":
                .text("<!doctype html><link rel=stylesheet href=site.css><link rel=stylesheet href=marks.css><p>Hello",
                      contentType: "text/html")
            case "/site.css": .text(Self.stylesheet, contentType: "text/css")
            // Declared: a stylesheet that declares nothing is read in its page's encoding, windows-1252
            // for this undeclared page (CSS Syntax §3.2), which makes the sign "â„–", as in Chromium.
            case "/marks.css": .text(#"p::before { content: "№ " }"#, contentType: "text/css; charset=utf-8")
            case "/grid.css": .text("body { background: url(grid-bg.png) }", contentType: "text/css")
            case "/legacy.css": .text("p { margin: 0 }", contentType: "text/css")
            case "/old.css": .text("body { background: url(old-bg.png) }", contentType: "text/css")
            default: .text("font", contentType: "font/woff2")
            }
        }
        try origin.start()
        webcache = WebcacheRunner(home: folder)
    }

    deinit {
        origin.stop()
    }

    /// The paths `webcache preload --device desktop` requests for `page`, into a store of its own.
    private func preload(_ page: String) async throws -> (paths: Set<String>, output: String) {
        origin.resetLog()
        let list = try folder.write(Data("\(page)\n".utf8), to: "urls-\(page).txt")
        let result = try await webcache.run([
            "preload", list, "--instance", origin.baseURL.absoluteString, "--device", "desktop", "--json",
            "--store", folder.path("store-\(page).sqlite"),
        ])
        try #require(result.exitCode == 0, "preload failed: \(result.everything)")
        return (Set(origin.requests.map(\.path)), result.stdout)
    }

    @Test func aLatinPageLeavesTheCyrillicFaceAndAPageWithCyrillicTextTakesIt() async throws {
        // Chromium 156 requests the same: the Latin face for `Hello, world`, both for `Привет, мир`
        // (its space and comma are in the Latin range), `grid.css` and its image, `old.css` without
        // its image, not `legacy.css`.
        let latin = try await preload("latin.html")
        #expect(latin.paths == [
            "/latin.html", "/site.css", "/grid.css", "/grid-bg.png", "/old.css", "/fonts/body-latin.woff2",
        ], "\(latin)")
        #expect(latin.output.contains(
            #""url":"\#(origin.url("/fonts/body-cyrillic.woff2").absoluteString)""#), "\(latin.output)")
        #expect(latin.output.contains("the page's text has no character in the face's unicode-range"),
                "\(latin.output)")
        #expect(latin.output.contains("Chromium does not support its supports() declaration 'display: -ms-grid', "
            + "which makes the @import invalid"), "\(latin.output)")

        let cyrillic = try await preload("cyrillic.html")
        #expect(cyrillic.paths == [
            "/cyrillic.html", "/site.css", "/grid.css", "/grid-bg.png", "/old.css", "/fonts/body-latin.woff2",
            "/fonts/body-cyrillic.woff2",
        ], "\(cyrillic)")

        // A character reference counts as the character it stands for, and so does a character
        // that another stylesheet's `content` shows.
        let referenced = try await preload("referenced.html")
        #expect(referenced.paths.contains("/fonts/body-cyrillic.woff2"), "\(referenced)")
        let marked = try await preload("marked.html")
        #expect(marked.paths.contains("/fonts/body-cyrillic.woff2"), "\(marked)")
    }
}
