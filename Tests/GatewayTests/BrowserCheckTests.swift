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
            #expect(text.contains("index.html 200 hit"))
            #expect(text.contains("PASS: all"))
            #expect(text.contains("PASS: the offline page is pixel-identical to the online one"))
        }
    }
}
