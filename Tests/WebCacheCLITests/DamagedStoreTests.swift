import CacheStore
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

/// Files given as `--store` that are not webcache stores: every command that reads the store refuses
/// them with an error naming the path, exits 1, and leaves the file exactly as it was.
@Suite(.timeLimit(.minutes(5)))
struct DamagedStoreTests {
    enum Damage: String, CaseIterable, Sendable {
        case empty, text, randomBytes, truncatedStore
    }

    let folder: TemporaryFolder
    let webcache: WebcacheRunner

    init() throws {
        folder = try TemporaryFolder()
        webcache = WebcacheRunner(home: folder, searchPath: WebcacheRunner.inheritedSearchPath)
    }

    /// Writes the damaged file and returns its path.
    private func makeFile(_ damage: Damage) async throws -> String {
        switch damage {
        case .empty:
            return try folder.write(Data(), to: "empty.sqlite")
        case .text:
            return try folder.write(Data("These are notes, not a database.\n".utf8), to: "notes.txt")
        case .randomBytes:
            var generator = SeededGenerator(seed: 42)
            let bytes = (0..<10_000).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            return try folder.write(Data(bytes), to: "random.bin")
        case .truncatedStore:
            // A real store cut after its first two pages.
            let whole = folder.path("whole.sqlite")
            try await withCacheStore(at: whole) { store in
                for index in 0..<3 {
                    let entry = CacheEntry(
                        url: "https://example.test/\(index)", status: 200, headers: ["Content-Type": "text/plain"],
                        requestTime: Date(), responseTime: Date(), freshUntil: Date().addingTimeInterval(600))
                    try await store.save(entry, body: Data(repeating: UInt8(index), count: 20_000))
                }
            }
            let data = try Data(contentsOf: URL(fileURLWithPath: whole))
            try #require(data.count > 8192, "the store is too small to truncate: \(data.count) bytes")
            return try folder.write(data.prefix(8192), to: "truncated.sqlite")
        }
    }

    @Test(arguments: Damage.allCases, ["verify", "inspect", "prune --url-pattern *", "pin http://a.test/"])
    func refusesTheFileAndLeavesItUnchanged(damage: Damage, command: String) async throws {
        // Given
        let path = try await makeFile(damage)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        // When
        let arguments = command.split(separator: " ").map(String.init) + ["--store", path]
        let result = try await webcache.run(arguments)
        // Then
        #expect(result.exitCode == 1, "\(damage) with \(command): \(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.hasPrefix("Error: The store at '\(path)' cannot be opened: "))
        #expect(result.stderr.hasSuffix("\n"))
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func namesWhatIsWrongWithEachFile() async throws {
        let expectations: [(Damage, String)] = [
            (.empty, "is empty, not a webcache store"),
            (.text, "is not an SQLite database"),
            (.randomBytes, "is not an SQLite database"),
            (.truncatedStore, "is truncated"),
        ]
        for (damage, phrase) in expectations {
            let path = try await makeFile(damage)
            let result = try await webcache.run(["verify", "--store", path])
            #expect(result.stderr.contains(phrase), "\(damage): \(result.stderr)")
        }
    }
}
