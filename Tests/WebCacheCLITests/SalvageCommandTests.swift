import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// `webcache salvage` with the real executable: its exit code says whether anything was lost, and each
/// loss names the entry.
@Suite(.timeLimit(.minutes(5)))
struct SalvageCommandTests {
    let folder: TemporaryFolder
    let webcache: WebcacheRunner

    init() throws {
        folder = try TemporaryFolder()
        webcache = WebcacheRunner(home: folder, searchPath: WebcacheRunner.inheritedSearchPath)
    }

    /// A closed store of three entries; with `damaging`, the body of that one's bytes are zeroed.
    private func makeStore(damaging damaged: String? = nil) async throws -> String {
        let path = folder.path("damaged.sqlite")
        try await withCacheStore(at: path) { store in
            for name in ["a", "b", "c"] {
                let entry = CacheEntry(
                    url: "https://example.test/\(name)", status: 200, headers: ["Content-Type": "text/plain"],
                    requestTime: Date(), responseTime: Date(), freshUntil: Date().addingTimeInterval(600))
                try await store.save(entry, body: Data("body of \(name)".utf8))
            }
            if let damaged {
                try await store.write("damage") { connection in
                    try connection.run(
                        """
                        UPDATE body_chunk SET data = zeroblob(length(data)) \
                        WHERE body_id = (SELECT body_id FROM entry WHERE url = ?)
                        """,
                        [.text("https://example.test/\(damaged)")])
                }
            }
        }
        return path
    }

    @Test func exitsWith1WhenAnEntryWasLostAndNamesIt() async throws {
        let path = try await makeStore(damaging: "b")
        let destination = folder.path("new.sqlite")

        let result = try await webcache.run(["salvage", path, destination])

        #expect(result.exitCode == 1)
        #expect(result.stdout == """
            Salvaged 2 of 3 entries and 0 page edges from '\(path)' into '\(destination)'; 1 lost.
              https://example.test/b was lost: its body no longer hashes to its SHA-256.

            """)
        #expect(result.stderr == "Error: 1 of the 3 entries of '\(path)' was lost (2 saved into '\(destination)'); "
            + "preload again to fetch what was lost.\n")
        let json = try await webcache.run(["salvage", "--json", path, folder.path("new2.sqlite")])
        #expect(json.exitCode == 1)
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        #expect(object["lost"] as? Int == 1)
        #expect(object["complete"] as? Bool == false)
    }

    @Test func exitsWith0WhenEverythingWasSavedIntoANewFolder() async throws {
        let path = try await makeStore()
        let destination = folder.path("new/folder/new.sqlite")

        let result = try await webcache.run(["salvage", path, destination])

        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout
            == "Salvaged 3 of 3 entries and 0 page edges from '\(path)' into '\(destination)'; 0 lost.\n")
        #expect(result.stderr.isEmpty)
        #expect(FileManager.default.fileExists(atPath: destination))
    }
}
