import Foundation
import Testing
import WebCacheTestSupport

@testable import CacheStore

@Suite(.timeLimit(.minutes(5)))
struct PageAndPartitionTests {
    let folder: TemporaryFolder
    let store: CacheStore

    init() throws {
        folder = try TemporaryFolder()
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
    }

    private let page = "https://example.test/index.html"
    private let edges = [
        PageEdge(resourceURL: "https://example.test/app.css", kind: "stylesheet"),
        PageEdge(resourceURL: "https://example.test/app.js", kind: "script"),
        PageEdge(resourceURL: "https://cdn.example.test/logo.png", kind: "image", failure: "HTTP 404"),
    ]

    // MARK: - Edges

    @Test func reportsHowCompleteAPageIs() async throws {
        // Given a page saved with its edges in one transaction, and one resource stored
        try await store.save(makeEntry(page), body: Data("<html>".utf8), pageEdges: edges)
        try await store.save(makeEntry("https://example.test/app.css"), body: Data("body{}".utf8))
        // When
        let status = try store.pageStatus(forPage: page)
        // Then
        #expect(status.pageStored)
        #expect(status.resourceCount == 3)
        #expect(status.storedCount == 1)
        #expect(status.failures.map(\.resourceURL) == ["https://cdn.example.test/logo.png"])
        #expect(status.missing == ["https://cdn.example.test/logo.png", "https://example.test/app.js"])
        #expect(!status.isComplete)
        #expect(try store.edges(forPage: page).count == 3)

        // When the edges are replaced separately and every resource is stored
        try await store.setEdges(Array(edges.prefix(2)), forPage: page)
        try await store.save(makeEntry("https://example.test/app.js"), body: Data("js".utf8))
        let complete = try store.pageStatus(forPage: page)
        #expect(complete.resourceCount == 2)
        #expect(complete.isComplete)
    }

    @Test func replacesTheEdgesOfSeveralPagesAtOnceInOnePartition() async throws {
        // Given a page with old edges in two partitions
        let other = "https://example.test/other.html"
        try await store.setEdges(edges, forPage: page, partition: "guest")
        try await store.setEdges(edges, forPage: page, partition: "user-1")
        // When the guest edges of both pages are replaced in one call
        try await store.setEdges(
            [page: [edges[0]], other: [PageEdge(resourceURL: "https://example.test/other.css", kind: "stylesheet")]],
            partition: "guest")
        // Then each page has exactly its new edges, and the other partition is untouched
        #expect(try store.edges(forPage: page, partition: "guest").map(\.resourceURL) == [edges[0].resourceURL])
        #expect(try store.edges(forPage: other, partition: "guest").map(\.resourceURL) == ["https://example.test/other.css"])
        #expect(try store.edges(forPage: page, partition: "user-1").count == 3)
    }

    @Test func replacingEdgesKeepsTheKindsAskedFor() async throws {
        // Given a page with a stylesheet, a script and an image
        try await store.setEdges(edges, forPage: page)
        // When its edges are replaced keeping images and scripts, with the script named again
        let script = PageEdge(resourceURL: "https://example.test/app.js", kind: "script", failure: "HTTP 500")
        try await store.setEdges([page: [script]], keepingKinds: ["image", "script"])
        // Then the stylesheet goes, the image stays as it was, and the script is what was given
        let stored = try store.edges(forPage: page)
        #expect(stored.map(\.resourceURL) == ["https://cdn.example.test/logo.png", "https://example.test/app.js"])
        #expect(stored.first?.failure == "HTTP 404")
        #expect(stored.last == script)
    }

    @Test func recordingWhatIsRecordedAlreadyWritesNothing() async throws {
        // Given a page's edges and skips recorded, and the size of the store's log after it
        let skip = PageSkip(resourceURL: "https://example.test/wide.png", kind: "image", reason: "too wide")
        try await store.setEdges([page: edges], skipped: [page: [skip]])
        let log = folder.path("store.sqlite-wal")
        let size = { try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int }
        let logged = try size()
        // When the same edges (in another order) and skips are recorded again
        try await store.setEdges([page: edges.reversed()], skipped: [page: [skip]])
        // Then nothing was written, and the page has them as before
        #expect(try size() == logged)
        #expect(try store.edges(forPage: page) == edges.sorted { $0.resourceURL < $1.resourceURL })
        #expect(try store.skipped(forPage: page) == [skip])
    }

    @Test func recordingChangedEdgesWritesTheChangesOnly() async throws {
        // Given a page's edges and a skip recorded
        let skip = PageSkip(resourceURL: "https://example.test/wide.png", kind: "image", reason: "too wide")
        try await store.setEdges([page: edges], skipped: [page: [skip]])
        // When one edge changes its failure, one is named twice (the last one counts), one is gone,
        // one is new, and the skip's reason changes
        let script = PageEdge(resourceURL: "https://example.test/app.js", kind: "script", failure: "HTTP 500")
        let font = PageEdge(resourceURL: "https://example.test/a.woff2", kind: "font")
        let named = [edges[0], PageEdge(resourceURL: script.resourceURL, kind: "script"), script, font]
        let changedSkip = PageSkip(resourceURL: skip.resourceURL, kind: "image", reason: "hidden")
        try await store.setEdges([page: named], skipped: [page: [skip, changedSkip]])
        // Then the page has exactly the new edges and the last skip
        #expect(try store.edges(forPage: page) == [font, edges[0], script])
        #expect(try store.skipped(forPage: page) == [changedSkip])
    }

    @Test func edgesAreComparedInTheOrderOfTheirURLsBytesWhateverTheirCharacters() async throws {
        // Given edges whose URLs share prefixes, differ in case, and hold characters beyond ASCII
        // (which the comparing read walks in the order of their bytes, as SQLite sorts them)
        let urls = [
            "https://example.test/a", "https://example.test/a/", "https://example.test/a/b", "https://example.test/B",
            "https://example.test/\u{E9}t\u{E9}.png", "https://example.test/e\u{301}t\u{E9}.png",
            "https://example.test/z.png", "https://example.test/\u{1F600}.png", "https://example.test/",
        ]
        let all = urls.map { PageEdge(resourceURL: $0, kind: "image") }
        try await store.setEdges([page: all])
        let log = folder.path("store.sqlite-wal")
        let size = { try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int }
        let logged = try size()
        // When they are recorded again in another order, nothing is written
        try await store.setEdges([page: all.reversed()])
        #expect(try size() == logged)
        // And when every other one goes and the rest change kind, the page has exactly those
        let kept = all.enumerated().filter { $0.offset % 2 == 0 }.map { PageEdge(resourceURL: $0.element.resourceURL, kind: "font") }
        try await store.setEdges([page: kept.shuffled()])
        let stored = try store.edges(forPage: page)
        #expect(stored.map { Array($0.resourceURL.utf8) } == kept.map { Array($0.resourceURL.utf8) }.sorted {
            $0.lexicographicallyPrecedes($1)
        })
        #expect(stored.allSatisfy { $0.kind == "font" })
    }

    @Test func edgesNamedTwiceKeepTheirFirstPlaceAndLastValueInTheOrderOfTheirBytes() {
        // Given random edges over a few URLs, some named several times
        var generator = SystemRandomNumberGenerator()
        let names = ["a", "a/", "B", "\u{E9}", "e\u{301}", "z", "", "\u{1F600}"]
        for _ in 0..<200 {
            let edges = (0..<Int.random(in: 0...12, using: &generator)).map { offset in
                PageEdge(resourceURL: "https://example.test/" + names.randomElement(using: &generator)!, kind: "k\(offset)")
            }
            // When they are made distinct
            let (distinct, byURL) = CacheStore.distinctByURL(edges)
            // Then each URL (its bytes: two spellings of one character are two URLs) is there once,
            // where it first came, with what it last was
            var expected: [PageEdge] = []
            var place: [[UInt8]: Int] = [:]
            for edge in edges {
                let bytes = Array(edge.resourceURL.utf8)
                if let index = place[bytes] { expected[index] = edge } else {
                    place[bytes] = expected.count
                    expected.append(edge)
                }
            }
            #expect(distinct == expected)
            // And the order given is that of their bytes
            #expect(byURL.sorted() == Array(distinct.indices))
            let bytes = byURL.map { Array(distinct[$0].resourceURL.utf8) }
            #expect(zip(bytes, bytes.dropFirst()).allSatisfy { $0.lexicographicallyPrecedes($1) })
        }
    }

    @Test func pagesRecordedTogetherKeepOnlyTheirOwnSkips() async throws {
        // Given a store that records no skip
        let other = "https://example.test/other.html"
        let skip = PageSkip(resourceURL: "https://example.test/wide.png", kind: "image", reason: "too wide")
        // When a page with a skip and one without are recorded together, without the comparing read
        try await store.setEdges([page: edges, other: [edges[0]]], skipped: [page: [skip]], comparingFirst: false)
        // Then only the first has it
        #expect(try store.skipped(forPage: page) == [skip])
        #expect(try store.skipped(forPage: other).isEmpty)
        // When both are recorded again, with the comparing read, wanting none
        try await store.setEdges([page: edges, other: [edges[0]]])
        // Then the skip is gone
        #expect(try store.skipped(forPage: page).isEmpty)
        // And so in another partition, whichever partition held skips before
        try await store.setEdges([page: edges], partition: "user-1", skipped: [page: [skip]])
        #expect(try store.skipped(forPage: page, partition: "user-1") == [skip])
        try await store.setEdges([page: edges], partition: "user-1", comparingFirst: false)
        #expect(try store.skipped(forPage: page, partition: "user-1").isEmpty)
    }

    @Test func recordingWithoutComparingFirstStillReplacesWhatWasRecorded() async throws {
        // Given a page's edges and a skip recorded, as by another process during a run that
        // believed its pages new to the store
        let skip = PageSkip(resourceURL: "https://example.test/wide.png", kind: "image", reason: "too wide")
        try await store.setEdges([page: edges], skipped: [page: [skip]])
        // When other edges are recorded without the comparing read
        let font = PageEdge(resourceURL: "https://example.test/a.woff2", kind: "font")
        try await store.setEdges([page: [edges[0], font]], comparingFirst: false)
        // Then the write compared: the page has exactly the new edges, and no skip
        #expect(try store.edges(forPage: page) == [font, edges[0]])
        #expect(try store.skipped(forPage: page).isEmpty)
    }

    @Test func pagesKnownNewAreWrittenWithoutComparingBesidePagesCompared() async throws {
        // Given two pages recorded, one of them with a skip
        let other = "https://example.test/other.html"
        let skip = PageSkip(resourceURL: "https://example.test/wide.png", kind: "image", reason: "too wide")
        try await store.setEdges([page: edges, other: [edges[0]]], skipped: [page: [skip]])
        // When both are recorded again together, the first named new to the store (as a page found
        // with nothing stored for it, recorded meanwhile by another process), with other edges
        let font = PageEdge(resourceURL: "https://example.test/a.woff2", kind: "font")
        try await store.setEdges([page: [edges[0], font], other: [edges[0], font]], knownNew: [page])
        // Then each has exactly its new edges, and the page named new lost its skip as well
        #expect(try store.edges(forPage: page) == [font, edges[0]])
        #expect(try store.edges(forPage: other) == [font, edges[0]])
        #expect(try store.skipped(forPage: page).isEmpty)
        // When the page named new is recorded again as it stands, with every page named new
        try await store.setEdges([page: [edges[0], font]], knownNew: [page])
        // Then it stands as it was
        #expect(try store.edges(forPage: page) == [font, edges[0]])
    }

    @Test func manyPagesRecordedAgainWriteOnlyThoseThatChanged() async throws {
        // Given pages that each need only themselves, one with a skip recorded, one with two edges
        let pages = (0..<6).map { "https://example.test/p\($0).html" }
        let own = { (page: String) in [PageEdge(resourceURL: page, kind: "page")] }
        let skip = PageSkip(resourceURL: "https://example.test/wide.png", kind: "image", reason: "too wide")
        let image = PageEdge(resourceURL: "https://example.test/a.png", kind: "image")
        var recorded = Dictionary(uniqueKeysWithValues: pages.map { ($0, own($0)) })
        recorded[pages[5]] = own(pages[5]) + [image]
        try await store.setEdges(recorded, skipped: [pages[1]: [skip]])
        let log = folder.path("store.sqlite-wal")
        let size = { try FileManager.default.attributesOfItem(atPath: log)[.size] as? Int }
        let logged = try size()

        // When all are recorded again as they are, nothing is written
        try await store.setEdges(recorded, skipped: [pages[1]: [skip]])
        #expect(try size() == logged)

        // And when one loses its skip, one its edge's kind, one fails, and one loses its image
        var changed = recorded
        changed[pages[2]] = [PageEdge(resourceURL: pages[2], kind: "document")]
        changed[pages[3]] = [PageEdge(resourceURL: pages[3], kind: "page", failure: "HTTP 503")]
        changed[pages[5]] = own(pages[5])
        try await store.setEdges(changed)

        // Then each page has exactly what it was given, and no skip is left
        for page in pages {
            #expect(try store.edges(forPage: page) == changed[page], "\(page)")
            #expect(try store.skipped(forPage: page).isEmpty, "\(page)")
        }
    }

    @Test func aStoredErrorAnswerDoesNotMakeAPageComplete() async throws {
        // Given every resource stored, but one edge recording that its answer was a 404
        try await store.save(makeEntry(page), body: Data("<html>".utf8), pageEdges: edges)
        for edge in edges {
            try await store.save(makeEntry(edge.resourceURL), body: Data("x".utf8))
        }
        // Then the page is not complete offline
        let status = try store.pageStatus(forPage: page)
        #expect(status.storedCount == status.resourceCount)
        #expect(!status.isComplete)
    }

    @Test func aResourceStoredOnlyAsAnErrorAnswerCountsAsMissing() async throws {
        // Given every resource stored, the logo only as the 404 its origin answered
        try await store.save(makeEntry(page), body: Data("<html>".utf8), pageEdges: edges)
        for edge in edges {
            var entry = makeEntry(edge.resourceURL)
            if edge.failure != nil { entry.status = 404 }
            try await store.save(entry, body: Data("x".utf8))
        }
        // Then the page has two of its three resources
        let status = try store.pageStatus(forPage: page)
        #expect(status.pageStored)
        #expect(status.storedCount == 2)
        #expect(status.missing == ["https://cdn.example.test/logo.png"])
    }

    @Test func aPageStoredOnlyAsAnErrorAnswerIsNotStored() async throws {
        var answer = makeEntry(page)
        answer.status = 500
        try await store.save(answer, body: Data("boom".utf8), pageEdges: [])
        #expect(try store.pageStatus(forPage: page).pageStored == false)
    }

    @Test func pinsAPageWithItsResourcesAndUnpinsThem() async throws {
        try await store.save(makeEntry(page), body: Data("<html>".utf8), pageEdges: edges)
        try await store.save(makeEntry("https://example.test/app.css"), body: Data("css".utf8))
        try await store.save(makeEntry("https://example.test/unrelated.css"), body: Data("u".utf8))
        #expect(try await store.setPinned(true, page: page) == PinChange(entries: 2, changed: 2))
        #expect(try store.entry(url: page)?.pinned == true)
        #expect(try store.entry(url: "https://example.test/app.css")?.pinned == true)
        #expect(try store.entry(url: "https://example.test/unrelated.css")?.pinned == false)
        #expect(try await store.setPinned(true, page: page) == PinChange(entries: 2, changed: 0))
        #expect(try await store.setPinned(false, page: page) == PinChange(entries: 2, changed: 2))
        #expect(try store.entry(url: "https://example.test/app.css")?.pinned == false)
    }

    @Test func unpinningAPageLeavesPinnedWhatAnotherPinnedPageNeeds() async throws {
        let other = "https://example.test/other.html"
        try await store.save(makeEntry(page), body: Data("<html>".utf8), pageEdges: edges)
        try await store.save(makeEntry(other), body: Data("<html>other".utf8), pageEdges: [edges[0]])
        try await store.save(makeEntry("https://example.test/app.css"), body: Data("css".utf8))
        try await store.setPinned(true, page: page)
        // Given the other page, which shares app.css, pinned and then unpinned
        try await store.setPinned(true, page: other)
        let change = try await store.setPinned(false, page: other)

        #expect(change == PinChange(entries: 2, changed: 1, neededByPinnedPages: 1))
        #expect(try store.entry(url: other)?.pinned == false)
        #expect(try store.entry(url: "https://example.test/app.css")?.pinned == true, "the pinned page needs it")
        // Once the first page is unpinned as well, nothing holds it
        #expect(try await store.setPinned(false, page: page) == PinChange(entries: 2, changed: 2))
        #expect(try store.entry(url: "https://example.test/app.css")?.pinned == false)
    }

    // MARK: - Partitions

    @Test func keepsPartitionsApartAndRemovesOneInOneStep() async throws {
        let shared = makeBody(size: 4_000, seed: 9)
        try await store.save(makeEntry(page, partition: "guest"), body: Data("guest page".utf8), pageEdges: edges)
        try await store.save(makeEntry(page, partition: "user-1"), body: Data("private page".utf8), pageEdges: edges)
        try await store.save(makeEntry("https://example.test/app.css", partition: "user-1"), body: shared)
        try await store.save(makeEntry("https://example.test/app.css", partition: "guest"), body: shared)
        try await store.setPinned(true, url: page, partition: "user-1")

        let guestPage = try #require(try store.entry(partition: "guest", url: page))
        let userPage = try #require(try store.entry(partition: "user-1", url: page))
        #expect(try store.bodyData(bodyID: try #require(guestPage.bodyID)) == Data("guest page".utf8))
        #expect(try store.bodyData(bodyID: try #require(userPage.bodyID)) == Data("private page".utf8))

        // When the user logs out
        let removed = try await store.removeAll(partition: "user-1")
        // Then pinned entries, edges and bodies only it used are gone; shared ones stay
        #expect(removed.entryCount == 2)
        #expect(removed.freedBytes == Int64("private page".utf8.count))
        #expect(try store.variants(url: page).count == 1)
        #expect(try store.entry(partition: "user-1", url: page) == nil)
        #expect(try store.edges(forPage: page, partition: "user-1").isEmpty)
        #expect(try store.edges(forPage: page, partition: "guest").count == 3)
        #expect(
            try store.bodyData(bodyID: try #require(try store.entry(url: "https://example.test/app.css")?.bodyID))
                == shared)
        #expect(try store.totals() == (try scannedTotals(store)))
    }
}
