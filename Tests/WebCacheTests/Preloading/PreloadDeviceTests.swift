import CacheStore
import Discovery
import Foundation
import LocalOrigin
import Testing
import WebCache
import WebCacheTestSupport

/// The preload engine fetches what a browser on the device fetches, says why it skips the rest,
/// and fetches everything with `fetchesAllCandidates`.
@Suite(.timeLimit(.minutes(1)))
struct PreloadDeviceTests {
    /// What a desktop window (1280×800 at 1x) takes from the site fixture: the 1440w hero for its
    /// 1280px layout width, the AVIF source, the rules that match an element (`body`, the inline
    /// style) but not `.b`, `.c` or `.block`, no `Body` font (no rule uses it), no manifest icons.
    static let desktopShared: Set<String> = [
        "/css/a.css", "/css/b.css", "/css/c.css", "/img/a-bg.png", "/js/shared.js", "/js/app.mjs",
        "/fonts/preloaded.woff2", "/favicon.ico", "/site.webmanifest", "/img/hero-1440.png", "/img/photo.avif",
    ]

    @Test func fetchesWhatTheDeviceNeedsAndSaysWhyItSkipsTheRest() async throws {
        let folder = try TemporaryFolder()
        let site = try PreloadSiteFixture.write(pageCount: 2, to: folder)
        let rig = try PreloadRig.serving(folder.url.appending(path: "site"), in: folder)
        let events = PreloadEventLog()

        let report = await rig.cache.preload(site.pages.map { String($0.dropFirst()) }, events: events.handler)

        #expect(report.failures.isEmpty, "\(report.failures)")
        let own = ["/img/style-1.png", "/img/only-1.png", "/img/style-2.png", "/img/only-2.png"]
        #expect(Set(rig.requestCounts.keys) == Self.desktopShared.union(site.pages).union(own))
        let skipped = events.all.reduce(into: [String: String]()) {
            if case .selected(let url, _, _, false, let reason) = $1 { $0[url.path] = reason }
        }
        #expect(skipped["/img/hero-480.png"] == "1280x800 at 1x takes img/hero-1440.png instead")
        #expect(skipped["/img/b-bg.png"] == "no element of the page matches '.b'")
        #expect(skipped["/fonts/c.woff2"] == "no rule that matches an element of the page uses font family 'body'")
        #expect(skipped["/img/icon-192.png"] == "manifest icons are fetched only with --icons all")
        #expect(skipped["/img/photo.jpg"] != nil && skipped["/img/photo.webp"] != nil)
        // Each page is complete for the device: what was skipped is not among its requisites, and
        // the store says what the page lacks on another device, and why.
        for page in site.pages {
            let status = try rig.cache.store.pageStatus(forPage: rig.url(page))
            #expect(status.isComplete, "\(page)")
            let lacks = try rig.cache.store.skipped(forPage: rig.url(page))
            let reasons = Dictionary(uniqueKeysWithValues: lacks.map { ($0.resourceURL, $0.reason) })
            #expect(reasons[rig.url("/img/hero-480.png")] == "1280x800 at 1x takes img/hero-1440.png instead")
            #expect(reasons[rig.url("/img/block.png")] == "no element of the page matches '.block'")
            let needed = Set(try rig.cache.store.edges(forPage: rig.url(page)).map(\.resourceURL))
            #expect(needed.isDisjoint(with: reasons.keys), "\(page)")
        }
        await rig.stop()
    }

    /// Rules under an `@supports` condition Chromium does not meet are not fetched, and do not
    /// replace those of a condition it meets.
    @Test func skipsWhatAnUnmetSupportsConditionHolds() async throws {
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/index.html":
                return .text(#"<link rel=stylesheet href="s.css"><div class="sp"></div>"#, contentType: "text/html")
            case "/s.css":
                return .text("""
                    @supports (display: grid) { .sp { background: url(sp-grid.png) } }
                    @supports not (display: grid) { .sp { background: url(sp-float.png) } }
                    """, contentType: "text/css")
            default:
                return .text("image", contentType: "image/png")
            }
        }
        let events = PreloadEventLog()

        let report = await rig.cache.preload(["index.html"], events: events.handler)

        #expect(report.failures.isEmpty)
        #expect(Set(rig.requestCounts.keys) == ["/index.html", "/s.css", "/sp-grid.png"])
        let skipped = events.all.reduce(into: [String: String]()) {
            if case .selected(let url, _, _, false, let reason) = $1 { $0[url.path] = reason }
        }
        #expect(skipped["/sp-float.png"] == "its @supports condition 'not (display: grid)' is false in Chromium")
        await rig.stop()
    }

    @Test func aPhoneTakesItsOwnCandidates() async throws {
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/index.html":
                return .text("""
                    <meta name=viewport content="width=device-width, initial-scale=1">
                    <link rel=stylesheet href="s.css"><div class="nav"></div>
                    <img src="a-1x.png" srcset="a-2x.png 2x, a-3x.png 3x">
                    """, contentType: "text/html")
            case "/s.css":
                return .text("""
                    @media (max-width: 600px) { .nav { background: url(nav-narrow.png) } }
                    @media (min-width: 601px) { .nav { background: url(nav-wide.png) } }
                    .modal { background: url(modal.png) }
                    """, contentType: "text/css")
            default:
                return .text("image", contentType: "image/png")
            }
        }
        var options = PreloadOptions()
        options.device = .phone

        let phone = await rig.cache.preload(["index.html"], options: options)

        #expect(phone.failures.isEmpty)
        #expect(Set(rig.requestCounts.keys) == ["/index.html", "/s.css", "/a-3x.png", "/nav-narrow.png"])
        rig.server.resetLog()
        let all = await rig.cache.preload(["index.html"], options: .allCandidates)
        #expect(all.failures.isEmpty)
        // What the phone run stored may be revalidated; the other candidates are fetched now.
        #expect(Set(rig.requestCounts.keys).isSuperset(of: ["/a-1x.png", "/a-2x.png", "/nav-wide.png", "/modal.png"]))
        await rig.stop()
    }

    /// A page that declares no viewport is laid out 980 pixels wide by a phone's browser: the phone
    /// takes the candidates of that width, and of the screen's once a page declares `device-width`.
    /// A frame's document is laid out as wide as its page, whatever it declares itself.
    @Test func aPhoneLaysOutAPageByItsViewportDeclaration() async throws {
        let images = #"<img srcset="a-400.png 400w, a-800.png 800w, a-1600.png 1600w" "#
            + #"sizes="(max-width: 600px) 100vw, 25vw">"#
        let style = "<style>.b { background: url(wide.png) } "
            + "@media (max-width: 600px) { .b { background: url(narrow.png) } }</style><div class=b></div>"
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/legacy.html":
                return .text("<!doctype html>" + style + images + "<iframe src=frame.html></iframe>",
                             contentType: "text/html")
            case "/frame.html":
                return .text(#"<!doctype html><meta name=viewport content="width=device-width">"#
                             + images.replacingOccurrences(of: "a-", with: "f-"),
                             contentType: "text/html")
            case "/mobile.html":
                return .text(#"<!doctype html><meta name=viewport content="width=device-width">"# + style
                    + images.replacingOccurrences(of: "a-", with: "m-"), contentType: "text/html")
            default:
                return .text("image", contentType: "image/png")
            }
        }
        var options = PreloadOptions()
        options.device = .phone
        let events = PreloadEventLog()

        let report = await rig.cache.preload(["legacy.html", "mobile.html"], options: options, events: events.handler)

        #expect(report.failures.isEmpty, "\(report.failures)")
        // A frame is laid out in its box, which a static scan does not know: in its page's layout.
        #expect(Set(rig.requestCounts.keys) == [
            "/legacy.html", "/a-800.png", "/wide.png", "/frame.html", "/f-800.png",
            "/mobile.html", "/m-1600.png", "/narrow.png",
        ])
        let skipped = events.all.reduce(into: [String: String]()) {
            if case .selected(let url, _, _, false, let reason) = $1 { $0[url.path] = reason }
        }
        #expect(skipped["/a-1600.png"] == "980x2120 at 3x takes a-800.png instead")
        #expect(skipped["/m-800.png"] == "390x844 at 3x takes m-1600.png instead")
        await rig.stop()
    }
}
