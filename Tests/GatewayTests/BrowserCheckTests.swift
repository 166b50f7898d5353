import Foundation
import Testing

/// Headless Chromium reads `examples/site` through `webcache serve --offline`: every sub-resource
/// must come from the store, and the offline page must be pixel-identical to the online one.
/// The work is done by `scripts/browser-check.sh`, which people can also run by hand.
@Suite(.timeLimit(.minutes(1)))
struct BrowserCheckTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let binaries = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

    static var chromiumIsInstalled: Bool {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"].contains { FileManager.default.isExecutableFile(atPath: $0) }
    }

    @Test(.enabled(if: chromiumIsInstalled, "Chromium is not installed; run scripts/install-deps.sh chromium"))
    func offlinePageComesFromTheStoreAndLooksLikeTheOnlineOne() throws {
        let process = Process()
        process.executableURL = Self.repository.appending(path: "scripts/browser-check.sh")
        process.arguments = [Self.binaries.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("index.html 200 hit"))
        #expect(text.contains("PASS: all"))
        #expect(text.contains("PASS: the offline page is pixel-identical to the online one"))
    }
}
