import ChildProcess
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

/// The README's library example is the package `examples/library`, which depends on webcache by
/// path as an app does: the README shows its code, it builds without a warning, and run against the
/// example site it does what its comments say.
@Suite(.timeLimit(.minutes(15)))
struct LibraryExampleTests {
    static let package = Repository.file("examples/library")
    static let source = package.appending(path: "Sources/LibraryExample/LibraryExample.swift")

    /// The lines of the example between its `README: begin` and `README: end` markers, unindented.
    static func exampleLines() throws -> [String] {
        let lines = try String(contentsOf: source, encoding: .utf8).components(separatedBy: "\n")
        let begin = try #require(lines.firstIndex { $0.hasSuffix("// README: begin") })
        let end = try #require(lines.firstIndex { $0.hasSuffix("// README: end") })
        return lines[(begin + 1)..<end].map { $0.hasPrefix("        ") ? String($0.dropFirst(8)) : $0 }
    }

    /// The README's Swift block that configures a `WebCache`, without its imports.
    static func readmeLines() throws -> [String] {
        let readme = try String(contentsOf: Repository.file("README.md"), encoding: .utf8)
        let blocks = readme.components(separatedBy: "```swift\n").dropFirst().map {
            $0.components(separatedBy: "\n```")[0]
        }
        let block = try #require(blocks.first { $0.contains("WebCache.Configuration()") })
        return block.components(separatedBy: "\n").drop { $0.hasPrefix("import ") || $0.isEmpty }.map { $0 }
    }

    @Test func theReadmeShowsTheExampleAsItIs() throws {
        let example = try Self.exampleLines()
        #expect(!example.isEmpty)
        #expect(try Self.readmeLines() == example)
    }

    @Test func theExampleBuildsWithoutWarningsAndDoesWhatItSays() async throws {
        // Given the example built as its own package. SwiftPM plans the build again when a manifest
        // changes, not when a file is added to a target of a package the example depends on by path:
        // a plan kept from an earlier build leaves the new file out (its types are then not found).
        // Without the kept plan, it plans anew.
        let scratch = Repository.file(".build/examples").path
        try? FileManager.default.removeItem(atPath: scratch + "/debug.yaml")
        let build = try ChildProcess.spawn(
            "/usr/bin/env",
            ["swift", "build", "--package-path", Self.package.path, "--scratch-path", scratch,
             "-Xswiftc", "-warnings-as-errors"],
            output: .pipe, error: .pipe)
        let built = await build.finish()
        let buildOutput = String(decoding: built.output + built.error, as: UTF8.self)
        try #require(built.termination == .exited(0), "\(buildOutput)")
        #expect(!buildOutput.contains("warning:"), "\(buildOutput)")

        // When it runs against the example site with a fresh cache folder
        let origin = OriginServer(handler: StaticSite(root: Repository.file("examples/site")).handler)
        try origin.start()
        defer { origin.stop() }
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_CACHE_HOME"] = folder.path("cache")
        let run = try ChildProcess.spawn(
            scratch + "/debug/LibraryExample", [origin.baseURL.absoluteString, "printf example-token"],
            environment: environment, output: .pipe, error: .pipe)
        let result = await run.finish()
        let output = String(decoding: result.output, as: UTF8.self)
        let errors = String(decoding: result.error, as: UTF8.self)

        // Then both pages and what they need were stored, read back, and nothing failed on close
        #expect(result.termination == .exited(0), "\(errors)")
        let summary = output.components(separatedBy: "\n").filter {
            $0.hasPrefix("report: ") || $0.hasPrefix("page: ") || $0.hasPrefix("offline: ")
        }
        // 14: the pages and what a desktop browser fetches for them (the default device), not every
        // srcset candidate and icon (17).
        #expect(summary.first == "report: 2 pages, 14 stored, 0 failed, interrupted: false", "\(output)")
        #expect(summary.contains("page: revalidated 200 1408 bytes"), "\(output)")
        #expect(summary.contains("offline: revalidated 200 1408 bytes"), "\(output)")
        #expect(!errors.contains("closed"), "\(errors)")
        #expect(origin.requests.first?.headers["Authorization"] == "Bearer example-token")
    }
}
