import Foundation
import LocalOrigin
import Testing
import WebCacheTestSupport

/// libcurl is loaded when the first request is sent and libmicrohttpd when a gateway starts, not by
/// the dynamic loader at every start (the `CCurl` and `CMicroHTTPD` targets): what the store answers
/// needs neither of them nor the libraries they bring.
@Suite(.timeLimit(.minutes(5)))
final class LibraryLoadingTests: Sendable {
    let folder: TemporaryFolder
    let server: OriginServer
    let webcache: WebcacheRunner

    init() throws {
        folder = try TemporaryFolder()
        server = try TestOrigin.start()
        webcache = WebcacheRunner(home: folder)
    }

    deinit {
        server.stop()
    }

    /// A preload of the example page into a new store, which sends requests.
    private func preloadPage(into store: String, _ runner: WebcacheRunner) async throws -> WebcacheRunner.Result {
        let list = try folder.write(Data("page.html\n".utf8), to: "urls.txt")
        return try await runner.run(["preload", list, "--instance", server.baseURL.absoluteString, "--store", store])
    }

    /// The libraries the dynamic linker reported opening (`LD_DEBUG=files`: "file=NAME [0]; …").
    private static func openedLibraries(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").compactMap { line in
            guard let start = line.range(of: "file=") else { return nil }
            return String(line[start.upperBound...].prefix { $0 != " " })
        }
    }

    /// A runner whose dynamic loader finds first, in a folder of its own, a file named `library`
    /// that is no library.
    private func runnerWithout(_ library: String) throws -> WebcacheRunner {
        let broken = folder.path("broken-\(library)")
        try FileManager.default.createDirectory(atPath: broken, withIntermediateDirectories: false)
        _ = try folder.write(Data("not a shared library\n".utf8), to: "broken-\(library)/\(library)")
        return WebcacheRunner(home: folder, extraEnvironment: ["LD_LIBRARY_PATH": broken])
    }

    @Test func aRunAnsweredFromTheStoreLoadsNeitherLibcurlNorLibmicrohttpd() async throws {
        let watched = WebcacheRunner(home: folder, extraEnvironment: ["LD_DEBUG": "files"])
        let store = folder.path("store.sqlite")
        // A run that sends requests loads libcurl (so the check below can see it)
        let cold = try await preloadPage(into: store, watched)
        #expect(cold.exitCode == 0, "\(cold.stderr)")
        #expect(Self.openedLibraries(cold.stderr).contains("libcurl.so.4"))
        #expect(!Self.openedLibraries(cold.stderr).contains { $0.contains("libmicrohttpd") })
        // Runs that the store answers do not: the same preload again (every entry fresh), a read
        let warm = try await preloadPage(into: store, watched)
        #expect(warm.exitCode == 0, "\(warm.stderr)")
        #expect(warm.everything.contains("in 0 request(s)"), "\(warm.everything)")
        let get = try await watched.run(["get", server.url("/page.html").absoluteString, "--store", store])
        #expect(get.exitCode == 0, "\(get.stderr)")
        #expect(get.stdout == TestOrigin.page)
        for run in [warm, get] {
            let opened = Self.openedLibraries(run.stderr)
            #expect(!opened.isEmpty, "LD_DEBUG reported nothing")
            #expect(!opened.contains { $0.contains("libcurl") || $0.contains("libmicrohttpd") }, "opened: \(opened)")
        }
    }

    @Test func withoutLibcurlTheStoreStillAnswersAndARequestFailsSayingWhy() async throws {
        let store = folder.path("store.sqlite")
        let preload = try await preloadPage(into: store, webcache)
        try #require(preload.exitCode == 0, "\(preload.stderr)")
        // Given a libcurl.so.4 that is no library, found first by the dynamic loader
        let withoutCurl = try runnerWithout("libcurl.so.4")
        // Then what is stored is answered
        let stored = try await withoutCurl.run(["get", server.url("/page.html").absoluteString, "--store", store])
        #expect(stored.exitCode == 0, "\(stored.stderr)")
        #expect(stored.stdout == TestOrigin.page)
        // And a request fails with one sentence that says libcurl could not be loaded, and why
        let missing = server.url("/about.html").absoluteString
        let fetched = try await withoutCurl.run(["get", missing, "--store", store])
        #expect(fetched.exitCode == 1)
        #expect(fetched.stdout.isEmpty)
        #expect(fetched.stderr.contains("libcurl could not be loaded"), "\(fetched.stderr)")
        #expect(fetched.stderr.contains("libcurl.so.4"), "\(fetched.stderr)")
        // And nothing stored was lost
        let inspect = try await webcache.run(["inspect", "--store", store])
        #expect(inspect.stdout.contains("Entries:     3 "), "\(inspect.stdout)")
    }

    @Test func withoutLibmicrohttpdTheGatewayDoesNotStartAndSaysWhy() async throws {
        let store = folder.path("store.sqlite")
        let preload = try await preloadPage(into: store, webcache)
        try #require(preload.exitCode == 0, "\(preload.stderr)")
        let withoutServer = try runnerWithout("libmicrohttpd.so.12")
        let serve = try await withoutServer.run(["serve", "--offline", "--port", "0", "--store", store])
        #expect(serve.exitCode == 1)
        #expect(serve.stdout.isEmpty)
        #expect(serve.stderr.contains("libmicrohttpd could not be loaded"), "\(serve.stderr)")
        #expect(serve.stderr.contains("libmicrohttpd.so.12"), "\(serve.stderr)")
    }
}
