import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import WebCacheCLI
import WebCacheTestSupport

/// `webcache refresh` against a real origin: what it asks for, and what its summary says.
@Suite(.timeLimit(.minutes(5)))
struct RefreshCommandTests {
    @Test func noRequisitesRevalidatesThePagesAloneAndTheSummarySaysRefreshed() async throws {
        let folder = try TemporaryFolder()
        let asked = Mutex<[String]>([])
        let server = OriginServer { request in
            asked.withLock { $0.append(request.path) }
            return switch request.path {
            case "/site.css": .text("body { color: black }", contentType: "text/css",
                                    headers: ["Cache-Control": "max-age=600"])
            default: .text("<link rel=stylesheet href=site.css><p>\(request.path)</p>", contentType: "text/html",
                           headers: ["Cache-Control": "max-age=600"])
            }
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
        asked.withLock { $0 = [] }

        let output = BufferedOutput()
        let pagesOnly = await CommandLineInterface.run(["refresh", "--no-requisites", "--store", store],
                                                       stdout: output, stderr: BufferedOutput(),
                                                       environment: environment)

        #expect(pagesOnly == 0)
        #expect(asked.withLock { $0 }.sorted() == ["/a.html", "/b.html"])
        #expect(output.text.hasPrefix("Refreshed 2 page(s)"), "\(output.text)")

        asked.withLock { $0 = [] }
        let everything = await CommandLineInterface.run(["refresh", "--store", store], stdout: BufferedOutput(),
                                                        stderr: BufferedOutput(), environment: environment)
        #expect(everything == 0)
        #expect(asked.withLock { $0 }.sorted() == ["/a.html", "/b.html", "/site.css"])
    }
}
