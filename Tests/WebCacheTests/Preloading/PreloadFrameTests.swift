import CacheStore
import Foundation
import LocalOrigin
import Testing
import WebCache
import WebCacheTestSupport

/// Frames and `<noscript>`: what `wget2 --page-requisites` finds beyond a browser's preload scanner.
/// A frame's document is part of the page as shown, with requisites of its own; its links are not.
@Suite struct PreloadFrameTests {
    static let site: [String: (String, String)] = [
        "/index.html": ("text/html", #"""
            <iframe src="frame.html"></iframe>
            <noscript><img src="no-script.png"></noscript>
            <a href="linked.html">a page of its own</a>
            """#),
        "/frame.html": ("text/html", #"""
            <link rel="stylesheet" href="frame.css"><img src="in-frame.png"><a href="frame-link.html">away</a>
            """#),
        "/frame.css": ("text/css", "body { background: url(frame-bg.png) }"),
        "/frames.html": ("text/html", #"<frameset><frame src="left.html"><frame src="frame.html"></frameset>"#),
        "/left.html": ("text/html", #"<img src="left.png"><iframe src="index.html"></iframe>"#),
    ]

    @Test func framesAndNoscriptContentAreFetchedWithThePageAndTheirLinksAreNot() async throws {
        let rig = try PreloadRig.start { request in
            let (type, body) = Self.site[request.path] ?? ("image/png", "png")
            return .text(body, contentType: type)
        }
        let events = PreloadEventLog()

        let report = await rig.cache.preload(["index.html", "frames.html"], events: events.handler)

        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(Set(rig.server.requests.map(\.path)) == [
            "/index.html", "/frame.html", "/frame.css", "/frame-bg.png", "/in-frame.png", "/no-script.png",
            "/frames.html", "/left.html", "/left.png",
        ])
        #expect(rig.requestCounts.values.allSatisfy { $0 == 1 }, "\(rig.requestCounts)")
        let kinds = events.all.compactMap { event -> String? in
            guard case .discovered(let url, let kind, _) = event, url.path.hasSuffix(".html") else { return nil }
            return "\(url.path) \(kind)"
        }
        #expect(Set(kinds) == ["/frame.html document", "/left.html document"])

        // The page's edges go through its frame to what the frame needs.
        let index = try rig.cache.store.pageStatus(forPage: rig.url("index.html"))
        #expect(index.isComplete)
        let edges = Set(try rig.cache.store.edges(forPage: rig.url("index.html")).map(\.resourceURL))
        #expect(edges == Set(["index.html", "frame.html", "frame.css", "frame-bg.png", "in-frame.png", "no-script.png"]
            .map(rig.url)))
        #expect(try rig.cache.store.pageStatus(forPage: rig.url("frames.html")).isComplete)
        await rig.stop()
    }
}
