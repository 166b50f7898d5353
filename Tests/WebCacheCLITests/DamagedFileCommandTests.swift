import CacheStore
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

/// The real `webcache` executable on stores with a page of the file destroyed, as a failing disk
/// might leave them: verify reports what it can and how to salvage the rest, and the other commands
/// say the store is damaged and how to recover it.
@Suite(.timeLimit(.minutes(5)))
struct DamagedFileCommandTests {
    let folder: TemporaryFolder
    let webcache: WebcacheRunner

    init() throws {
        folder = try TemporaryFolder()
        webcache = WebcacheRunner(home: folder, searchPath: WebcacheRunner.inheritedSearchPath)
    }

    /// A closed store of eight entries, whose bodies of about two pages start with a marker naming
    /// the entry, with the page of the file that holds `marker` overwritten; returns its path.
    private func makeStore(destroyingThePageOf marker: String) async throws -> String {
        let path = folder.path("store.sqlite")
        try await withCacheStore(at: path) { store in
            for index in 0..<8 {
                let entry = CacheEntry(
                    url: "https://example.test/r\(index)", status: 200,
                    headers: ["Content-Type": "text/plain", "ETag": "\"v1\""], requestTime: Date(),
                    responseTime: Date(), freshUntil: Date().addingTimeInterval(600))
                let bytes = (0..<6_000).map { UInt8(truncatingIfNeeded: $0 + index) }
                let body = Data("marker-\(index)-".utf8) + Data(bytes)
                try await store.save(entry, body: body)
            }
        }
        try DamagedPage.destroy(containing: marker, in: path)
        return path
    }

    @Test func verifyGoesOnPastADamagedPageNamesTheEntriesAndSaysHowToSalvage() async throws {
        let path = try await makeStore(destroyingThePageOf: "marker-3-")

        let result = try await webcache.run(["verify", "--store", path])

        #expect(result.exitCode == 1)
        #expect(result.stdout.hasPrefix("problem: "))
        #expect(result.stdout.contains(
            "problem: unreadable: The body of https://example.test/r3 (body 4) cannot be read: the store file is "
                + "damaged there (database disk image is malformed).\n"), "\(result.stdout)")
        #expect(!result.stdout.contains("SELECT"))
        #expect(result.stderr.hasPrefix("Error: The store '\(path)' has "))
        #expect(result.stderr.hasSuffix(
            " problems; 'webcache salvage \(path) NEW' copies what is still sound into a new store.\n"))
        #expect(result.stderr.split(separator: "\n").count == 1)
    }

    @Test func verifyWritesItsJSONReportForADamagedStore() async throws {
        let path = try await makeStore(destroyingThePageOf: "marker-3-")

        let result = try await webcache.run(["verify", "--json", "--store", path])

        #expect(result.exitCode == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [String: Any])
        #expect(object["ok"] as? Bool == false)
        #expect(object["entries"] as? Int == 8)
        let problems = try #require(object["problems"] as? [[String: Any]])
        #expect(problems.contains {
            $0["kind"] as? String == "unreadable" && $0["urls"] as? [String] == ["https://example.test/r3"]
        })
        #expect(result.stderr.hasPrefix("Error: The store '\(path)' has \(problems.count) problems; "))
    }

    @Test(arguments: ["inspect", "prune --url-pattern *", "get --policy cache-only https://example.test/r1"])
    func aCommandThatMeetsTheDamageSaysSoAndHowToRecover(command: String) async throws {
        // The entry table's page: its rows alone hold the header lines.
        let path = try await makeStore(destroyingThePageOf: "ETag: \"v1\"")

        let arguments = command.split(separator: " ").map(String.init) + ["--store", path]
        let result = try await webcache.run(arguments)

        #expect(result.exitCode == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("Error: "))
        #expect(result.stderr.contains("The cache store '\(path)' is damaged: could not "), "\(result.stderr)")
        #expect(result.stderr.contains(
            "'webcache verify --store \(path)' lists the damage, and 'webcache salvage \(path) NEW' copies what is "
                + "still sound into a new store."))
        // The underlying error is kept.
        #expect(result.stderr.contains("Underlying error: SQLite error 11: database disk image is malformed"))
    }
}
