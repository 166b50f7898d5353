import CSQLite
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// `freshEntries(partition:urls:at:)`: the one-lookup answer for a plain GET, given only where the
/// stored columns decide it alone, and `nil` wherever the full rules must decide.
@Suite(.timeLimit(.minutes(5)))
struct FreshEntryTests {
    let folder: TemporaryFolder
    let store: CacheStore

    init() throws {
        folder = try TemporaryFolder()
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
    }

    private func url(_ name: String) -> String { "https://example.test/\(name)" }

    @Test func answersOnlyTheURLsWhoseOnlyVariantIsFreshAndSelectedByNothing() async throws {
        // Given one entry of each kind
        try await store.save(makeEntry(url("fresh")), body: makeBody(size: 10, seed: 1))
        try await store.save(makeEntry(url("stale"), freshFor: -1), body: makeBody(size: 10, seed: 2))
        try await store.save(makeEntry(url("varied"), headers: ["Content-Type": "text/plain", "vary": "Accept"]),
                             body: makeBody(size: 10, seed: 3))
        try await store.save(makeEntry(url("keyed"), varyKey: "accept=text/html"), body: makeBody(size: 10, seed: 4))
        try await store.save(makeEntry(url("two")), body: makeBody(size: 10, seed: 5))
        try await store.save(makeEntry(url("two"), varyKey: "accept=x"), body: makeBody(size: 10, seed: 6))
        var missing = makeEntry(url("missing"))
        missing.status = 404
        try await store.save(missing, body: Data())
        var moved = makeEntry(url("moved"))
        moved.status = 301
        try await store.save(moved, body: Data())
        var decoded = makeEntry(url("decoded"))
        decoded.decodedFrom = "gzip"
        try await store.save(decoded, body: makeBody(size: 10, seed: 7))
        try await store.save(makeEntry(url("private"), partition: "user-1"), body: makeBody(size: 10, seed: 8))
        try await store.save(makeEntry(url("head"), method: .head), body: Data())
        let names = ["fresh", "stale", "varied", "keyed", "two", "missing", "moved", "decoded", "private", "head",
                     "absent"]

        // When
        let answers = try store.freshEntries(urls: names.map(url), at: referenceDate)

        // Then only the fresh, plain entry is answered, with its stored columns
        #expect(answers.count == names.count)
        let answered = zip(names, answers).compactMap { name, answer in answer.map { (name, $0) } }
        #expect(answered.map(\.0) == ["fresh"])
        let fresh = try #require(try store.entry(url: url("fresh")))
        #expect(answered.first?.1 == CacheStore.FreshEntry(
            id: try #require(fresh.id), status: 200, contentType: "text/plain", bodySize: 10))
    }

    /// `lookUp` tells what is stored and does not answer alone from nothing at all: a load of a URL
    /// with nothing stored for a `GET` in the partition has nothing to read.
    @Test func aLookupTellsStoredEntriesAndPartsFromNothing() async throws {
        // Given a fresh entry, a stale one, one of two variants, an error, another partition's
        // entry, a HEAD entry, and a range of a URL whose whole body was never stored
        try await store.save(makeEntry(url("fresh")), body: makeBody(size: 10, seed: 1))
        try await store.save(makeEntry(url("stale"), freshFor: -1), body: makeBody(size: 10, seed: 2))
        try await store.save(makeEntry(url("keyed"), varyKey: "accept=text/html"), body: makeBody(size: 10, seed: 3))
        var missing = makeEntry(url("missing"))
        missing.status = 404
        try await store.save(missing, body: Data())
        try await store.save(makeEntry(url("private"), partition: "user-1"), body: makeBody(size: 10, seed: 4))
        try await store.save(makeEntry(url("head"), method: .head), body: Data())
        var writer = store.makeBodyWriter()
        try await writer.write(makeBody(size: 100, seed: 5))
        let rangeHeaders: HTTPHeaders = ["ETag": #""r""#, "Content-Range": "bytes 0-99/1000"]
        try await store.savePart(
            makeEntry(url("part"), headers: rangeHeaders), first: 0, completeLength: 1000,
            completeHeaders: ["ETag": #""r""#, "Content-Length": "1000"], body: writer)
        let names = ["fresh", "stale", "keyed", "missing", "private", "head", "part", "absent"]

        // When
        let holdings = try store.lookUp(urls: names.map(url), at: referenceDate)

        // Then only the URLs with nothing for a GET in the partition are nothing
        let freshID = try #require(try store.entry(url: url("fresh"))?.id)
        #expect(holdings == [
            .fresh(CacheStore.FreshEntry(id: freshID, status: 200, contentType: "text/plain", bodySize: 10)),
            .stored, .stored, .stored, .nothing, .nothing, .stored, .nothing,
        ])
        // And one URL is looked up as one of a list is
        #expect(try store.lookUp(urls: [url("part")], at: referenceDate) == [.stored])
        #expect(try store.lookUp(urls: [url("absent")], at: referenceDate) == [.nothing])
        #expect(try store.lookUp(partition: "user-1", urls: [url("private")], at: referenceDate) != [.nothing])
    }

    @Test func freshnessEndsAtTheStoredInstant() async throws {
        // Given an entry fresh for 600 s after the reference date
        try await store.save(makeEntry(url("a")), body: makeBody(size: 3, seed: 1))
        // Then it is answered before that instant, and not from it on
        #expect(try store.freshEntries(urls: [url("a")], at: referenceDate.addingTimeInterval(599))[0] != nil)
        #expect(try store.freshEntries(urls: [url("a")], at: referenceDate.addingTimeInterval(600))[0] == nil)
        // And in another partition it is not there at all
        #expect(try store.freshEntries(partition: "user-1", urls: [url("a")], at: referenceDate)[0] == nil)
    }

    @Test func theBodyIsNotReadOnlyItsRecordMustBeComplete() async throws {
        // Given a body of one chunk whose bytes were changed in the file, one of two chunks, and one
        // whose record lost its hash (as a body still being written, with its staging token, has none)
        let damaged = try await store.save(makeEntry(url("damaged")), body: makeBody(size: 5_000, seed: 1))
        try await store.save(makeEntry(url("large")), body: makeBody(size: CacheStore.chunkSize + 1, seed: 2))
        let unfinished = try await store.save(makeEntry(url("unfinished")), body: makeBody(size: 10, seed: 3))
        let connection = try Connection(path: store.path, flags: SQLITE_OPEN_READWRITE)
        let damagedBody = try #require(damaged.bodyID)
        try connection.execute(sql: "UPDATE body_chunk SET data = zeroblob(length(data)) WHERE body_id = \(damagedBody)")
        try connection.execute(sql: "UPDATE body SET hash = NULL, staging_token = 'test' WHERE id = \(try #require(unfinished.bodyID))")

        // When
        let answers = try store.freshEntries(urls: ["damaged", "large", "unfinished"].map(url), at: referenceDate)

        // Then the lookup answers from the columns: the damage is left to the reads that serve the
        // body (and to verify), the size does not matter, and a body without its hash is not stored yet
        #expect(answers.map { $0 != nil } == [true, true, false])
        #expect(answers[1]?.bodySize == Int64(CacheStore.chunkSize + 1))
        #expect(try await !store.verify().isSound)
    }

    @Test func aResponseReceivedAfterTheInstantAskedAboutIsLeftToTheRules() async throws {
        // Given an entry received at the reference date
        try await store.save(makeEntry(url("a")), body: makeBody(size: 3, seed: 1))
        // Then a clock that reads earlier does not get it from the columns (as the loader's hit does not)
        #expect(try store.freshEntries(urls: [url("a")], at: referenceDate.addingTimeInterval(-1))[0] == nil)
    }

    @Test func aPageRecordedAsNeedingOnlyItselfIsToldApart() async throws {
        // Given fresh entries recorded as pages in different ways
        let names = ["lone", "failed", "two", "skipping", "unrecorded", "other"]
        for (index, name) in names.enumerated() {
            try await store.save(makeEntry(url(name)), body: makeBody(size: 10, seed: UInt8(index)))
        }
        let own = { (name: String) in PageEdge(resourceURL: self.url(name), kind: "page") }
        try await store.setEdges([
            url("lone"): [own("lone")],
            url("failed"): [PageEdge(resourceURL: url("failed"), kind: "page", failure: "HTTP 500")],
            url("two"): [own("two"), PageEdge(resourceURL: url("lone"), kind: "image")],
            url("skipping"): [own("skipping")],
            url("other"): [PageEdge(resourceURL: url("lone"), kind: "page")],
        ], skipped: [url("skipping"): [PageSkip(resourceURL: url("wide.png"), kind: "image", reason: "too wide")]])

        // When asked as pages, and not
        let asPages = try store.freshEntries(urls: names.map(url), at: referenceDate, asPages: true)
        let plain = try store.freshEntries(urls: names.map(url), at: referenceDate)

        // Then every one is fresh, and only the page whose one edge is its own, sound, with no skip is alone
        #expect(asPages.map { $0 != nil } == Array(repeating: true, count: names.count))
        #expect(asPages.map { $0?.isLonePage } == [true, false, false, false, false, false])
        #expect(plain.map { $0?.isLonePage } == Array(repeating: false, count: names.count))
    }

    @Test func aPartitionThatRecordsNoSkipTellsLonePagesApartWithoutAskingForSkips() async throws {
        // Given pages recorded in the guest partition, none of them with a skip, and a skip recorded
        // for the same URL in another partition only
        let names = ["lone", "failed", "two", "unrecorded"]
        for (index, name) in names.enumerated() {
            try await store.save(makeEntry(url(name)), body: makeBody(size: 10, seed: UInt8(index)))
        }
        try await store.setEdges([
            url("lone"): [PageEdge(resourceURL: url("lone"), kind: "page")],
            url("failed"): [PageEdge(resourceURL: url("failed"), kind: "page", failure: "HTTP 500")],
            url("two"): [PageEdge(resourceURL: url("two"), kind: "page"), PageEdge(resourceURL: url("x"), kind: "image")],
        ])
        try await store.setEdges(
            [url("lone"): [PageEdge(resourceURL: url("lone"), kind: "page")]], partition: "user-1",
            skipped: [url("lone"): [PageSkip(resourceURL: url("wide.png"), kind: "image", reason: "too wide")]])

        // When asked as pages, one URL at a time and all at once
        let together = try store.freshEntries(urls: names.map(url), at: referenceDate, asPages: true)
        let alone = try names.map { try store.freshEntries(urls: [url($0)], at: referenceDate, asPages: true)[0] }

        // Then the guest partition's own record decides: the other partition's skip does not count
        #expect(together.map { $0?.isLonePage } == [true, false, false, false])
        #expect(alone.map { $0?.isLonePage } == [true, false, false, false])
    }

    @Test func eachURLOfOneLookupGetsItsOwnAnswerWhereverItStands() async throws {
        // Given fresh entries, among them texts that JSON must escape, and a stale entry, a URL with
        // two variants, a partial entry and an error response between them
        let odd = ["q\"uote", "back\\slash", "tab\there", "caf\u{E9}", "line\nbreak"]
        for (index, name) in (["a", "b", "c"] + odd).enumerated() {
            try await store.save(makeEntry(url(name)), body: makeBody(size: 10 + index, seed: UInt8(index)))
        }
        try await store.save(makeEntry(url("stale"), freshFor: -1), body: makeBody(size: 10, seed: 20))
        try await store.save(makeEntry(url("two")), body: makeBody(size: 10, seed: 21))
        try await store.save(makeEntry(url("two"), varyKey: "accept=x"), body: makeBody(size: 10, seed: 22))
        var partial = makeEntry(url("partial"))
        partial.completeLength = 100
        try await store.save(partial, body: makeBody(size: 10, seed: 23))
        var failed = makeEntry(url("failed"))
        failed.status = 500
        try await store.save(failed, body: Data())

        // When they are looked up together, fresh ones after the others and one of them twice
        let names = ["stale", "a", "two", "b", "partial", "a", "absent", "failed", "c"] + odd
        let answers = try store.freshEntries(urls: names.map(url), at: referenceDate)

        // Then each answer is the entry of the URL at its place
        #expect(answers.count == names.count)
        for (name, answer) in zip(names, answers) {
            let fresh = ["a", "b", "c"].contains(name) || odd.contains(name)
            #expect((answer != nil) == fresh, "\(name)")
            if fresh { #expect(answer?.id == (try store.entry(url: url(name))?.id), "\(name)") }
        }
    }

    @Test func aFieldThatMerelyEndsInVaryDoesNotCount() async throws {
        try await store.save(makeEntry(url("a"), headers: ["Content-Type": "text/plain", "X-Vary": "1"]),
                             body: makeBody(size: 3, seed: 1))
        #expect(try store.freshEntries(urls: [url("a")], at: referenceDate)[0] != nil)
    }

    @Test(arguments: [
        ("Vary: Accept\r\n", true), ("vary: *\r\n", true), ("Content-Type: a\r\nVARY: x\r\n", true),
        ("Content-Type: a\r\nvArY:\r\n", true), ("X-Vary: 1\r\n", false), ("Content-Type: vary: x\r\n", false),
        ("Varying: 1\r\n", false), ("Vary", false), ("", false), ("Cache-Control: max-age=1\r\nVary:", true),
    ])
    func aVaryLineIsFoundByItsNameAtALinesStart(text: String, found: Bool) {
        var text = text
        #expect(text.withUTF8 { CacheStore.hasVaryLine($0) } == found, "\(text)")
    }
}
