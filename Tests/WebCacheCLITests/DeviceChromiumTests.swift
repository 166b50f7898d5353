import ChildProcess
import Foundation
import Testing
import WebCacheTestSupport

/// Headless Chromium and `webcache preload` load the same fixture pages (a news front page, a blog
/// post, a shop, a bilingual article whose font is split by `unicode-range`) through a local origin
/// that logs every request, with the same viewport and pixel ratio, on the desktop and the phone
/// profile; the logs are compared. The work is done by `scripts/compare-device.sh --quick`, which
/// people can also run by hand.
@Suite(.timeLimit(.minutes(3)))
struct DeviceChromiumTests {
    static var chromiumIsInstalled: Bool {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// A row of the script's table: profile, choice, recall and precision in percent.
    struct Figures: Equatable {
        var recall: Double
        var precision: Double
    }

    static func figures(in text: String) -> [String: Figures] {
        var rows: [String: Figures] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| ") && line.hasSuffix("% |") {
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count == 6, let recall = Double(cells[4].dropLast()), let precision = Double(cells[5].dropLast())
            else { continue }
            rows["\(cells[0]) \(cells[1])"] = Figures(recall: recall, precision: precision)
        }
        return rows
    }

    @Test(.enabled(if: chromiumIsInstalled, "Chromium is not installed; run scripts/install-deps.sh chromium"))
    func discoveryFetchesWhatChromiumRequests() async throws {
        let (termination, text) = try await CheckScript.run("compare-device.sh", options: ["--quick"])
        #expect(termination == .exited(0), "\(text)")

        let rows = Self.figures(in: text)
        for profile in ["desktop", "phone"] {
            let device = try #require(rows["\(profile) device"], "\(text)")
            let all = try #require(rows["\(profile) --all-candidates"], "\(text)")
            // Everything Chromium asks for is fetched, by the device's choice and by every candidate.
            #expect(device.recall == 100, "\(profile): \(text)")
            #expect(all.recall == 100, "\(profile): \(text)")
            // At least 90% of what is fetched Chromium asks for too (the rest: CSS images for elements
            // that `display: none` or `:hover` keep from showing, see docs/device-profile.md).
            #expect(device.precision >= 90, "\(profile): \(text)")
            #expect(all.precision < 40, "\(profile): \(text)")
        }
    }
}
