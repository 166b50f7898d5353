import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import WebCache
import WebCacheTestSupport

/// Redirects, spellings of one URL, reference cycles, and failures that retries cannot fix.
@Suite struct PreloadEdgeCaseTests {
    private static func image(_ size: Int = 100) -> OriginResponse {
        OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(size)))
    }

    @Test func referencesInARedirectedPageResolveAgainstWhereItLanded() async throws {
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/old.html":
                return OriginResponse(status: 301, headers: ["Location": "/new/index.html"])
            case "/new/index.html":
                return .text("<link rel=stylesheet href=\"style.css\"><img src=\"pic.png\">", contentType: "text/html")
            case "/new/style.css":
                return .text("p { color: red }", contentType: "text/css")
            case "/new/pic.png":
                return Self.image()
            default:
                return .text("Not found", status: 404)
            }
        }

        let report = await rig.cache.preload(["old.html"])

        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(Set(rig.requestCounts.keys) == ["/old.html", "/new/index.html", "/new/style.css", "/new/pic.png"])
        let status = try rig.cache.store.pageStatus(forPage: rig.url("old.html"))
        #expect(Set(status.missing).isEmpty)
        #expect(status.resourceCount == 3)
        await rig.stop()
    }

    @Test func spellingsOfOneURLAreFetchedOnce() async throws {
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/index.html":
                let port = request.headers["Host"]?.split(separator: ":").last ?? ""
                return .text("""
                    <img src="icons.svg#home"><img src="icons.svg#search"><img src="./icons.svg">
                    <img src="HTTP://127.0.0.1:\(port)/icons.svg"><img src="sub/../icons.svg#x">
                    """, contentType: "text/html")
            case "/icons.svg":
                return OriginResponse(headers: ["Content-Type": "image/svg+xml"], body: .bytes(Data("<svg/>".utf8)))
            default:
                return .text("Not found", status: 404)
            }
        }

        let report = await rig.cache.preload(["index.html", "/index.html", rig.url("index.html"),
                                              rig.url("index.html#top")])

        #expect(report.failures.isEmpty)
        #expect(report.pages == 1)
        #expect(rig.requestCounts == ["/index.html": 1, "/icons.svg": 1])
        #expect(report.completed == 2)
        await rig.stop()
    }

    @Test func importCyclesEnd() async throws {
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/index.html":
                return .text("<link rel=stylesheet href=\"a.css\"><div class=a></div>", contentType: "text/html")
            case "/a.css":
                return .text("@import \"b.css\"; .a { background: url(a.png) }", contentType: "text/css")
            case "/b.css":
                return .text("@import \"a.css\"; @import url(b.css); .b { background: url(a.png) }",
                             contentType: "text/css")
            case "/a.png":
                return Self.image()
            default:
                return .text("Not found", status: 404)
            }
        }

        let report = await rig.cache.preload(["index.html"])

        #expect(report.failures.isEmpty)
        #expect(rig.requestCounts == ["/index.html": 1, "/a.css": 1, "/b.css": 1, "/a.png": 1])
        let status = try rig.cache.store.pageStatus(forPage: rig.url("index.html"))
        #expect(status.isComplete)
        #expect(status.resourceCount == 4)
        await rig.stop()
    }

    @Test func aReferenceThatCannotBeRequestedFailsWithItsReasonAndNoRequest() async throws {
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/index.html":
                return .text("<img src=\"http://127.0.0.1:70000/far.png\"><img src=\"near.png\">", contentType: "text/html")
            default:
                return Self.image()
            }
        }
        let events = PreloadEventLog()

        let report = await rig.cache.preload(["index.html"], events: events.handler)

        let reason = "the URL has the port 70000, which is not a number from 1 to 65535"
        #expect(report.failures.map(\.reason) == [reason])
        #expect(events.failures == ["/far.png": reason])
        #expect(rig.requestCounts == ["/index.html": 1, "/near.png": 1])
        let status = try rig.cache.store.pageStatus(forPage: rig.url("index.html"))
        #expect(!status.isComplete)
        #expect(status.resourceCount == 3)
        await rig.stop()
    }

    @Test func retriesEndAndTheLastReasonIsReported() async throws {
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/index.html":
                return .text("<img src=\"busy.png\">", contentType: "text/html")
            default:
                return .text("Busy", status: 503, headers: ["Retry-After": "0"])
            }
        }
        var options = PreloadOptions()
        options.retries = 3
        let events = PreloadEventLog()

        let report = await rig.cache.preload(["index.html"], options: options, events: events.handler)

        #expect(rig.requestCounts["/busy.png"] == 4)
        #expect(events.retryingPaths.count == 3)
        #expect(events.failures == ["/busy.png": "HTTP 503"])
        #expect(report.failures.map(\.reason) == ["HTTP 503"])
        await rig.stop()
    }

    @Test func anUnreachableHostFailsWithAReasonAfterItsRetries() async throws {
        let refusing = try RefusingPort()
        let deadPort = refusing.port
        let rig = try PreloadRig.start { request in
            if request.path == "/index.html" {
                return .text("<img src=\"http://127.0.0.1:\(deadPort)/gone.png\"><img src=\"ok.png\">",
                             contentType: "text/html")
            }
            return Self.image()
        }
        var options = PreloadOptions()
        options.retries = 1
        options.retryDelay = .milliseconds(1)
        let events = PreloadEventLog()

        let report = await rig.cache.preload(["index.html"], options: options, events: events.handler)

        let gone = "http://127.0.0.1:\(deadPort)/gone.png"
        #expect(report.failures.map(\.url) == [gone])
        let reason = try #require(report.failures.first?.reason)
        #expect(reason.contains("127.0.0.1"), "the reason does not name the host: \(reason)")
        #expect(events.retryingPaths == ["/gone.png"])
        #expect(Set(events.fetchedPaths) == ["/index.html", "/ok.png"])
        await rig.stop()
        withExtendedLifetime(refusing) {}
    }

    /// An origin that varies an answer on what the browser accepts (an image service choosing WebP,
    /// a site in several languages choosing by Accept-Language, a framework answering HTML or JSON by
    /// Accept): the preload asks for pages and images as Chromium does, so the variant stored is
    /// the one Chromium finds offline. A field the caller sets wins.
    @Test func pagesAndImagesAreAskedForAsABrowserAsksSoThatAVariantIsFoundOffline() async throws {
        let image = "image/jxl,image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8"
        let document = "text/html,application/xhtml+xml,application/xml;q=0.9,image/jxl,image/avif,image/webp,"
            + "image/apng,*/*;q=0.8,application/signed-exchange;v=b3;q=0.7"
        let language = "en-US,en;q=0.9"
        let rig = try PreloadRig.start { request in
            let fresh: HTTPHeaders = ["Cache-Control": "max-age=600"]
            switch request.path {
            case "/index.html", "/fr.html":
                let english = request.headers["Accept-Language"]?.hasPrefix("en") == true
                return .text("<link rel=stylesheet href=a.css><script src=s.js></script><img src=photo>"
                             + "<p>\(english ? "Hello" : "Bonjour")",
                             contentType: "text/html",
                             headers: ["Cache-Control": "max-age=600", "Vary": "Accept, Accept-Language"])
            case "/a.css":
                return .text("p {}", contentType: "text/css", headers: fresh)
            case "/s.js":
                return .text("0", contentType: "text/javascript", headers: fresh)
            default:
                let webp = request.headers["Accept"]?.contains("image/webp") == true
                return .text(webp ? "webp" : "jpeg", contentType: webp ? "image/webp" : "image/jpeg",
                             headers: ["Cache-Control": "max-age=600", "Vary": "Accept"])
            }
        }

        let report = await rig.cache.preload(["index.html"])

        #expect(report.succeeded, "\(report.failures)")
        let asked = Dictionary(rig.server.requests.map { ($0.path, $0.headers) }) { $1 }
        #expect(asked["/photo"]?["Accept"] == image)
        #expect(asked["/index.html"]?["Accept"] == document)
        #expect(asked["/index.html"]?["Accept-Language"] == language)
        #expect(asked["/a.css"]?["Accept"] == "text/css,*/*;q=0.1")
        #expect(asked["/a.css"]?["Accept-Language"] == language)
        // A script is asked with libcurl's */*, as Chromium asks for one.
        #expect(asked["/s.js"]?["Accept"] == "*/*")
        #expect(asked["/s.js"]?["Accept-Language"] == language)
        let offline = try await rig.cache.data(
            for: WebRequest(rig.url("photo"), headers: ["Accept": image]), policy: .returnCacheDataDontLoad)
        #expect(String(decoding: offline.body, as: UTF8.self) == "webp")
        let page = try await rig.cache.data(
            for: WebRequest(rig.url("index.html"), headers: ["Accept": document, "Accept-Language": language]),
            policy: .returnCacheDataDontLoad)
        #expect(String(decoding: page.body, as: UTF8.self).hasSuffix("Hello"))

        // The caller's own language is sent instead.
        var configuration = WebCache.Configuration(environment: [:])
        configuration.storePath = rig.folder.storePath
        configuration.instanceURL = rig.server.baseURL
        configuration.requestHeaders["Accept-Language"] = "fr-FR,fr;q=0.9"
        let french = try WebCache(configuration: configuration)
        #expect(await french.preload(["fr.html"]).succeeded)
        #expect(rig.server.requests.last { $0.path == "/fr.html" }?.headers["Accept-Language"] == "fr-FR,fr;q=0.9")
        await rig.stop()
    }

    /// A font, a module script and an image with `crossorigin` are fetched in CORS mode: asked with
    /// the page's Origin, so that an origin answering CORS only when asked (`Vary: Origin`) stores
    /// the answer the browser accepts, and the browser's request finds it offline.
    @Test func corsModeRequisitesCarryThePagesOrigin() async throws {
        let rig = try PreloadRig.start { request in
            let fresh: HTTPHeaders = ["Cache-Control": "max-age=600"]
            switch request.path {
            case "/index.html":
                return .text(#"<link rel=stylesheet href=a.css><script type=module src=mod.js></script>"#
                             + "<img crossorigin src=c.png><img src=plain.png><p>text</p>",
                             contentType: "text/html", headers: fresh)
            case "/a.css":
                return .text("@font-face { font-family: F; src: url(f.woff2) format('woff2') } p { font-family: F }",
                             contentType: "text/css", headers: fresh)
            default:
                var headers: HTTPHeaders = ["Cache-Control": "max-age=600", "Vary": "Origin"]
                if let origin = request.headers["Origin"] { headers["Access-Control-Allow-Origin"] = origin }
                return .text("body", contentType: "application/octet-stream", headers: headers)
            }
        }

        let report = await rig.cache.preload(["index.html"])

        #expect(report.succeeded, "\(report.failures)")
        let page = URL(string: rig.url("index.html"))!
        let origin = "http://\(page.host!):\(page.port!)"
        let origins = Dictionary(rig.server.requests.map { ($0.path, $0.headers["Origin"]) }) { $1 }
        #expect(origins["/f.woff2"] == .some(origin))
        #expect(origins["/mod.js"] == .some(origin))
        #expect(origins["/c.png"] == .some(origin))
        #expect(origins["/plain.png"] == .some(nil))
        #expect(origins["/a.css"] == .some(nil))
        // Offline, the browser's CORS request finds what was stored for it
        for path in ["f.woff2", "mod.js", "c.png"] {
            let stored = try await rig.cache.data(
                for: WebRequest(rig.url(path), headers: ["Origin": origin]), policy: .returnCacheDataDontLoad)
            #expect(stored.headers["Access-Control-Allow-Origin"] == origin, "\(path)")
        }
        await rig.stop()
    }

    /// An SVG document shown by `<object>` loads its images and fonts, which are the page's too; an
    /// SVG in an `<img>` loads nothing.
    @Test func anSVGDocumentInAnObjectBringsWhatItLoads() async throws {
        let svg = #"<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg"><image href="photo.png"/>"#
            + "<style>@font-face { font-family: L; src: url(label.woff2) format('woff2') } text { font-family: L }"
            + "</style><text>hi</text></svg>"
        let rig = try PreloadRig.start { request in
            let fresh: HTTPHeaders = ["Cache-Control": "max-age=600"]
            switch request.path {
            case "/index.html":
                return .text(#"<object data=pic.svg type="image/svg+xml"></object><img src=img.svg>"#,
                             contentType: "text/html", headers: fresh)
            case "/pic.svg", "/img.svg":
                return .text(svg.replacingOccurrences(of: "photo", with: request.path == "/img.svg" ? "no" : "photo"),
                             contentType: "image/svg+xml", headers: fresh)
            default:
                return .text("bytes", contentType: "application/octet-stream", headers: fresh)
            }
        }

        let report = await rig.cache.preload(["index.html"])

        #expect(report.succeeded, "\(report.failures)")
        let paths = Set(rig.server.requests.map(\.path))
        #expect(paths.isSuperset(of: ["/pic.svg", "/img.svg", "/photo.png", "/label.woff2"]), "\(paths)")
        #expect(!paths.contains("/no.png"), "\(paths)")
        await rig.stop()
    }
}
