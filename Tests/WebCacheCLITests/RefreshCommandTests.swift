import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import WebCacheCLI
import WebCacheTestSupport

/// `webcache refresh` against a real origin: what it asks for, what its summary says, and the live
/// progress line it draws on a terminal, counted from the stored pages it refreshes.
@Suite(.timeLimit(.minutes(5)))
struct RefreshCommandTests {
    /// Collects output in memory and passes for a terminal, so that the progress line is drawn.
    private final class TerminalOutput: TextOutput {
        private let buffer = BufferedOutput()
        let isTerminal = true

        func write(data: Data) {
            buffer.write(data: data)
        }

        var text: String { buffer.text }
    }

    /// An origin serving `handler`, with `a.html` and `b.html` preloaded from it into a store in a
    /// new folder; the caller runs `refresh` on it, then calls `stop`.
    private struct Preloaded {
        let folder: TemporaryFolder
        let server: OriginServer
        let store: String
        let environment: [String: String]

        init(handler: @escaping OriginServer.Handler) async throws {
            folder = try TemporaryFolder()
            server = OriginServer(handler: handler)
            try server.start()
            let urls = try folder.write(Data("a.html\nb.html\n".utf8), to: "urls.txt")
            store = folder.path("store.sqlite")
            environment = ["HOME": folder.url.path, "XDG_CACHE_HOME": folder.path("cache")]
            let preloaded = await CommandLineInterface.run(
                ["preload", urls, "--instance", server.baseURL.absoluteString, "--store", store],
                stdout: BufferedOutput(), stderr: BufferedOutput(), environment: environment)
            try #require(preloaded == 0)
        }

        /// Runs `refresh` with `arguments` on the store.
        func refresh(_ arguments: [String] = [], stdout: any TextOutput = BufferedOutput(),
                     stderr: any TextOutput = BufferedOutput()) async -> Int32 {
            await CommandLineInterface.run(["refresh", "--store", store] + arguments, stdout: stdout, stderr: stderr,
                                           environment: environment)
        }

        func stop() {
            server.stop()
            folder.remove()
        }
    }

    @Test func progressLineCountsTheStoredPagesAmongWhatIsToDo() async throws {
        let site = try await Preloaded { request in
            .text("<p>\(request.path)</p>", contentType: "text/html", headers: ["Cache-Control": "max-age=600"])
        }
        defer { site.stop() }
        let terminal = TerminalOutput()

        let refreshed = await site.refresh(stderr: terminal)

        #expect(refreshed == 0, "stderr: \(terminal.text)")
        let counts = terminal.text.matches(of: /\[(\d+)\/(\d+)\]/).map { (done: Int($0.1)!, total: Int($0.2)!) }
        #expect(counts.first?.total == 2, "progress: \(terminal.text)")
        #expect(counts.allSatisfy { $0.done <= $0.total }, "progress: \(terminal.text)")
    }

    @Test func aHostNoStoredPageIsOnIsNamedAndNothingIsAsked() async throws {
        let site = try await Preloaded { request in
            .text("<p>\(request.path)</p>", contentType: "text/html", headers: ["Cache-Control": "max-age=600"])
        }
        defer { site.stop() }
        let asked = site.server.requestCount
        let stderr = BufferedOutput()

        let code = await site.refresh(["--host", "nothere.example"], stderr: stderr)

        #expect(code == 1)
        #expect(stderr.text == "Error: No page in the store '\(site.store)' is on 'nothere.example'; inspect lists "
            + "the hosts.\n")
        #expect(site.server.requestCount == asked)
    }

    @Test func noRequisitesRevalidatesThePagesAloneAndTheSummarySaysRefreshed() async throws {
        let asked = Mutex<[String]>([])
        let site = try await Preloaded { request in
            asked.withLock { $0.append(request.path) }
            return switch request.path {
            case "/site.css": .text("body { color: black }", contentType: "text/css",
                                    headers: ["Cache-Control": "max-age=600"])
            default: .text("<link rel=stylesheet href=site.css><p>\(request.path)</p>", contentType: "text/html",
                           headers: ["Cache-Control": "max-age=600"])
            }
        }
        defer { site.stop() }
        asked.withLock { $0 = [] }

        let output = BufferedOutput()
        let pagesOnly = await site.refresh(["--no-requisites"], stdout: output)

        #expect(pagesOnly == 0)
        #expect(asked.withLock { $0 }.sorted() == ["/a.html", "/b.html"])
        #expect(output.text.hasPrefix("Refreshed 2 page(s)"), "\(output.text)")

        asked.withLock { $0 = [] }
        #expect(await site.refresh() == 0)
        #expect(asked.withLock { $0 }.sorted() == ["/a.html", "/b.html", "/site.css"])
    }
}
