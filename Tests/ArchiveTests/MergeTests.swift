import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// `webcache merge` with the real executable: the response received last wins, bodies are shared by
/// hash, pins, partitions, page edges and partial entries' parts come along, and verify holds after;
/// a source that cannot be merged is named and the others are merged.
@Suite(.timeLimit(.minutes(1)))
struct MergeTests {
    let folder: TemporaryFolder
    let webcache: WebcacheRunner

    init() throws {
        folder = try TemporaryFolder()
        webcache = WebcacheRunner(home: folder, searchPath: WebcacheRunner.inheritedSearchPath)
    }

    private static let start = Date(timeIntervalSince1970: 1_800_000_000)

    /// Saves an entry of `url` received `offset` seconds after ``start``.
    private func save(
        _ url: String, body: String, offset: TimeInterval, partition: String = "guest", pinned: Bool = false,
        in store: CacheStore
    ) async throws {
        let time = Self.start.addingTimeInterval(offset)
        let entry = CacheEntry(
            partition: partition, url: url, status: 200, headers: ["Content-Type": "text/plain"], requestTime: time,
            responseTime: time, freshUntil: time.addingTimeInterval(600), pinned: pinned)
        try await store.save(entry, body: Data(body.utf8))
    }

    /// A representation of 1 MB, in parts through ``savePart(_:of:in:)``.
    private static let video = Data((0..<1_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 10) })
    private static let videoURL = "https://a.test/video.webm"

    /// Saves bytes `range` of ``video`` as a part, as a gateway stores a 206 answering a Range request.
    private func savePart(_ range: Range<Int>, of url: String = videoURL, in store: CacheStore) async throws {
        let headers: HTTPHeaders = [
            "ETag": #""v1""#, "Content-Type": "video/webm",
            "Content-Range": "bytes \(range.lowerBound)-\(range.upperBound - 1)/\(Self.video.count)",
        ]
        let entry = CacheEntry(
            url: url, status: 206, headers: headers, requestTime: Self.start, responseTime: Self.start,
            freshUntil: Self.start.addingTimeInterval(600))
        var writer = store.makeBodyWriter()
        try await writer.write(Self.video.subdata(in: range))
        try await store.savePart(
            entry, first: Int64(range.lowerBound), completeLength: Int64(Self.video.count),
            completeHeaders: PartialEntry.completeHeaders(headers, completeLength: Int64(Self.video.count)),
            body: writer)
    }

    @Test func theResponseReceivedLastWinsAndEverythingElseComesAlong() async throws {
        // Given
        let first = folder.path("first.sqlite")
        let second = folder.path("second.sqlite")
        try await withCacheStore(at: first) { store in
            try await save("https://a.test/1", body: "old one", offset: 0, in: store)
            try await save("https://a.test/2", body: "shared", offset: 10, pinned: true, in: store)
            try await save("https://a.test/3", body: "private", offset: 0, partition: "user-1", in: store)
            try await store.setEdges([PageEdge(resourceURL: "https://a.test/1", kind: "image")], forPage: "https://a.test/")
        }
        try await withCacheStore(at: second) { store in
            try await save("https://a.test/1", body: "new one", offset: 5, in: store)
            try await save("https://a.test/2", body: "older two", offset: 1, in: store)
            try await save("https://a.test/4", body: "shared", offset: 0, in: store)
            try await store.setEdges([PageEdge(resourceURL: "https://a.test/4", kind: "script")], forPage: "https://a.test/")
        }
        let merged = folder.path("out/merged.sqlite")

        // When
        let result = try await webcache.run(["merge", first, second, "--into", merged])

        // Then
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout == """
            Merged '\(first)': 3 entries added or newer, 0 older left out, 0 parts of complete entries left out, \
            3 bodies copied, 1 page edges.
            Merged '\(second)': 2 entries added or newer, 1 older left out, 0 parts of complete entries left out, \
            1 bodies copied, 1 page edges.

            """)
        try await withCacheStore(at: merged) { store in
            let one = try #require(try await store.lookup(url: "https://a.test/1"))
            #expect(String(decoding: one.body, as: UTF8.self) == "new one")
            let two = try #require(try store.entry(url: "https://a.test/2"))
            let four = try #require(try store.entry(url: "https://a.test/4"))
            #expect(two.pinned)
            #expect(two.responseTime == Self.start.addingTimeInterval(10))
            #expect(two.bodyID == four.bodyID)
            #expect(try store.entry(partition: "user-1", url: "https://a.test/3") != nil)
            #expect(try store.edges(forPage: "https://a.test/").map(\.resourceURL) == ["https://a.test/1", "https://a.test/4"])
        }
        let verify = try await webcache.run(["verify", "--store", merged])
        #expect(verify.exitCode == 0, "\(verify.stdout)")
        // Merging again changes nothing: every entry is as recent.
        let again = try await webcache.run(["merge", first, "--into", merged, "--json"])
        let reports = try #require(try JSONSerialization.jsonObject(with: again.stdoutData) as? [[String: Any]])
        #expect(reports.first?["merged"] as? Int == 0)
        #expect(reports.first?["older"] as? Int == 3)
    }

    @Test func aPartialEntryComesWithItsPartsAndServesTheRangesTheyHold() async throws {
        // Given a store holding two ranges of a response
        let part = folder.path("part.sqlite")
        try await withCacheStore(at: part) { store in
            try await savePart(1_000..<2_000, in: store)
            try await savePart(5_000..<6_000, in: store)
        }
        let merged = folder.path("partm.sqlite")

        // When
        let result = try await webcache.run(["merge", part, "--into", merged])

        // Then the merged store holds both parts, and serves a range from them
        #expect(result.exitCode == 0, "\(result.stderr)")
        try await withCacheStore(at: merged) { store in
            let partial = try #require(try store.partialVariants(url: Self.videoURL).first)
            #expect(partial.parts.map(\.span) == [1_000...1_999, 5_000...5_999])
        }
        let range = try await webcache.run([
            "get", Self.videoURL, "-H", "Range: bytes=5100-5199", "--policy", "cache-only", "--store", merged,
        ])
        #expect(range.exitCode == 0, "\(range.stderr)")
        #expect(range.stderr.contains(" 206 "), "\(range.stderr)")
        #expect(range.stdoutData == Self.video.subdata(in: 5_100..<5_200))
        let verify = try await webcache.run(["verify", "--store", merged])
        #expect(verify.exitCode == 0, "\(verify.stdout)")
    }

    @Test func aNewerPartDoesNotReplaceTheCompleteResponseItIsPartOf() async throws {
        // Given the whole response in one store, and a part of it received later in another
        let complete = folder.path("complete.sqlite")
        try await withCacheStore(at: complete) { store in
            let entry = CacheEntry(
                url: Self.videoURL, status: 200, headers: ["ETag": #""v1""#, "Content-Type": "video/webm"],
                requestTime: Self.start.addingTimeInterval(-60), responseTime: Self.start.addingTimeInterval(-60),
                freshUntil: Self.start.addingTimeInterval(600))
            try await store.save(entry, body: Self.video)
        }
        let part = folder.path("part.sqlite")
        try await withCacheStore(at: part) { store in try await savePart(1_000..<2_000, in: store) }
        let merged = folder.path("merged.sqlite")

        // When
        let result = try await webcache.run(["merge", complete, part, "--into", merged, "--json"])

        // Then the part is left out, and the whole response is still read from the store
        #expect(result.exitCode == 0, "\(result.stderr)")
        let reports = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: Any]])
        #expect(reports.last?["heldWhole"] as? Int == 1)
        let get = try await webcache.run(["get", Self.videoURL, "--policy", "cache-only", "--store", merged])
        #expect(get.exitCode == 0, "\(get.stderr)")
        // Compared as a whole: a failure then shows no difference of a million bytes.
        let isWhole = get.stdoutData == Self.video
        #expect(isWhole, "\(get.stdoutData.count) bytes")
        let verify = try await webcache.run(["verify", "--store", merged])
        #expect(verify.exitCode == 0, "\(verify.stdout)")
    }

    /// A store at `name` holding one entry of `url`; its body's bytes zeroed in the file when `damaged`.
    private func makeSource(_ name: String, url: String, damaged: Bool = false) async throws -> String {
        let path = folder.path(name)
        try await withCacheStore(at: path) { store in
            try await save(url, body: "body of \(name)", offset: 0, in: store)
            guard damaged else { return }
            try await store.write("damage the body") { connection in
                try connection.run("UPDATE body_chunk SET data = zeroblob(length(data))")
            }
        }
        return path
    }

    @Test func unusableSourcesAreNamedAndTheOthersMerged() async throws {
        // Given a missing source, one that is not SQLite, one with a damaged body, and two sound ones
        let missing = folder.path("nope.sqlite")
        let junk = try folder.write(Data("not a store\n".utf8), to: "junk.sqlite")
        let first = try await makeSource("a.sqlite", url: "https://a.test/a")
        let damaged = try await makeSource("damaged.sqlite", url: "https://a.test/d", damaged: true)
        let second = try await makeSource("b.sqlite", url: "https://a.test/b")
        let merged = folder.path("merged.sqlite")

        // When
        let result = try await webcache.run(["merge", missing, junk, first, damaged, second, "--into", merged])

        // Then each unusable source is named, and the others are merged
        #expect(result.exitCode == 1)
        let errors = result.stderr.split(separator: "\n").map(String.init)
        #expect(errors.count == 3, "\(result.stderr)")
        #expect(errors.first == "Error: There is no store at '\(missing)'.")
        #expect(errors.dropFirst().first?.hasPrefix("Error: Could not merge '\(junk)' into '\(merged)': ") == true)
        #expect(errors.last?.hasPrefix("Error: Could not merge '\(damaged)' into '\(merged)': ") == true)
        #expect(errors.allSatisfy { $0.hasSuffix(".") && !$0.hasSuffix("..") }, "\(errors)")
        #expect(result.stdout.split(separator: "\n").map { $0.prefix(while: { $0 != ":" }) } == [
            "Merged '\(first)'", "Merged '\(second)'",
        ])
        let stored = try await withCacheStore(at: merged) { store in
            try ["https://a.test/a", "https://a.test/b", "https://a.test/d"].map { try store.entry(url: $0) != nil }
        }
        #expect(stored == [true, true, false])
        let verify = try await webcache.run(["verify", "--store", merged])
        #expect(verify.exitCode == 0, "\(verify.stdout)")
    }

    @Test(arguments: ["junk", "damaged", "both"])
    func noNewStoreIsLeftWhenNoSourceCanBeMerged(sources kind: String) async throws {
        var sources: [String] = []
        if kind != "damaged" { sources.append(try folder.write(Data("not a store\n".utf8), to: "junk.sqlite")) }
        if kind != "junk" {
            sources.append(try await makeSource("damaged.sqlite", url: "https://a.test/d", damaged: true))
        }
        let merged = folder.path("out/merged.sqlite")

        let result = try await webcache.run(["merge"] + sources + ["--into", merged])

        #expect(result.exitCode == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.split(separator: "\n").count == sources.count, "\(result.stderr)")
        for suffix in ["", "-wal", "-shm"] {
            #expect(!FileManager.default.fileExists(atPath: merged + suffix), "\(kind): \(suffix)")
        }
    }

    @Test func aStoreThatExistedKeepsWhatItHeldWhenNoSourceCanBeMerged() async throws {
        let merged = try await makeSource("merged.sqlite", url: "https://a.test/kept")
        let junk = try folder.write(Data("not a store\n".utf8), to: "junk.sqlite")

        let result = try await webcache.run(["merge", junk, "--into", merged])

        #expect(result.exitCode == 1)
        let kept = try await withCacheStore(at: merged) { store in try store.entry(url: "https://a.test/kept") }
        #expect(kept != nil)
    }

    @Test func aMissingSourceIsNamedAndNothingIsCreated() async throws {
        let merged = folder.path("merged.sqlite")
        let result = try await webcache.run(["merge", folder.path("none.sqlite"), "--into", merged])
        #expect(result.exitCode == 1)
        #expect(result.stderr == "Error: There is no store at '\(folder.path("none.sqlite"))'.\n")
        #expect(!FileManager.default.fileExists(atPath: merged))
    }
}
