import ChildProcess
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

/// A navigation a rendered page starts by itself (a client-side redirect) is stopped in its tab and
/// its target rendered as a page of its own in the same run, within the run's rules.
@Suite(.timeLimit(.minutes(3))) struct ClientRedirectTests {
    static func png() -> OriginResponse { RenderRequisiteTests.png() }

    static func html(_ text: String) -> OriginResponse { RenderRequisiteTests.html(text) }

    /// The lines `query` gives, read from the store.
    static func rows(_ fixture: AppFixture, _ query: String) async throws -> [Substring] {
        let child = try ChildProcess.spawn("/usr/bin/sqlite3", ["-readonly", fixture.store, query], output: .pipe)
        let (termination, output, _) = await child.finish()
        #expect(termination.succeeded)
        return String(decoding: output, as: UTF8.self).split(separator: "\n")
    }

    /// The recorded edges of each page, as `kind URL`, read from the store.
    static func edges(_ fixture: AppFixture) async throws -> [String: Set<String>] {
        var edges: [String: Set<String>] = [:]
        for line in try await rows(fixture, "SELECT page_url || ' ' || kind || ' ' || resource_url FROM page_edge") {
            let fields = line.split(separator: " ", maxSplits: 1)
            edges[String(fields[0]), default: []].insert(String(fields[1]))
        }
        return edges
    }

    /// The lines of `text` that say a navigation was followed.
    static func followed(_ text: String) -> [Substring] {
        text.split(separator: "\n").filter { $0.contains("followed navigation to ") }
    }

    /// An app's `/` that calls `location.replace('/app/')`: both pages are stored and recorded, each
    /// with what its own document loaded (the first notes where it goes), and the offline view of
    /// `/` follows the navigation to the stored `/app/` without a request the store cannot answer.
    @Test func aPageThatReplacesItsLocationHasItsTargetRenderedAsAPageOfItsOwn() async throws {
        let fixture = try AppFixture { request in
            switch request.path {
            case "/": Self.html("<img src=/own.png><script>location.replace('/app/')</script>")
            case "/app/": Self.html("<p>the app</p><img src=/app.png>")
            case "/own.png", "/app.png", "/favicon.ico": Self.png()
            default: RenderRequisiteTests.notFound
            }
        }
        let preload = try await fixture.webcache(["preload", "--render", "--render-timeout", "20s", "--store",
                                                  fixture.store, try fixture.urlFile(["/"])])
        let (first, second) = (fixture.server.url("/").absoluteString, fixture.server.url("/app/").absoluteString)
        #expect(preload.exitCode == 0, "\(preload.everything)")
        #expect(preload.stdout.contains("Preloaded 2 page(s) (1 followed from a page's navigation)"),
                "\(preload.everything)")
        #expect(Self.followed(preload.stderr) == ["webcache: followed navigation to \(second) (from \(first))"],
                "\(preload.everything)")
        #expect(!preload.stdout.contains("skipped"), "\(preload.everything)")
        let edges = try await Self.edges(fixture)
        let own = fixture.server.url("/own.png").absoluteString, app = fixture.server.url("/app.png").absoluteString
        let firstEdges = edges[first] ?? []
        #expect(firstEdges.isSuperset(of: ["page \(first)", "image \(own)", "navigation \(second)"]), "\(edges)")
        #expect(!firstEdges.contains { $0.hasSuffix(" \(app)") }, "\(edges)")
        let secondEdges = edges[second] ?? []
        #expect(secondEdges.isSuperset(of: ["page \(second)", "image \(app)"]), "\(edges)")
        #expect(!secondEdges.contains { $0.hasSuffix(" \(own)") || $0.hasSuffix(" \(first)") }, "\(edges)")
        let inspect = try await fixture.webcache(["inspect", "--pages", "--store", fixture.store])
        for page in [first, second] {
            #expect(inspect.stdout.contains("complete: \(page) "), "\(inspect.everything)")
        }
        let before = fixture.server.requests.count
        let view = try await fixture.viewOffline(first)
        #expect(view.exitCode == 0, "\(view.everything)")
        #expect(view.stderr.contains("Viewed \(first) offline"), "\(view.everything)")
        #expect(!view.everything.contains("not in the store"), "\(view.everything)")
        #expect(fixture.server.requests.count == before)
        // Pinning the first page keeps the document it goes on to, not what that document loads.
        let pin = try await fixture.webcache(["pin", first, "--store", fixture.store])
        #expect(pin.exitCode == 0, "\(pin.everything)")
        let pinned = Set(try await Self.rows(fixture, "SELECT url FROM entry WHERE pinned = 1").map(String.init))
        #expect(pinned.isSuperset(of: [first, own, second]), "\(pinned)")
        #expect(!pinned.contains(app), "\(pinned)")
    }

    /// Navigations the page's script starts after its load event or while it loads, from a page
    /// reached by a redirect: each target is rendered once, as a page of its own, and what it loads
    /// is not the navigating pages'.
    @Test func aNavigationAfterTheLoadEventIsFollowedAndATargetIsRenderedOnce() async throws {
        let fixture = try AppFixture { request in
            switch request.path {
            case "/start": OriginResponse(status: 302, headers: ["Location": "/page.html"])
            case "/page.html":
                Self.html("<img src=/own.png><script>"
                    + "addEventListener('load', () => location.href = '/other.html')</script>")
            case "/replace.html": Self.html("<img src=/own.png><script>location.replace('/other.html')</script>")
            case "/other.html": Self.html("<img src=/other.png>")
            case "/own.png", "/other.png", "/favicon.ico": Self.png()
            default: RenderRequisiteTests.notFound
            }
        }
        let preload = try await fixture.webcache(["preload", "--render", "--render-timeout", "20s", "--store",
                                                  fixture.store, try fixture.urlFile(["/start", "/replace.html"])])
        #expect(preload.exitCode == 0, "\(preload.everything)")
        #expect(preload.stdout.contains("Preloaded 3 page(s) (1 followed"), "\(preload.everything)")
        #expect(!preload.stdout.contains("still busy"), "\(preload.everything)")
        let other = fixture.server.url("/other.html").absoluteString
        #expect(Self.followed(preload.stderr).count == 1, "\(preload.everything)")
        #expect(Self.followed(preload.stderr).allSatisfy { $0.contains("to \(other) (from") }, "\(preload.everything)")
        #expect(fixture.server.requests.filter { $0.target == "/other.html" }.count == 1)
        let edges = try await Self.edges(fixture)
        let otherImage = fixture.server.url("/other.png").absoluteString
        for page in ["/start", "/replace.html"] {
            let pageEdges = edges[fixture.server.url(page).absoluteString] ?? []
            #expect(pageEdges.contains("navigation \(other)"), "\(page): \(edges)")
            #expect(!pageEdges.contains { $0.hasSuffix(" \(otherImage)") }, "\(page): \(edges)")
        }
        #expect(edges[other]?.contains("image \(otherImage)") == true, "\(edges)")
        let inspect = try await fixture.webcache(["inspect", "--pages", "--store", fixture.store])
        for page in ["/start", "/replace.html", "/other.html"] {
            #expect(inspect.stdout.contains("complete: \(fixture.server.url(page)) "), "\(inspect.everything)")
        }
    }

    /// A `<meta http-equiv=refresh>` to the real page, at once or after a delay longer than the
    /// settle time, is followed as a script's navigation is.
    @Test func aMetaRefreshIsFollowed() async throws {
        let fixture = try AppFixture { request in
            switch request.path {
            case "/now.html": Self.html("<meta http-equiv=refresh content='0; url=/real.html'><p>moving</p>")
            case "/later.html": Self.html("<meta http-equiv=Refresh content=\"5;URL='/real2.html'\"><p>soon</p>")
            case "/real.html", "/real2.html": Self.html("<img src=/real.png>")
            case "/real.png", "/favicon.ico": Self.png()
            default: RenderRequisiteTests.notFound
            }
        }
        let preload = try await fixture.webcache(["preload", "--render", "--render-timeout", "20s", "--store",
                                                  fixture.store, try fixture.urlFile(["/now.html", "/later.html"])])
        #expect(preload.exitCode == 0, "\(preload.everything)")
        #expect(preload.stdout.contains("Preloaded 4 page(s) (2 followed"), "\(preload.everything)")
        let followed = Self.followed(preload.stderr)
        for (from, to) in [("/now.html", "/real.html"), ("/later.html", "/real2.html")] {
            let line = "webcache: followed navigation to \(fixture.server.url(to)) (from \(fixture.server.url(from)))"
            #expect(followed.contains(Substring(line)), "\(preload.everything)")
        }
        let edges = try await Self.edges(fixture)
        let image = "image \(fixture.server.url("/real.png"))"
        for page in ["/real.html", "/real2.html"] {
            #expect(edges[fixture.server.url(page).absoluteString]?.contains(image) == true, "\(edges)")
        }
    }

    /// A navigation the page asks for while it settles, whose request the browser sends only later
    /// (a `beforeunload` handler holds it for longer than the settle time): the page is not done
    /// while the navigation it asked for is on its way, so its target is followed.
    @Test func aNavigationAskedForWhileThePageSettlesIsFollowedWhenItsRequestComesLate() async throws {
        var slowImage = Self.png()
        slowImage.delay = .milliseconds(300)
        let fixture = try AppFixture { [slowImage] request in
            switch request.path {
            case "/late.html":
                Self.html("<p>late</p><script>addEventListener('beforeunload', () => { "
                    + "const end = Date.now() + 4000; while (Date.now() < end) {} }); "
                    + "addEventListener('load', () => { const image = new Image(); "
                    + "image.onload = () => setTimeout(() => location.href = '/after.html', 0); "
                    + "image.src = '/slow.png' })</script>")
            case "/slow.png": slowImage
            case "/after.html": Self.html("<p>after</p>")
            case "/favicon.ico": Self.png()
            default: RenderRequisiteTests.notFound
            }
        }
        let preload = try await fixture.webcache([
            "preload", "--render", "--settle", "2s", "--render-timeout", "30s", "--store", fixture.store,
            try fixture.urlFile(["/late.html"]),
        ])
        #expect(preload.exitCode == 0, "\(preload.everything)")
        let line = "webcache: followed navigation to \(fixture.server.url("/after.html")) "
            + "(from \(fixture.server.url("/late.html")))"
        #expect(Self.followed(preload.stderr) == [Substring(line)], "\(preload.everything)")
    }

    /// Navigations a page asks for that send no request the tab stops (to `about:blank`, to a
    /// `mailto:` link; within the document, and to a `data:` URL, which the browser refuses) end what
    /// their ask began: the pages settle without waiting for the render timeout (without the ends,
    /// the first two were still busy at it). The page that goes to `about:blank` may replace its
    /// document while the after-load script reads it, which failed the page in a run on a busy
    /// machine: it is preloaded all the same.
    @Test func aNavigationWithoutARequestDoesNotHoldThePageUntilItsTimeout() async throws {
        let fixture = try AppFixture { request in
            switch request.path {
            case "/hash.html":
                Self.html("<p>hash</p><script>addEventListener('load', () => "
                    + "setTimeout(() => location.hash = 'part', 0))</script>")
            case "/data.html":
                Self.html("<p>data</p><script>addEventListener('load', () => "
                    + "setTimeout(() => location.href = 'data:text/html,<p>elsewhere</p>', 0))</script>")
            case "/blank.html":
                Self.html("<p>blank</p><script>addEventListener('load', () => "
                    + "setTimeout(() => location.href = 'about:blank', 0))</script>")
            case "/mail.html":
                Self.html("<p>mail</p><script>addEventListener('load', () => "
                    + "setTimeout(() => location.href = 'mailto:someone@example.com', 0))</script>")
            case "/favicon.ico": Self.png()
            default: RenderRequisiteTests.notFound
            }
        }
        let preload = try await fixture.webcache([
            "preload", "--render", "--render-timeout", "30s", "--store", fixture.store,
            try fixture.urlFile(["/hash.html", "/data.html", "/blank.html", "/mail.html"]),
        ])
        #expect(preload.exitCode == 0, "\(preload.everything)")
        #expect(!preload.stdout.contains("still busy"), "\(preload.everything)")
        #expect(preload.stdout.contains("Preloaded 4 page(s)"), "\(preload.everything)")
    }

    /// `/a` goes to `/b`, which goes back to `/a`: each is rendered once, and the run ends.
    @Test func aLoopOfNavigationsRendersEachPageOnce() async throws {
        let fixture = try AppFixture { request in
            switch request.path {
            case "/a": Self.html("<img src=/a.png><script>location.replace('/b')</script>")
            case "/b": Self.html("<img src=/b.png><script>location.replace('/a')</script>")
            case "/a.png", "/b.png", "/favicon.ico": Self.png()
            default: RenderRequisiteTests.notFound
            }
        }
        let preload = try await fixture.webcache(["preload", "--render", "--render-timeout", "20s", "--store",
                                                  fixture.store, try fixture.urlFile(["/a"])])
        let (a, b) = (fixture.server.url("/a").absoluteString, fixture.server.url("/b").absoluteString)
        #expect(preload.exitCode == 0, "\(preload.everything)")
        #expect(preload.stdout.contains("Preloaded 2 page(s) (1 followed"), "\(preload.everything)")
        #expect(Self.followed(preload.stderr) == ["webcache: followed navigation to \(b) (from \(a))"],
                "\(preload.everything)")
        #expect(fixture.server.requests.filter { $0.target == "/a" }.count == 1)
        #expect(fixture.server.requests.filter { $0.target == "/b" }.count == 1)
        let edges = try await Self.edges(fixture)
        #expect(edges[a]?.isSuperset(of: ["navigation \(b)", "image \(fixture.server.url("/a.png"))"]) == true,
                "\(edges)")
        #expect(edges[b]?.isSuperset(of: ["navigation \(a)", "image \(fixture.server.url("/b.png"))"]) == true,
                "\(edges)")
    }

    /// A chain of pages each going to the next is followed for at most 5 navigations from the
    /// listed page; the next target is listed as skipped.
    @Test func aChainOfNavigationsIsFollowedForAtMostFiveHops() async throws {
        let fixture = try AppFixture { request in
            guard request.path.hasPrefix("/c"), let number = Int(request.path.dropFirst(2)) else {
                return RenderRequisiteTests.notFound
            }
            return Self.html("<p>\(number)</p><script>location.replace('/c\(number + 1)')</script>")
        }
        let preload = try await fixture.webcache(["preload", "--render", "--render-timeout", "20s", "--store",
                                                  fixture.store, try fixture.urlFile(["/c0"])])
        #expect(preload.stdout.contains("Preloaded 6 page(s) (5 followed"), "\(preload.everything)")
        #expect(Self.followed(preload.stderr).count == 5, "\(preload.everything)")
        let asked = Set(fixture.server.requests.map(\.target))
        #expect(asked.isSuperset(of: (0...5).map { "/c\($0)" }), "\(asked)")
        #expect(!asked.contains("/c6"), "\(asked)")
        let far = fixture.server.url("/c6")
        #expect(preload.stderr.contains("skipped \(far): the page navigated to it after 5 navigations"),
                "\(preload.everything)")
        #expect(preload.stdout.contains("1 skipped."), "\(preload.everything)")
    }

    /// A navigation to a denied host is not followed, nor a form the page posts, and each is listed
    /// as skipped with why; another page's navigation in the same run is followed.
    @Test func aNavigationToADeniedHostOrAPostedFormIsNotFollowed() async throws {
        let fixture = try AppFixture { request in
            switch request.path {
            case "/away.html":
                Self.html("<script>location.replace('http://localhost:' + location.port + '/elsewhere.html')</script>")
            case "/form.html":
                Self.html("<form method=post action=/posted.html></form><script>document.forms[0].submit()</script>")
            case "/ok.html": Self.html("<script>location.replace('/target.html')</script>")
            case "/target.html", "/elsewhere.html", "/posted.html": Self.html("<p>target</p>")
            case "/favicon.ico": Self.png()
            default: RenderRequisiteTests.notFound
            }
        }
        let preload = try await fixture.webcache(["preload", "--render", "--render-timeout", "20s",
                                                  "--deny-host", "localhost", "--store", fixture.store,
                                                  try fixture.urlFile(["/away.html", "/form.html", "/ok.html"])])
        #expect(preload.exitCode == 0, "\(preload.everything)")
        let port = fixture.server.baseURL.port ?? 0
        let elsewhere = "http://localhost:\(port)/elsewhere.html"
        #expect(preload.stderr.contains("skipped \(elsewhere): the page navigated to it, and the navigation is "
                                            + "not followed: the host localhost is denied"), "\(preload.everything)")
        let posted = fixture.server.url("/posted.html")
        #expect(preload.stderr.contains("skipped \(posted): the page navigated to it with a POST request "
                                            + "(a form sent)"), "\(preload.everything)")
        #expect(preload.stdout.contains("2 skipped."), "\(preload.everything)")
        #expect(preload.stdout.contains("Preloaded 4 page(s) (1 followed"), "\(preload.everything)")
        let target = fixture.server.url("/target.html").absoluteString
        #expect(Self.followed(preload.stderr) == ["webcache: followed navigation to \(target) "
                                                      + "(from \(fixture.server.url("/ok.html")))"],
                "\(preload.everything)")
        #expect(!fixture.server.requests.contains { $0.target == "/elsewhere.html" || $0.target == "/posted.html" })
        let edges = try await Self.edges(fixture)
        #expect(!(edges[fixture.server.url("/away.html").absoluteString] ?? []).contains { $0.contains(elsewhere) },
                "\(edges)")
    }
}
