import CSQLite
import ChildProcess
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
            3 bodies copied, 1 page edge.
            Merged '\(second)': 2 entries added or newer, 1 older left out, 0 parts of complete entries left out, \
            1 body copied, 1 page edge.

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
        #expect(reports.first?["status"] as? String == "merged")
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
        #expect(errors.last?.hasPrefix(
            "Error: Could not merge '\(damaged)' into '\(merged)': The stored body of https://a.test/d in the "
        ) == true, "\(errors)")
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
        // Nor the private store it was made in before it would have been given its path
        let left = (try? FileManager.default.contentsOfDirectory(atPath: folder.path("out"))) ?? []
        #expect(left.isEmpty, "\(kind): \(left)")
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

    // MARK: - Interruption, times, page skips

    /// Polls `output` until a complete line starts with `prefix`, for a minute at most; whether one did.
    private func waitForLine(startingWith prefix: String, in output: OutputFile) async throws -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if output.lines.contains(where: { $0.hasPrefix(prefix) }) { return true }
            try await Task.sleep(for: .milliseconds(20))
        }
        return false
    }

    @Test func sigintLeavesTheSourceBeingMergedOutAndSaysWhatWasMerged() async throws {
        // Given two sources, the second held under another process's exclusive lock, so that the merge
        // waits to open it until the test lets it
        let first = try await makeSource("a.sqlite", url: "https://a.test/a")
        let second = try await makeSource("b.sqlite", url: "https://a.test/b")
        let merged = folder.path("merged.sqlite")
        var locker: Connection? = try Connection(path: second, flags: SQLITE_OPEN_READWRITE)
        try locker?.execute(sql: "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; COMMIT")
        let stdout = OutputFile(path: folder.path("merge.out"))
        let stderr = OutputFile(path: folder.path("merge.err"))
        let process = try webcache.start(["merge", first, second, "--into", merged], output: stdout, error: stderr)

        // When SIGINT comes once the first source is merged, and the lock goes once the merge says it stops
        let firstMerged = try await waitForLine(startingWith: "Merged '\(first)'", in: stdout)
        try #require(firstMerged, "\(stdout.lines) \(stderr.lines)")
        process.send(SIGINT)
        let stopping = try await waitForLine(startingWith: "webcache: stopping on signal 2", in: stderr)
        locker = nil
        let termination = await process.finish().termination

        // Then the first source is in the store, the second is not, and the summary says so
        #expect(stopping, "\(stderr.lines)")
        #expect(termination == .exited(130), "\(stderr.lines)")
        #expect(stdout.lines.count == 2, "\(stdout.lines)")
        #expect(stdout.lines.last == """
            Interrupted: merged 1 of 2 sources into '\(merged)'; not merged (nothing of them is in the store): \
            '\(second)'.
            """)
        let stored = try await withCacheStore(at: merged) { store in
            try ["https://a.test/a", "https://a.test/b"].map { try store.entry(url: $0) != nil }
        }
        #expect(stored == [true, false])
        let verify = try await webcache.run(["verify", "--store", merged])
        #expect(verify.exitCode == 0, "\(verify.stdout)")
    }

    @Test func mergedEntriesKeepWhenTheyWereStoredAndLastUsedAndTheirHits() async throws {
        // Given an entry stored and last read long before the merge, and a partial entry
        let source = folder.path("old.sqlite")
        var configuration = CacheStore.Configuration()
        configuration.clock = { Self.start.addingTimeInterval(30) }
        let used = Self.start.addingTimeInterval(90)
        try await withCacheStore(at: source, configuration: configuration) { store in
            try await save("https://a.test/1", body: "one", offset: 0, in: store)
            try await savePart(0..<1_000, in: store)
            _ = try await store.lookup(url: "https://a.test/1", at: used)
        }
        let merged = folder.path("times.sqlite")

        // When
        let result = try await webcache.run(["merge", source, "--into", merged])

        // Then the merged entries have the source's times and hits, not the merge's
        #expect(result.exitCode == 0, "\(result.stderr)")
        try await withCacheStore(at: merged) { store in
            let entry = try #require(try store.entry(url: "https://a.test/1"))
            #expect(entry.storedAt == Self.start.addingTimeInterval(30))
            #expect(entry.lastAccess == used)
            #expect(entry.hitCount == 1)
            let partial = try #require(try store.partialVariants(url: Self.videoURL).first)
            #expect(partial.entry.storedAt == Self.start.addingTimeInterval(30))
            #expect(partial.entry.lastAccess == Self.start.addingTimeInterval(30))
        }
    }

    @Test func whatAPageLeftOutForItsDeviceComesAlongUnlessAnotherStoreHoldsIt() async throws {
        // Given a page that left out its large image in one store, and the same page with it in another
        let page = "https://a.test/"
        let small = PageEdge(resourceURL: "https://a.test/small.png", kind: "image")
        let large = "https://a.test/large.png"
        let phone = folder.path("phone.sqlite")
        try await withCacheStore(at: phone) { store in
            try await save(page, body: "page", offset: 0, in: store)
            try await save(small.resourceURL, body: "small", offset: 0, in: store)
            try await store.setEdges(
                [page: [PageEdge(resourceURL: page, kind: "page"), small]],
                skipped: [page: [PageSkip(resourceURL: large, kind: "image", reason: "390x844 at 3x takes small.png")]])
        }
        let desktop = folder.path("desktop.sqlite")
        try await withCacheStore(at: desktop) { store in
            try await save(large, body: "large", offset: 0, in: store)
            try await store.setEdges([page: [PageEdge(resourceURL: large, kind: "image")]])
        }
        let merged = folder.path("skips.sqlite")

        // When the first is merged, then the second
        let first = try await webcache.run(["merge", phone, "--into", merged])
        let afterFirst = try await webcache.run(["inspect", "--pages", "--store", merged])
        let second = try await webcache.run(["merge", desktop, "--into", merged])
        let afterSecond = try await webcache.run(["inspect", "--pages", "--store", merged])

        // Then the skip is there after the first, as inspect shows it in the source, and gone after the second
        #expect(first.exitCode == 0 && second.exitCode == 0, "\(first.stderr) \(second.stderr)")
        let inSource = try await webcache.run(["inspect", "--pages", "--store", phone])
        #expect(afterFirst.stdout == inSource.stdout)
        #expect(afterFirst.stdout.contains(
            "  skipped for this device: \(large) (image): 390x844 at 3x takes small.png"), "\(afterFirst.stdout)")
        #expect(!afterSecond.stdout.contains("skipped"), "\(afterSecond.stdout)")
        #expect(afterSecond.stdout.hasPrefix("complete: \(page) (partition guest): 3 of 3 resources stored\n"))
    }

    // MARK: - Partial entries shown and read, and the command line

    @Test func inspectShowsTheBytesOverlappingPartsHoldOnce() async throws {
        // Given two stores holding overlapping ranges of one response, merged into one
        let low = folder.path("low.sqlite")
        let high = folder.path("high.sqlite")
        try await withCacheStore(at: low) { try await savePart(0..<600_000, in: $0) }
        try await withCacheStore(at: high) { try await savePart(200_000..<999_999, in: $0) }
        let merged = folder.path("parts.sqlite")
        let merge = try await webcache.run(["merge", low, high, "--into", merged])
        try #require(merge.exitCode == 0, "\(merge.stderr)")

        // When
        let text = try await webcache.run(["inspect", Self.videoURL, "--store", merged])
        let json = try await webcache.run(["inspect", Self.videoURL, "--store", merged, "--json"])

        // Then the entry holds 999,999 bytes, each once, in two parts, and says whose headers are listed
        #expect(text.exitCode == 0, "\(text.stderr)")
        let lines = text.stdout.split(separator: "\n").map { String($0) }
        #expect(lines.contains {
            $0.hasPrefix("  Partial:") && $0.hasSuffix(" holds 999999 of 1000000 bytes: 0-999998")
        }, "\(text.stdout)")
        #expect(lines.contains {
            $0.hasPrefix("  Parts:") && $0.hasSuffix(" 0-599999, 200000-999998 (2 parts, 1399999 bytes stored)")
        }, "\(text.stdout)")
        #expect(lines.contains { $0.hasPrefix("  Size:") && $0.hasSuffix("(999999 bytes)") }, "\(text.stdout)")
        #expect(lines.contains("  Headers (of the part stored last):"), "\(text.stdout)")
        let object = try #require(try JSONSerialization.jsonObject(with: json.stdoutData) as? [String: Any])
        let entry = try #require((object["entries"] as? [[String: Any]])?.first)
        #expect(entry["size"] as? Int == 999_999)
        let held = try #require(entry["heldRanges"] as? [[String: Any]])
        #expect(held.map { [$0["first"] as? Int, $0["last"] as? Int] } == [[0, 999_998]])
    }

    @Test func aCacheOnlyGetOfAResponseHeldInPartSaysWhatIsHeld() async throws {
        let part = folder.path("held.sqlite")
        try await withCacheStore(at: part) { store in
            try await savePart(1_000..<2_000, in: store)
            try await savePart(5_000..<6_000, in: store)
        }

        let result = try await webcache.run(["get", Self.videoURL, "--policy", "cache-only", "--store", part])

        #expect(result.exitCode == 1)
        #expect(result.stderr.contains(
            "Only part of \(Self.videoURL) is in the store (bytes 1000-1999, 5000-5999 of 1000000), and the policy "
                + "forbids the network"), "\(result.stderr)")
    }

    @Test func theStoreToMergeIntoMustBeNamed() async throws {
        let source = try await makeSource("a.sqlite", url: "https://a.test/a")

        let empty = try await webcache.run(["merge", source, "--into", ""])
        let missing = try await webcache.run(["merge", source])
        let help = try await webcache.run(["help", "merge"])

        #expect(empty.exitCode == 64, "\(empty.stderr)")
        #expect(empty.stderr.hasPrefix("Error: The value '' is invalid for '--into <store>'"), "\(empty.stderr)")
        #expect(missing.exitCode == 64, "\(missing.stderr)")
        #expect(missing.stderr.hasPrefix("Error: Missing expected option '--into <store>'"), "\(missing.stderr)")
        #expect(help.stdout.contains("USAGE: webcache merge --into <store> [--json] <source> ..."), "\(help.stdout)")
    }

    @Test func aStoreIsNotMergedIntoItself() async throws {
        // Given a store, and the same file through another spelling of its path and through a link
        let store = try await makeSource("self.sqlite", url: "https://a.test/self")
        let link = folder.path("link.sqlite")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: store)
        let respelled = folder.url.path + "/./self.sqlite"

        for (source, into) in [(store, store), (respelled, store), (link, store), (store, link)] {
            // When
            let result = try await webcache.run(["merge", source, "--into", into])

            // Then
            #expect(result.exitCode == 64, "\(source) into \(into): \(result.stdout) \(result.stderr)")
            #expect(result.stderr.hasPrefix(
                "Error: The source '\(source)' is the store '\(into)' that --into names: a store cannot be merged "
                    + "into itself"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
    }

    @Test func theJSONReportNamesEverySourceAndWhatBecameOfIt() async throws {
        let missing = folder.path("nope.sqlite")
        let source = try await makeSource("a.sqlite", url: "https://a.test/a")
        let merged = folder.path("json.sqlite")

        let result = try await webcache.run(["merge", missing, source, "--into", merged, "--json"])

        #expect(result.exitCode == 1)
        let reports = try #require(try JSONSerialization.jsonObject(with: result.stdoutData) as? [[String: Any]])
        #expect(reports.map { $0["source"] as? String } == [missing, source])
        #expect(reports.map { $0["status"] as? String } == ["failed", "merged"])
        #expect(reports.first?["error"] as? String == "There is no store at '\(missing)'.")
        #expect(reports.last?["merged"] as? Int == 1)
    }
}
