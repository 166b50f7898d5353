import CacheStore
import ChildProcess
import Foundation
import LocalOrigin
import Testing

/// The real `webcache` executable preloading from a URL file against a real origin.
@Suite struct PreloadCommandLineTests {
    /// The `webcache` executable of this build: searched upward from the test bundle, then from this file.
    static func executable() throws -> URL {
        let starts = [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]),
                      URL(fileURLWithPath: #filePath)]
        for start in starts {
            var folder = start.deletingLastPathComponent()
            while folder.path != "/" {
                let sibling = folder.appending(path: "webcache")
                if folder.lastPathComponent == "debug", FileManager.default.isExecutableFile(atPath: sibling.path) {
                    return sibling
                }
                let candidate = folder.appending(path: ".build/debug/webcache")
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
                folder = folder.deletingLastPathComponent()
            }
        }
        throw CommandLineTestError(message: "The webcache executable was not found; build the package first.")
    }

    struct CommandLineTestError: Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    struct Outcome {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `webcache` with `arguments` and waits for it.
    static func run(_ arguments: [String]) async throws -> Outcome {
        let folder = FileManager.default.temporaryDirectory
        let outFile = folder.appending(path: "preload-cli-\(UUID().uuidString).out")
        let errFile = folder.appending(path: "preload-cli-\(UUID().uuidString).err")
        defer {
            try? FileManager.default.removeItem(at: outFile)
            try? FileManager.default.removeItem(at: errFile)
        }
        let process = try ChildProcess.spawn(
            try executable().path, arguments,
            environment: ["HOME": FileManager.default.temporaryDirectory.path, "PATH": "/usr/bin:/bin"],
            input: .null, output: .file(outFile.path), error: .file(errFile.path))
        let termination = await process.finish().termination
        guard case .exited(let status) = termination else {
            let command = "webcache " + arguments.joined(separator: " ")
            throw CommandLineTestError(message: "\(command) ended with \(termination).")
        }
        return Outcome(
            status: status,
            stdout: try String(contentsOf: outFile, encoding: .utf8),
            stderr: try String(contentsOf: errFile, encoding: .utf8))
    }

    private static func siteRig() throws -> (PreloadTemporaryFolder, PreloadSiteFixture, OriginServer) {
        let folder = try PreloadTemporaryFolder()
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
                                    "--instance", server.baseURL.absoluteString, "--store", folder.storePath])

        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
        #expect(outcome.stdout.contains("Preloaded 2 page(s): \(site.allPaths.count) resources in the store"),
                "stdout: \(outcome.stdout)")
        let paths = Set(server.requests.map(\.path))
        #expect(paths == site.allPaths)
    }

    @Test func jsonPrintsOneObjectPerLineEndingWithTheSummary() async throws {
        let (folder, site, server) = try Self.siteRig()
        defer {
            server.stop()
            folder.remove()
        }
        try folder.write("urls.txt", "page-1.html\npage-2.html\n")

        let outcome = try await Self.run(["preload", folder.url.appending(path: "urls.txt").path, "--json",
                                    "--instance", server.baseURL.absoluteString, "--store", folder.storePath])

        #expect(outcome.status == 0, "stderr: \(outcome.stderr)")
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
                                    "--store", folder.storePath])

        #expect(outcome.status == 1)
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
                                  "--instance", server.baseURL.absoluteString, "--store", folder.storePath])
        #expect(again.status == 0, "stderr: \(again.stderr)")
        #expect(Set(server.requests.map(\.path)) == ["/page-1.html", "/page-2.html"])
    }
}
