import Foundation
import LocalOrigin
import Testing
import WebCacheTestSupport

/// The real `webcache` on the bundled example site, as a new user meets it: URL lists that name a
/// stylesheet beside its page, pruning that leaves the page list consistent, sizes in decimal and
/// binary units, and what `prune --compact` reports.
@Suite(.timeLimit(.minutes(5)))
final class ExampleSiteCommandTests: @unchecked Sendable {  // Every stored property is a constant.
    let folder: TemporaryFolder
    let origin: OriginServer
    let webcache: WebcacheRunner
    let store: String

    /// What `index.html` needs, itself included: its stylesheets and what they import and use,
    /// scripts, icons, the manifest and its icons, images and their candidates.
    static let indexResourceCount = 15

    init() throws {
        folder = try TemporaryFolder()
        origin = OriginServer(handler: StaticSite(root: Repository.file("examples/site")).handler)
        try origin.start()
        webcache = WebcacheRunner(home: folder)
        store = folder.path("store.sqlite")
    }

    deinit {
        origin.stop()
    }

    private func run(_ arguments: String...) async throws -> WebcacheRunner.Result {
        try await webcache.run(arguments + ["--store", store])
    }

    private func preload(_ lines: String, _ options: String...) async throws {
        let list = try folder.write(Data(lines.utf8), to: "urls.txt")
        let result = try await webcache.run(
            ["preload", list, "--instance", origin.baseURL.absoluteString, "--store", store] + options)
        try #require(result.exitCode == 0, "preload failed: \(result.everything)")
    }

    private func json(_ result: WebcacheRunner.Result) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: result.stdoutData)
        return try #require(object as? [String: Any], "stdout is not one JSON object: \(result.everything)")
    }

    private func pages() async throws -> [[String: Any]] {
        try json(try await run("inspect", "--pages", "--json"))["pages"] as? [[String: Any]] ?? []
    }

    private func entryCount() async throws -> Int? {
        try json(try await run("inspect", "--json"))["entries"] as? Int
    }

    // MARK: - A stylesheet in the URL file

    @Test(arguments: ["css/main.css\nindex.html\n", "index.html\ncss/main.css\n"])
    func aListedStylesheetKeepsWhatItImportsAndUses(lines: String) async throws {
        // When the stylesheet the page links is listed too, before or after the page (every
        // candidate fetched, so that the page needs all it references)
        try await preload(lines, "--all-candidates")

        // Then what it imports and uses is stored, once, and the page needs it all
        #expect(try await entryCount() == Self.indexResourceCount)
        for path in ["/css/theme.css", "/css/base.css", "/fonts/open-sans-700.woff2", "/img/pattern.png"] {
            #expect(origin.requests.filter { $0.path == path }.count == 1, "\(path) fetched once")
        }
        let index = try #require(try await pages().first { ($0["url"] as? String)?.hasSuffix("/index.html") == true })
        #expect(index["complete"] as? Bool == true)
        #expect(index["resources"] as? Int == Self.indexResourceCount)
        let stylesheet = try #require(
            try await pages().first { ($0["url"] as? String)?.hasSuffix("/css/main.css") == true })
        #expect(stylesheet["complete"] as? Bool == true)
        #expect(stylesheet["resources"] as? Int == 5)  // itself, theme.css, base.css, the font, the pattern
    }

    // MARK: - Pruning and the page list

    @Test func pruningEveryEntryRemovesThePageRecordsWithThem() async throws {
        try await preload("index.html\nabout.html\n")
        try #require(try await pages().count == 2)

        // When a dry run, then the prune
        let dryRun = try await run("prune", "--older-than", "0s", "--dry-run")
        let pruned = try await run("prune", "--older-than", "0s")

        // Then both say what happens to the pages, and no page the store lacks is listed
        #expect(dryRun.stdout.contains(", and the records of 2 pages that would go with them."), "\(dryRun.stdout)")
        #expect(pruned.exitCode == 0)
        #expect(pruned.stdout.contains(", and the records of 2 pages that went with them."), "\(pruned.stdout)")
        #expect(try await pages().isEmpty)
        #expect(try await entryCount() == 0)
    }

    @Test func evictionRemovesTheRecordsOfThePagesItEvicts() async throws {
        try await preload("index.html\nabout.html\ngallery.html\n")
        try #require(try await pages().count == 3)

        // When eviction leaves room for almost nothing, planned first
        let planned = try json(try await run("prune", "--max-size", "1kB", "--dry-run", "--json"))
        let evicted = try await run("prune", "--max-size", "1kB", "--json")

        // Then every page still listed is stored, the pages evicted are not listed, and the plan said so
        #expect(evicted.exitCode == 0)
        let report = try json(evicted)
        #expect(report["byteLimit"] as? Int == 1000)
        let remaining = try await pages()
        #expect(remaining.allSatisfy { $0["pageStored"] as? Bool == true })
        let removedRecords = try #require(report["pageRecords"] as? Int)
        #expect(removedRecords > 0)
        #expect(remaining.count + removedRecords == 3)
        #expect(planned["pageRecords"] as? Int == removedRecords)
    }

    // MARK: - Sizes

    @Test(arguments: [("45MB", "Limit: 45.0 MB = 42.9 MiB (45,000,000 bytes)"),
                      ("45MiB", "Limit: 47.2 MB = 45.0 MiB (47,185,920 bytes)")])
    func maxSizeSaysWhatItUnderstood(size: String, understood: String) async throws {
        try await preload("index.html\n")
        let result = try await run("prune", "--max-size", size)
        #expect(result.exitCode == 0)
        #expect(result.stdout.hasPrefix(understood + " of bodies.\n"), "\(result.stdout)")
    }

    // MARK: - Compacting

    @Test func compactReportsTheStoreAsItsUserSeesItBeforeAndAfter() async throws {
        try await preload("index.html\nabout.html\ngallery.html\n")
        let before = try await json(run("prune", "--compact", "--json"))["compactedTo"] as? Int
        let seenBefore = try #require(before)

        // When every entry goes and the store is compacted in the same command
        let result = try await run("prune", "--url-pattern", "*", "--compact", "--json")

        // Then "before" is the store the user had, not that plus the log the removal grew
        let report = try json(result)
        let from = try #require(report["compactedFrom"] as? Int)
        let to = try #require(report["compactedTo"] as? Int)
        #expect(from <= seenBefore + seenBefore / 10, "before: \(from), the store was \(seenBefore)")
        #expect(to < from)
    }

    @Test func compactAloneSaysWhatItDid() async throws {
        try await preload("index.html\n")
        let result = try await run("prune", "--compact")
        #expect(result.exitCode == 0)
        #expect(!result.stdout.contains("Removed"), "\(result.stdout)")
        #expect(result.stdout.hasPrefix("Compacted the store: "), "\(result.stdout)")
    }
}
