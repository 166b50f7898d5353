import ChildProcess
import Foundation
import HTTPCore
import LocalOrigin
import Rendering
import Synchronization
import Testing
import WebCacheTestSupport

/// `webcache preload --render` and `webcache view` end to end: the built executable, a real
/// Chromium, and the example app on a local origin.
@Suite(.timeLimit(.minutes(3))) struct RenderCommandTests {
    @Test func preloadStoresWhatTheBrowserAsksForRevalidatesOnlyAgainAndViewsTheSamePixelsOffline() async throws {
        let fixture = try AppFixture()
        // Given what Chromium asks for, and shows, when it opens the pages online
        let onlineScreenshot = try await OnlineChromium.open(fixture.server.url("/"))
        _ = try await OnlineChromium.open(fixture.server.url("/notes"))
        let online = fixture.loggedGets()
        #expect(online.contains("GET \(fixture.server.url("/api/items.json"))"))
        #expect(online.contains("GET \(fixture.server.url("/img/hills.png"))"))
        fixture.server.resetLog()
        let postsBefore = fixture.app.state.withLock { $0.analyticsPosts }

        // When the pages are preloaded rendered
        let urls = try fixture.urlFile(["/", "/notes"])
        let first = try await fixture.webcache(["preload", "--render"] + fixture.signedIn + [urls])

        // Then everything the browser asked for is stored, and nothing else; the POST went out unstored
        #expect(first.exitCode == 0, "\(first.everything)")
        let stored = try await fixture.storedEntries()
        #expect(stored == online, """
            stored but not asked online: \(stored.subtracting(online)); \
            asked online but not stored: \(online.subtracting(stored))
            """)
        #expect(fixture.app.state.withLock { $0.analyticsPosts } == postsBefore + 2)
        #expect(!stored.contains { $0.hasSuffix("/api/analytics") })
        let pages = try await fixture.webcache(["inspect", "--pages", "--store", fixture.store])
        #expect(pages.stdout.contains(fixture.server.url("/notes").absoluteString), "\(pages.everything)")
        #expect(!pages.stdout.contains("missing"), "\(pages.everything)")
        let pin = try await fixture.webcache(["pin", fixture.server.url("/notes").absoluteString, "--store", fixture.store])
        #expect(pin.stdout.contains("Pinned"), "\(pin.everything)")

        // When it runs again, only revalidations cross the network, and no body
        fixture.server.resetLog()
        let second = try await fixture.webcache(["preload", "--render", "--json"] + fixture.signedIn + [urls])
        #expect(second.exitCode == 0, "\(second.everything)")
        let summary = try #require(second.stdout.split(separator: "\n").last { $0.contains(#""event":"summary""#) })
        #expect(summary.contains(#""network":0,"#), "\(summary)")
        #expect(summary.contains(#""networkBytes":0,"#), "\(summary)")
        let gets = fixture.server.requests.filter { $0.method == .get }
        #expect(!gets.isEmpty)
        #expect(gets.allSatisfy { $0.headers["If-None-Match"] != nil }, "\(gets.map(\.target))")

        // When the origin is gone, the offline view shows the same pixels as the page online
        fixture.server.stop()
        let shot = fixture.home.path("offline.png")
        let view = try await fixture.webcache(["view", fixture.server.url("/").absoluteString, "--screenshot", shot]
            + fixture.signedIn)
        #expect(view.exitCode == 0, "\(view.everything)")
        #expect(view.stderr.contains("answered from the store"), "\(view.everything)")
        let offline = try PNGImage(Data(contentsOf: URL(fileURLWithPath: shot)))
        let reference = try PNGImage(onlineScreenshot)
        #expect(offline.width == 1280 && offline.height == 800)
        #expect(offline.differingPixels(from: reference) == 0)
        #expect(fixture.leftoverBrowsers.isEmpty)
    }

    @Test func aSessionThatExpiresMidRenderIsRenewedOnceAndThePageCompletes() async throws {
        let fixture = try AppFixture()
        fixture.app.state.withLock { $0.expireSessionsAfter = "/api/items.json" }
        // A cap far above what the page takes: on a loaded machine, the renewal's round trips and
        // the browser's work have taken past the default 30 s, and the render ended without the poster.
        let result = try await fixture.webcache(
            ["preload", "--render", "--render-timeout", "5m"] + fixture.signedIn + [try fixture.urlFile(["/"])])
        #expect(result.exitCode == 0, "\(result.everything)")
        #expect(fixture.app.state.withLock { $0.sessionStarts } == 2)
        let stored = try await fixture.storedEntries()
        #expect(stored.contains("GET \(fixture.server.url("/api/profile.json"))"))
        #expect(stored.contains("GET \(fixture.server.url("/img/poster.png"))"))
        #expect(!stored.contains { $0.contains("login.do") })
    }

    @Test func aPageThatNeverSettlesEndsAtTheCapAndTheReportSaysSo() async throws {
        let fixture = try AppFixture { request in
            request.path == "/poll"
                ? .text("again", headers: ["Cache-Control": "no-store"])
                : .text("<script>setInterval(() => fetch('/poll'), 50)</script>", contentType: "text/html")
        }
        let result = try await fixture.webcache(["preload", "--render", "--render-timeout", "3s", "--store",
                                                 fixture.store, try fixture.urlFile(["/busy"])])
        #expect(result.exitCode == 0, "\(result.everything)")
        #expect(result.stdout.contains("1 page(s) were still busy at the render timeout"), "\(result.everything)")
        #expect(result.stdout.contains("  \(fixture.server.url("/busy"))"), "\(result.everything)")
        #expect(fixture.leftoverBrowsers.isEmpty)
    }

    /// A page of one image offered at 1x (`/one.png`) and 2x (`/two.png`).
    private static func twoDensities() throws -> AppFixture {
        let pixel = try Data(contentsOf: Repository.root.appendingPathComponent("examples/app/img/pattern.png"))
        return try AppFixture { request in
            switch request.path {
            case "/one.png", "/two.png":
                OriginResponse(status: 200, headers: ["Content-Type": "image/png", "Cache-Control": "max-age=600"],
                               body: .bytes(pixel))
            default:
                .text(#"<img srcset="/one.png 1x, /two.png 2x" width="10" height="10">"#, contentType: "text/html",
                      headers: ["Cache-Control": "max-age=600"])
            }
        }
    }

    @Test func theDeviceDecidesWhichCandidateIsStoredAndHowLargeTheViewIs() async throws {
        let fixture = try Self.twoDensities()
        let device = ["--viewport", "400x300", "--dpr", "2", "--store", fixture.store]
        let preload = try await fixture.webcache(["preload", "--render"] + device + [try fixture.urlFile(["/"])])
        #expect(preload.exitCode == 0, "\(preload.everything)")
        let stored = try await fixture.storedEntries()
        #expect(stored.contains("GET \(fixture.server.url("/two.png"))"))
        #expect(!stored.contains("GET \(fixture.server.url("/one.png"))"))
        let shot = fixture.home.path("small.png")
        let view = try await fixture.webcache(["view", fixture.server.url("/").absoluteString, "--screenshot", shot]
            + device)
        #expect(view.exitCode == 0, "\(view.everything)")
        let image = try PNGImage(Data(contentsOf: URL(fileURLWithPath: shot)))
        #expect(image.width == 800 && image.height == 600)
    }

    /// A request the preload left out for its device, which another device asks for offline, is told
    /// apart from one the preload missed.
    @Test func aViewTellsWhatThePreloadLeftOutForItsDeviceFromWhatItMissed() async throws {
        let fixture = try Self.twoDensities()
        let preload = try await fixture.webcache(
            ["preload", "--viewport", "800x600", "--dpr", "2", "--store", fixture.store, try fixture.urlFile(["/"])])
        #expect(preload.exitCode == 0, "\(preload.everything)")

        let shot = fixture.home.path("one-x.png")
        let view = try await fixture.webcache(["view", fixture.server.url("/").absoluteString, "--screenshot", shot,
                                               "--viewport", "800x600", "--dpr", "1", "--store", fixture.store])

        // (The page names no icon, so the browser asks for /favicon.ico, which the preload missed.)
        #expect(view.exitCode == 0, "\(view.everything)")
        let leftOut = try #require(view.stderr.range(of: "1 left out when the page was preloaded"),
                                   "\(view.everything)")
        #expect(view.stderr[leftOut.upperBound...].contains("  \(fixture.server.url("/one.png")): 800x600 at 2x takes"),
                "\(view.everything)")
        #expect(!view.stderr[..<leftOut.lowerBound].contains("one.png"), "\(view.everything)")
    }

    @Test func viewOfAPageNotInTheStoreIsRefusedBeforeTheBrowserStarts() async throws {
        let fixture = try AppFixture { _ in .text("<p>a page</p>", contentType: "text/html") }
        let preload = try await fixture.webcache(["preload", "--store", fixture.store, try fixture.urlFile(["/"])])
        #expect(preload.exitCode == 0, "\(preload.everything)")
        // A browser that leaves a mark when it is started
        let marker = fixture.home.path("browser-started")
        let browser = try fixture.home.write(Data("#!/bin/sh\ntouch '\(marker)'\nexec chromium \"$@\"\n".utf8),
                                             to: "marked-chromium")
        #expect(chmod(browser, 0o755) == 0)
        let shot = fixture.home.path("missing.png")
        let page = fixture.server.url("/never.html").absoluteString
        let view = try await fixture.webcache(["view", page, "--screenshot", shot, "--chromium", browser,
                                               "--store", fixture.store])
        #expect(view.exitCode == 1, "\(view.everything)")
        #expect(view.stderr.contains("\(page) is not in the store: preload it first"), "\(view.everything)")
        #expect(!FileManager.default.fileExists(atPath: shot), "a capture of the 504 page was written")
        #expect(!FileManager.default.fileExists(atPath: marker), "a browser was started")
    }
}
