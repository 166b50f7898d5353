import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

/// The real `webcache` executable preloading from a URL file against a real origin.
@Suite struct PreloadCommandLineTests {
    /// Runs `webcache` with `arguments`, its home in a fresh temporary folder, and waits for it.
    static func run(_ arguments: [String]) async throws -> WebcacheRunner.Result {
        try await WebcacheRunner(home: TemporaryFolder(prefix: "preload-cli")).run(arguments)
    }

    private static func siteRig() throws -> (TemporaryFolder, PreloadSiteFixture, OriginServer) {
        let folder = try TemporaryFolder()
        let site = try PreloadSiteFixture.write(pageCount: 2, to: folder)
        let server = OriginServer(handler: StaticSite(root: folder.url.appending(path: "site")).handler)
        try server.start()
        return (folder, site, server)
    }

    // MARK: - Tests

    @Test func preloadsAURLFileAndPrintsASummary() async throws {
        let (folder, site, server) = try Self.siteRig()
        defer {
            server.stop()
            folder.remove()
        }
        try folder.write("urls.txt", "# pages\npage-1.html\n\npage-2.html\n")

        let outcome = try await Self.run(["preload", folder.url.appending(path: "urls.txt").path,
                                    "--instance", server.baseURL.absoluteString, "--store", folder.storePath,
                                        "--all-candidates"])

        #expect(outcome.exitCode == 0, "stderr: \(outcome.stderr)")
        #expect(outcome.stdout.contains("Preloaded 2 page(s): \(site.allPaths.count) resource(s) in the store"),
                "stdout: \(outcome.stdout)")
        let paths = Set(server.requests.map(\.path))
        #expect(paths == site.allPaths)
    }

    /// The summary counts the pages that failed apart from those preloaded.
    @Test func theSummarySaysHowManyPagesFailed() async throws {
        let (folder, site, server) = try Self.siteRig()
        defer {
            server.stop()
            folder.remove()
        }
        try folder.write("urls.txt", "page-1.html\nnot-there.html\npage-2.html\n")
        let urls = folder.url.appending(path: "urls.txt").path
        let instance = server.baseURL.absoluteString

        let text = try await Self.run(["preload", urls, "--instance", instance, "--store", folder.storePath,
            "--all-candidates"])
        let json = try await Self.run(["preload", urls, "--json", "--instance", instance, "--store", folder.storePath,
            "--all-candidates"])

        #expect(text.exitCode == 1)
        #expect(text.stdout.contains("Preloaded 2 of 3 page(s): \(site.allPaths.count) resource(s)"), "\(text.stdout)")
        let summary = try #require(json.stdout.split(separator: "\n").last)
        let fields = try #require(try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any])
        #expect(fields["pages"] as? Int == 3)
        #expect(fields["pagesFailed"] as? Int == 1)
        #expect(fields["pagesUnfinished"] as? Int == 0)
        #expect(fields["interrupted"] as? Bool == false)
    }

    @Test func jsonPrintsOneObjectPerLineEndingWithTheSummary() async throws {
        let (folder, site, server) = try Self.siteRig()
        defer {
            server.stop()
            folder.remove()
        }
        try folder.write("urls.txt", "page-1.html\npage-2.html\n")

        let outcome = try await Self.run(["preload", folder.url.appending(path: "urls.txt").path, "--json",
                                    "--instance", server.baseURL.absoluteString, "--store", folder.storePath,
                                        "--all-candidates"])

        #expect(outcome.exitCode == 0, "stderr: \(outcome.stderr)")
        let lines = outcome.stdout.split(separator: "\n")
        var objects: [[String: Any]] = []
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            objects.append(try #require(object as? [String: Any], "not an object: \(line)"))
        }
        let kinds = objects.compactMap { $0["event"] as? String }
        #expect(kinds.count == objects.count)
        #expect(kinds.last == "summary")
        #expect(kinds.filter { $0 == "summary" }.count == 1)
        #expect(kinds.filter { $0 == "fetched" }.count == site.allPaths.count)
        #expect(kinds.filter { $0 == "discovered" }.count == site.allRequisites.count)
        let summary = try #require(objects.last)
        #expect(summary["completed"] as? Int == site.allPaths.count)
        #expect(summary["failed"] as? Int == 0)
        // Every field is named in camelCase, as in every other command's --json report
        let keys = Set(objects.flatMap(\.keys))
        #expect(keys.allSatisfy { $0.allSatisfy(\.isLetter) && $0.first?.isLowercase == true }, "\(keys.sorted())")
        #expect(keys.isSuperset(of: ["pagesFailed", "pagesMissingRequisites", "notStored", "networkBytes",
                                     "invalidLines"]), "\(keys.sorted())")
    }

    @Test func badLinesAreReportedWithTheirLineAndTheGoodOnesStored() async throws {
        let (folder, _, server) = try Self.siteRig()
        defer {
            server.stop()
            folder.remove()
        }
        try folder.write("urls.txt", "page-1.html\nftp://files.example.com/a.txt\npage-2.html\nmailto:x@example.com\n")
        let file = folder.url.appending(path: "urls.txt").path

        let outcome = try await Self.run(["preload", file, "--instance", server.baseURL.absoluteString,
                                    "--store", folder.storePath, "--all-candidates"])

        #expect(outcome.exitCode == 1)
        let errors = outcome.stderr.split(separator: "\n").map(String.init)
        #expect(errors.contains { $0.contains("\(file):2: ") }, "stderr: \(outcome.stderr)")
        #expect(errors.contains { $0.contains("\(file):4: ") }, "stderr: \(outcome.stderr)")
        #expect(!errors.contains { $0.contains("\(file):1:") || $0.contains("\(file):3:") })
        let store = try CacheStore(path: folder.storePath)
        for page in ["page-1.html", "page-2.html"] {
            let status = try store.pageStatus(forPage: server.url(page).absoluteString)
            #expect(status.isComplete, "\(page) is not complete: missing \(status.missing)")
        }
        try await store.close()

        // The store holds both pages: a second run with only the good lines revalidates and succeeds.
        try folder.write("good.txt", "page-1.html\npage-2.html\n")
        server.resetLog()
        let again = try await Self.run(["preload", folder.url.appending(path: "good.txt").path,
                                  "--instance", server.baseURL.absoluteString, "--store", folder.storePath,
                                      "--all-candidates"])
        #expect(again.exitCode == 0, "stderr: \(again.stderr)")
        // Nothing is fetched whole again: the pages are revalidated, and so is a requisite only if its
        // 60 s of freshness ran out meanwhile (a slow machine).
        let paths = Set(server.requests.map(\.path))
        #expect(paths.isSuperset(of: ["/page-1.html", "/page-2.html"]), "\(paths)")
        #expect(server.requests.allSatisfy { $0.headers["If-None-Match"] != nil || $0.headers["If-Modified-Since"] != nil },
                "\(server.requests.map(\.path))")
    }

    /// `--max-media-size` caps audio and video, and `--max-resource-size` caps them too when it is smaller.
    @Test(arguments: ["--max-media-size", "--max-resource-size"])
    func mediaIsHeldToTheSmallerSizeCap(flag: String) async throws {
        let folder = try TemporaryFolder()
        let server = OriginServer { request in
            switch request.path {
            case "/index.html":
                .text("<video src=\"movie.mp4\"></video><img src=\"pic.png\">", contentType: "text/html")
            case "/movie.mp4":
                OriginResponse(headers: ["Content-Type": "video/mp4"], body: .bytes(preloadFiller(50_000)))
            default:
                OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(5_000)))
            }
        }
        try server.start()
        defer {
            server.stop()
            folder.remove()
        }
        try folder.write("urls.txt", "index.html\n")

        let outcome = try await Self.run(["preload", folder.url.appending(path: "urls.txt").path, "--media",
                                          flag, "10K", "--json", "--instance", server.baseURL.absoluteString,
                                          "--store", folder.storePath, "--all-candidates"])

        #expect(outcome.exitCode == 1, "stderr: \(outcome.stderr)")
        var failures: [String: String] = [:]
        var fetched: Set<String> = []
        for line in outcome.stdout.split(separator: "\n") {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let path = (object["url"] as? String).flatMap { URL(string: $0)?.path }
            switch object["event"] as? String {
            case "failed": failures[path ?? ""] = object["reason"] as? String
            case "fetched": fetched.insert(path ?? "")
            default: break
            }
        }
        #expect(Array(failures.keys) == ["/movie.mp4"])
        #expect(failures["/movie.mp4"]?.contains("larger than the limit of 10240 bytes") == true, "\(failures)")
        #expect(fetched == ["/index.html", "/pic.png"])
    }
}
