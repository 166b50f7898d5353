import ChildProcess
import Foundation
import Testing
import WebCacheTestSupport

extension BrowserChecks {
    /// Headless Chromium plays a small stored WebM through `webcache serve --offline` and seeks to its
    /// middle: every request it makes for the video is answered from the store with 206 (or 304, when
    /// it asks again, conditionally, for bytes it holds). The work is done by
    /// `scripts/video-seek-check.sh`, which people can also run by hand.
    @Suite(.timeLimit(.minutes(2)))
    struct VideoSeekTests {
        static var toolsAreInstalled: Bool {
            ["/usr/bin/chromium", "/usr/bin/ffmpeg"].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
        }

        @Test(.enabled(if: toolsAreInstalled, "Chromium or ffmpeg is not installed; run scripts/install-deps.sh"))
        func offlineVideoIsSoughtWithRangesFromTheStore() async throws {
            let (termination, text) = try await CheckScript.run("video-seek-check.sh")
            #expect(termination == .exited(0), "\(text)")
            #expect(text.contains("PASS: the video was sought to its middle (seeked-3.0)"))
            #expect(text.contains("requests for the video were answered from the store"), "\(text)")
        }
    }
}
