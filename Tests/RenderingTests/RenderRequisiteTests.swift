import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

/// What a rendered page's requests count for: the frames of other sites, the browser's own favicon
/// request, requisites that fail, and responses that ask not to be stored.
@Suite(.timeLimit(.minutes(3))) struct RenderRequisiteTests {
    static let pixel = try! Data(contentsOf: Repository.root.appendingPathComponent("examples/app/img/pattern.png"))

    static func png(_ cacheControl: String = "max-age=600") -> OriginResponse {
        OriginResponse(status: 200, headers: ["Content-Type": "image/png", "Cache-Control": cacheControl],
                       body: .bytes(pixel))
    }

    static func html(_ text: String) -> OriginResponse {
        .text(text, contentType: "text/html", headers: ["Cache-Control": "max-age=600"])
    }

    static let notFound = OriginResponse.text("not here", status: 404)

    @Test func aFrameOfAnotherSiteIsAnsweredThroughTheStoreAndShowsOffline() async throws {
        // The page is on 127.0.0.1 and its frame on localhost: another site, which site isolation
        // would give a process of its own.
        let fixture = try AppFixture { request in
            switch request.path {
            case "/":
                Self.html("""
                    <p>outer</p><script>
                    const frame = document.createElement('iframe');
                    frame.src = 'http://localhost:' + location.port + '/xframe.html';
                    document.body.append(frame);
                    </script>
                    """)
            case "/xframe.html":
                Self.html("""
                    <img src=/img/x.png><script>
                    fetch('/api/data.json').then(r => r.json()).then(d => document.body.append(d.text));
                    </script>
                    """)
            case "/img/x.png", "/favicon.ico": Self.png()
            case "/api/data.json":
                .text(#"{"text": "from the API"}"#, contentType: "application/json",
                      headers: ["Cache-Control": "max-age=600"])
            default: Self.notFound
            }
        }
        let preload = try await fixture.webcache(["preload", "--render", "--render-timeout", "20s", "--store",
                                                  fixture.store, try fixture.urlFile(["/"])])
        let asked = Set(fixture.server.requests.map(\.target))
        #expect(asked.isSuperset(of: ["/", "/xframe.html", "/img/x.png", "/api/data.json"]), "\(asked)")
        #expect(preload.exitCode == 0, "\(preload.everything)")
        #expect(!preload.stdout.contains("still busy"), "\(preload.everything)")
        let before = fixture.server.requests.count
        let view = try await fixture.viewOffline(fixture.server.url("/").absoluteString)
        #expect(view.exitCode == 0, "\(view.everything)")
        #expect(!view.everything.contains("not in the store"), "\(view.everything)")
        #expect(fixture.server.requests.count == before)
        #expect(fixture.leftoverBrowsers.isEmpty)
    }

    /// A module script from another site, whose server allows CORS only when asked (an
    /// `Access-Control-Allow-Origin` for the `Origin` sent, `Vary: Origin`): the browser's `Origin` is
    /// passed on, so the module runs while the page renders and again offline.
    @Test func aCrossOriginModuleIsAskedWithTheBrowsersOriginAndRunsOffline() async throws {
        let fixture = try AppFixture { request in
            switch request.path {
            case "/":
                Self.html(#"<p>page</p><script>const s = document.createElement('script'); s.type = 'module';"#
                          + #" s.src = 'http://localhost:' + location.port + '/mod.js'; document.body.append(s);"#
                          + "</script>")
            case "/mod.js":
                {
                    var headers: HTTPHeaders = ["Content-Type": "text/javascript", "Cache-Control": "max-age=600",
                                                "Vary": "Origin"]
                    if let origin = request.headers["Origin"] { headers["Access-Control-Allow-Origin"] = origin }
                    return OriginResponse(status: 200, headers: headers, body: .bytes(Data(
                        "const i = document.createElement('img'); i.src = '/img/after.png'; document.body.append(i);"
                            .utf8)))
                }()
            case "/img/after.png", "/favicon.ico": Self.png()
            default: Self.notFound
            }
        }
        let preload = try await fixture.webcache(["preload", "--render", "--render-timeout", "20s", "--store",
                                                  fixture.store, try fixture.urlFile(["/"])])
        #expect(preload.exitCode == 0, "\(preload.everything)")
        let module = try #require(fixture.server.requests.first { $0.path == "/mod.js" })
        #expect(module.headers["Origin"] == "http://127.0.0.1:\(fixture.server.port)")
        #expect(try await fixture.storedEntries().contains("GET \(fixture.server.url("/img/after.png"))"))
        let view = try await fixture.viewOffline(fixture.server.url("/").absoluteString)
        #expect(view.exitCode == 0, "\(view.everything)")
        #expect(!view.everything.contains("not in the store"), "\(view.everything)")
        #expect(fixture.leftoverBrowsers.isEmpty)
    }

    /// A page that varies on Accept-Language (a site in several languages): rendered or preloaded
    /// statically, it is asked with the browser's language, and offline the browser finds it.
    @Test func aPageThatVariesOnTheLanguageIsStoredForTheBrowsersAndShownOffline() async throws {
        let fixture = try AppFixture { request in
            switch request.path {
            case "/rendered", "/static":
                OriginResponse(status: 200, headers: [
                    "Content-Type": "text/html", "Cache-Control": "max-age=600", "Vary": "Accept-Language",
                ], body: .bytes(Data("<p>\(request.headers["Accept-Language"] ?? "none")</p>".utf8)))
            case "/favicon.ico": Self.png()
            default: Self.notFound
            }
        }
        let rendered = try await fixture.webcache(["preload", "--render", "--store", fixture.store,
                                                   try fixture.urlFile(["/rendered"])])
        #expect(rendered.exitCode == 0, "\(rendered.everything)")
        let preloaded = try await fixture.webcache(["preload", "--store", fixture.store,
                                                    try fixture.urlFile(["/static"])])
        #expect(preloaded.exitCode == 0, "\(preloaded.everything)")
        for path in ["/rendered", "/static"] {
            let asked = try #require(fixture.server.requests.first { $0.path == path })
            #expect(asked.headers["Accept-Language"] == "en-US,en;q=0.9", "\(path)")
            let view = try await fixture.viewOffline(fixture.server.url(path).absoluteString)
            #expect(view.exitCode == 0, "\(path): \(view.everything)")
            #expect(!view.everything.contains("not in the store"), "\(path): \(view.everything)")
        }
        #expect(fixture.leftoverBrowsers.isEmpty)
    }

    @Test func theBrowsersOwnFaviconRequestIsNoRequisiteAndADeclaredIconIs() async throws {
        let fixture = try AppFixture { request in
            switch request.path {
            case "/plain": Self.html("<p>no icon</p>")
            case "/declared": Self.html("<link rel=icon href=/favicon.ico><p>an icon</p>")
            default: Self.notFound
            }
        }
        // The browser asks for the icon by itself soon after the load event; three quiet seconds leave
        // it time to on a busy machine (the test checks that it did). It asks once for an origin, so
        // each page is rendered by a browser of its own.
        for path in ["/plain", "/declared"] {
            let before = fixture.server.requests.filter { $0.target == "/favicon.ico" }.count
            let preload = try await fixture.webcache(["preload", "--render", "--settle", "3s", "--store",
                                                      fixture.store, try fixture.urlFile([path])])
            #expect(fixture.server.requests.filter { $0.target == "/favicon.ico" }.count > before,
                    "\(path): \(preload.everything)")
        }
        let inspect = try await fixture.webcache(["inspect", "--pages", "--store", fixture.store])
        let lines = inspect.stdout.split(separator: "\n")
        let plain = fixture.server.url("/plain").absoluteString
        let declared = fixture.server.url("/declared").absoluteString
        #expect(lines.contains { $0.hasPrefix("complete: \(plain) ") }, "\(inspect.everything)")
        #expect(lines.contains { $0.hasPrefix("incomplete: \(declared) ") }, "\(inspect.everything)")
    }

    /// An event stream never ends: the browser's request for one is failed and never reaches the
    /// origin (Chromium 156 types it `Other`, so its `Accept: text/event-stream` tells it).
    @Test func anEventStreamIsFailedAndNotSent() async throws {
        let fixture = try AppFixture { request in
            switch request.path {
            case "/": Self.html(#"<img src=/a.png><script>new EventSource("/sse")</script>"#)
            case "/a.png", "/favicon.ico": Self.png()
            default: Self.notFound
            }
        }
        let preload = try await fixture.webcache(["preload", "--render", "--store", fixture.store,
                                                  try fixture.urlFile(["/"])])
        #expect(fixture.server.requests.contains { $0.target == "/a.png" }, "\(preload.everything)")
        #expect(!fixture.server.requests.contains { $0.target == "/sse" }, "\(preload.everything)")
    }

    @Test func aRequisiteThatFailsIsAFailureOfTheRun() async throws {
        let fixture = try AppFixture { request in
            switch request.path {
            case "/": Self.html(#"<p>a script is missing</p><script src="/js/missing.js"></script>"#)
            case "/favicon.ico": Self.png()
            default: Self.notFound
            }
        }
        let preload = try await fixture.webcache(["preload", "--render", "--store", fixture.store,
                                                  try fixture.urlFile(["/"])])
        #expect(preload.exitCode == 1, "\(preload.everything)")
        #expect(preload.stdout.contains("1 failed:\n  \(fixture.server.url("/js/missing.js")): HTTP 404"),
                "\(preload.everything)")
    }

    @Test func aResponseThatMayNotBeStoredIsListedAndRecorded() async throws {
        let fixture = try AppFixture { request in
            switch request.path {
            case "/": Self.html("<img src=/live.png>")
            case "/live.png": Self.png("no-store")
            case "/favicon.ico": Self.png()
            default: Self.notFound
            }
        }
        let preload = try await fixture.webcache(["preload", "--render", "--store", fixture.store,
                                                  try fixture.urlFile(["/"])])
        #expect(preload.exitCode == 0, "\(preload.everything)")
        #expect(preload.stdout.contains("1 fetched and not stored, as their responses ask:\n"
            + "  \(fixture.server.url("/live.png")): response has no-store"), "\(preload.everything)")
        let inspect = try await fixture.webcache(["inspect", "--pages", "--store", fixture.store])
        #expect(inspect.stdout.contains("not stored: response has no-store"), "\(inspect.everything)")
    }

    /// Chromium finishes loading a `fetch()` response marked `no-store` only once the page reads
    /// its body: one the page never reads does not hold the page until the cap.
    @Test func aFetchedResponseThePageNeverReadsDoesNotHoldThePage() async throws {
        let fixture = try AppFixture { request in
            switch request.path {
            case "/": Self.html("<img src=/a.png><script>fetch('/live.json')</script>")
            case "/live.json":
                .text(#"{"live": true}"#, contentType: "application/json", headers: ["Cache-Control": "no-store"])
            case "/a.png", "/favicon.ico": Self.png()
            default: Self.notFound
            }
        }
        let preload = try await fixture.webcache(["preload", "--render", "--render-timeout", "20s", "--store",
                                                  fixture.store, try fixture.urlFile(["/"])])
        #expect(fixture.server.requests.contains { $0.target == "/live.json" }, "\(preload.everything)")
        #expect(preload.exitCode == 0, "\(preload.everything)")
        #expect(!preload.stdout.contains("still busy"), "\(preload.everything)")
        #expect(preload.stdout.contains("\(fixture.server.url("/live.json")): response has no-store"),
                "\(preload.everything)")
    }

    /// A service worker the page registers is a target of its own: its script, and the script that
    /// imports, are answered through the store as the page's requests, and the offline view finds
    /// them.
    /// The page holds a request until the origin has served the worker's import, so that it cannot
    /// settle before (a safety net of 15 s for a worker that is never fetched).
    @Test func aServiceWorkersScriptsAreStoredAsThePagesAndFoundOffline() async throws {
        let imported = DispatchSemaphore(value: 0)
        let script = { @Sendable (text: String) in
            OriginResponse.text(text, contentType: "text/javascript", headers: ["Cache-Control": "max-age=600"])
        }
        let fixture = try AppFixture { request in
            switch request.path {
            case "/":
                return Self.html("""
                    <p>a page with a worker</p><script>
                    navigator.serviceWorker.register('/sw.js');
                    fetch('/after-worker.json').then(r => r.text());
                    </script>
                    """)
            case "/sw.js":
                return script("importScripts('/lib.js');")
            case "/lib.js":
                imported.signal()
                return script("self.addEventListener('install', () => {});")
            case "/after-worker.json":
                _ = imported.wait(timeout: .now() + 15)
                return .text("{}", contentType: "application/json", headers: ["Cache-Control": "max-age=600"])
            case "/favicon.ico":
                return Self.png()
            default:
                return Self.notFound
            }
        }
        let preload = try await fixture.webcache(["preload", "--render", "--render-timeout", "60s", "--store",
                                                  fixture.store, try fixture.urlFile(["/"])])
        #expect(preload.exitCode == 0, "\(preload.everything)")
        let asked = Set(fixture.server.requests.map(\.target))
        #expect(asked.isSuperset(of: ["/sw.js", "/lib.js"]), "\(asked)")
        let stored = try await fixture.storedEntries()
        let worker = ["GET \(fixture.server.url("/sw.js"))", "GET \(fixture.server.url("/lib.js"))"]
        #expect(stored.isSuperset(of: worker), "\(stored)")

        fixture.server.stop()
        let view = try await fixture.viewOffline(fixture.server.url("/").absoluteString)
        #expect(view.exitCode == 0, "\(view.everything)")
        #expect(!view.everything.contains("not in the store"), "\(view.everything)")
        #expect(fixture.leftoverBrowsers.isEmpty)
    }
}
