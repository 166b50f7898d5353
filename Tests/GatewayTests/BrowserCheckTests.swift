import ChildProcess
import Foundation
import Testing
import WebCacheTestSupport

/// The checks that run headless Chromium, one at a time: each starts a browser, a gateway and an
/// origin, which together take most of a small machine for a while.
@Suite(.serialized)
struct BrowserChecks {}

extension BrowserChecks {
    /// Headless Chromium reads `examples/site` through `webcache serve --offline`: every sub-resource
    /// must come from the store, and the offline page must be pixel-identical to the online one.
    /// The work is done by `scripts/browser-check.sh`, which people can also run by hand.
    @Suite(.timeLimit(.minutes(5)))
    struct BrowserCheckTests {
        static var chromiumIsInstalled: Bool {
            ["/usr/bin/chromium", "/usr/bin/chromium-browser"].contains {
                FileManager.default.isExecutableFile(atPath: $0)
            }
        }

        @Test(.enabled(if: chromiumIsInstalled, "Chromium is not installed; run scripts/install-deps.sh chromium"))
        func offlinePageComesFromTheStoreAndLooksLikeTheOnlineOne() async throws {
            let (termination, text) = try await CheckScript.run("browser-check.sh")
            #expect(termination == .exited(0), "\(text)")
            // The page says no-cache: offline it is served without the request it asks for, so stale.
            #expect(text.contains("index.html 200 stale"))
            #expect(text.contains("css/main.css 200 hit"))
            #expect(text.contains("PASS: all"))
            #expect(text.contains("PASS: the offline page is pixel-identical to the online one"))
        }
    }
}

extension BrowserChecks {
    /// pywb, the web archives' replay tool, replays `webcache export --warc` of `examples/site` in
    /// headless Chromium with the same pixels as webcache's offline gateway, every resource found in
    /// the export. The work is done by `scripts/pywb-check.sh`; pywb comes from the virtual
    /// environment scripts/install-deps.sh makes.
    @Suite(.timeLimit(.minutes(5)))
    struct PywbReplayTests {
        static var pywbIsInstalled: Bool {
            FileManager.default.isExecutableFile(atPath: Repository.file(".build/venv/bin/wayback").path)
        }

        @Test(.enabled(if: BrowserCheckTests.chromiumIsInstalled && pywbIsInstalled,
                       "Chromium or pywb is not installed; run scripts/install-deps.sh"))
        func pywbReplaysTheExportWithTheSamePixelsAsTheGateway() async throws {
            let (termination, text) = try await CheckScript.run("pywb-check.sh")
            #expect(termination == .exited(0), "\(text)")
            #expect(text.contains("PASS: pywb found all"), "\(text)")
            #expect(text.contains("PASS: the page replayed by pywb is pixel-identical to webcache's offline page"),
                    "\(text)")
        }
    }
}
