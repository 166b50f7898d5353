import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheCLI
import WebCacheTestSupport

/// The live progress line `refresh` draws on a terminal, counted from the stored pages it refreshes.
@Suite(.timeLimit(.minutes(5)))
struct RefreshProgressTests {
    /// Collects output in memory and passes for a terminal, so that the progress line is drawn.
    private final class TerminalOutput: TextOutput {
        private let buffer = BufferedOutput()
        let isTerminal = true

        func write(data: Data) {
            buffer.write(data: data)
        }

        var text: String { buffer.text }
    }

    @Test func progressLineCountsTheStoredPagesAmongWhatIsToDo() async throws {
        let folder = try TemporaryFolder()
        let server = OriginServer { request in
            .text("<p>\(request.path)</p>", contentType: "text/html", headers: ["Cache-Control": "max-age=600"])
        }
        try server.start()
        defer {
            server.stop()
            folder.remove()
        }
        let urls = try folder.write(Data("a.html\nb.html\n".utf8), to: "urls.txt")
        let store = folder.path("store.sqlite")
        let environment = ["HOME": folder.url.path, "XDG_CACHE_HOME": folder.path("cache")]
        let preloaded = await CommandLineInterface.run(
            ["preload", urls, "--instance", server.baseURL.absoluteString, "--store", store],
            stdout: BufferedOutput(), stderr: BufferedOutput(), environment: environment)
        try #require(preloaded == 0)
        let terminal = TerminalOutput()

        let refreshed = await CommandLineInterface.run(["refresh", "--store", store], stdout: BufferedOutput(),
                                                       stderr: terminal, environment: environment)

        #expect(refreshed == 0, "stderr: \(terminal.text)")
        let counts = terminal.text.matches(of: /\[(\d+)\/(\d+)\]/).map { (done: Int($0.1)!, total: Int($0.2)!) }
        #expect(counts.first?.total == 2, "progress: \(terminal.text)")
        #expect(counts.allSatisfy { $0.done <= $0.total }, "progress: \(terminal.text)")
    }
}
