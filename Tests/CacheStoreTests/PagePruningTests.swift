import Foundation
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// Pruning a whole page: `PruneCriteria.page`.
@Suite(.timeLimit(.minutes(5)))
struct PagePruningTests {
    let folder: TemporaryFolder
    let store: CacheStore

    init() throws {
        folder = try TemporaryFolder()
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
    }

    private let home = "https://example.test/index.html"
    private let about = "https://example.test/about.html"
    private let stylesheet = "https://example.test/site.css"
    private let script = "https://example.test/home.js"
    private let photo = "https://example.test/team.png"
    private let unrelated = "https://example.test/robots.txt"

    /// Two pages that share the stylesheet; the home page has a script of its own, the about page a
    /// photo; and an entry no page needs. Every body is distinct, 100 bytes per seed. The home page's
    /// first edge is the page itself, as a preload records it; the about page's edges leave it out.
    private func storeTwoPages(partition: String = "guest") async throws {
        let bodies = [home: 1, about: 2, stylesheet: 3, script: 4, photo: 5, unrelated: 6]
        for (url, seed) in bodies {
            try await store.save(
                makeEntry(url, partition: partition), body: makeBody(size: 100 * seed, seed: UInt8(seed)))
        }
        try await store.setEdges(
            [
                home: [
                    PageEdge(resourceURL: home, kind: "page"),
                    PageEdge(resourceURL: stylesheet, kind: "stylesheet"),
                    PageEdge(resourceURL: script, kind: "script"),
                ],
                about: [
                    PageEdge(resourceURL: stylesheet, kind: "stylesheet"),
                    PageEdge(resourceURL: photo, kind: "image"),
                ],
            ], partition: partition)
    }

    private func urls(partition: String = "guest") throws -> Set<String> {
        Set(
            try [home, about, stylesheet, script, photo, unrelated].filter {
                try store.entry(partition: partition, url: $0) != nil
            })
    }

    private func expectSoundTotals() async throws {
        #expect(try store.totals() == (try scannedTotals(store)))
        #expect(try await store.verify().isSound)
    }

    // MARK: - Tests

    @Test func removesThePageItsOwnResourcesAndItsEdgesAndKeepsWhatAnotherPageNeeds() async throws {
        try await storeTwoPages()
        // When
        let result = try await store.prune(PruneCriteria(page: home))
        // Then the page and its script go; the shared stylesheet, the other page and the rest stay
        #expect(Set(result.urls) == [home, script])
        #expect(result.entryBytes == 100 + 400)
        #expect(result.freedBytes == 100 + 400)
        #expect(result.pages == [StoredPage(partition: "guest", url: home)])
        #expect(try urls() == [about, stylesheet, photo, unrelated])
        #expect(try store.edges(forPage: home).isEmpty)
        #expect(try store.pages() == [StoredPage(partition: "guest", url: about)])
        #expect(try store.pageStatus(forPage: about).isComplete)
        try await expectSoundTotals()
    }

    @Test func aPinnedResourceStaysAndIncludePinnedLetsItGo() async throws {
        try await storeTwoPages()
        try await store.setPinned(true, url: script)
        // When
        let result = try await store.prune(PruneCriteria(page: home))
        // Then the pinned script stays, the page and its record go
        #expect(result.urls == [home])
        #expect(result.pages == [StoredPage(partition: "guest", url: home)])
        #expect(try urls() == [about, stylesheet, script, photo, unrelated])
        #expect(try store.entry(url: script)?.pinned == true)
        #expect(try store.pages().map(\.url) == [about])

        // When the page is recorded again, and pinned entries may go too
        try await store.setEdges([PageEdge(resourceURL: script, kind: "script")], forPage: home)
        let withPins = try await store.prune(PruneCriteria(page: home, includePinned: true))
        #expect(withPins.urls == [script])
        #expect(withPins.pages == [StoredPage(partition: "guest", url: home)])
        #expect(try store.pages().map(\.url) == [about])
        try await expectSoundTotals()
    }

    @Test func aPageThatItselfStaysKeepsItsRecord() async throws {
        try await storeTwoPages()
        try await store.setPinned(true, url: home)
        // When the page itself is pinned
        let pinned = try await store.prune(PruneCriteria(page: home))
        // Then only its own unpinned resource goes, and the page stays listed, missing it
        #expect(pinned.urls == [script])
        #expect(pinned.pages.isEmpty)
        #expect(try store.pageStatus(forPage: home).missing == [script])

        // When the page itself does not meet another criterion
        try await store.setPinned(false, url: home)
        let hostOnly = try await store.prune(PruneCriteria(host: "cdn.example.test", page: home))
        #expect(hostOnly.urls.isEmpty)
        #expect(hostOnly.pages.isEmpty)
        #expect(try store.pages().map(\.url) == [about, home])
        try await expectSoundTotals()
    }

    @Test func aPageThatAnotherPageNeedsStaysWithItsRecord() async throws {
        // Given the about page shown in a frame of the home page
        try await storeTwoPages()
        try await store.setEdges(
            [PageEdge(resourceURL: stylesheet, kind: "stylesheet"), PageEdge(resourceURL: about, kind: "frame")],
            forPage: home)
        // When
        let result = try await store.prune(PruneCriteria(page: about))
        // Then only the photo goes: the home page still needs the about page and the stylesheet
        #expect(result.urls == [photo])
        #expect(result.pages.isEmpty)
        #expect(try store.pages().map(\.url) == [about, home])
        try await expectSoundTotals()
    }

    @Test func aResourceThatIsAnotherPageStaysWithItsRecord() async throws {
        // Given the home page framing the about page, which is recorded as a page of its own (its own
        // edge first) and is referenced by no other page
        try await storeTwoPages()
        try await store.setEdges(
            [
                PageEdge(resourceURL: home, kind: "page"), PageEdge(resourceURL: stylesheet, kind: "stylesheet"),
                PageEdge(resourceURL: about, kind: "frame"),
            ],
            forPage: home)
        try await store.setEdges(
            [PageEdge(resourceURL: about, kind: "page"), PageEdge(resourceURL: photo, kind: "image")], forPage: about)
        // When the home page is pruned
        let result = try await store.prune(PruneCriteria(page: home))
        // Then the home page and the stylesheet only it needs go; the about page, a page itself, stays
        // (the script, no longer among the home page's edges, is no part of it)
        #expect(Set(result.urls) == [home, stylesheet])
        #expect(result.pages == [StoredPage(partition: "guest", url: home)])
        #expect(try urls() == [about, script, photo, unrelated])
        #expect(try store.pages().map(\.url) == [about])
        #expect(try store.pageStatus(forPage: about).isComplete)
        try await expectSoundTotals()
    }

    @Test func whichOtherPagesNeedAnEntryIsAskedOfTheIndexByResource() throws {
        // The index leaves out a page's own edge; a query that does not say the same scans the table.
        let condition = PruneCriteria(page: home).condition
        let plan = try store.read("plan") { connection in
            var steps: [String] = []
            try connection.forEachRow("EXPLAIN QUERY PLAN SELECT id FROM entry WHERE \(condition.sql)", condition.values) {
                steps.append($0.text(3))
            }
            return steps
        }
        #expect(plan.contains { $0.contains("other USING") && $0.contains("INDEX page_edge_by_resource") }, "\(plan)")
        #expect(plan.contains { $0.contains("own USING PRIMARY KEY") }, "\(plan)")
        #expect(!plan.contains { $0.hasPrefix("SCAN other") || $0.hasPrefix("SCAN own") }, "\(plan)")
    }

    @Test func combinesWithTheOtherCriteria() async throws {
        // Given the pages in two partitions, and in the guest one an expired script
        try await storeTwoPages(partition: "guest")
        try await storeTwoPages(partition: "user-1")
        try await store.save(makeEntry(script, freshFor: -100), body: makeBody(size: 400, seed: 4))
        // When only the expired entries of the home page go
        let expired = try await store.prune(PruneCriteria(expiredAt: referenceDate, page: home))
        // Then the script goes in the guest partition; the fresh page stays, and so does its record
        #expect(expired.urls == [script])
        #expect(expired.pages.isEmpty)
        #expect(try urls(partition: "guest") == [home, about, stylesheet, photo, unrelated])
        #expect(try urls(partition: "user-1") == [home, about, stylesheet, script, photo, unrelated])

        // When the page goes in one partition only
        let user = try await store.prune(PruneCriteria(partition: "user-1", page: home))
        #expect(Set(user.urls) == [home, script])
        #expect(user.pages == [StoredPage(partition: "user-1", url: home)])
        #expect(try urls(partition: "guest") == [home, about, stylesheet, photo, unrelated])
        #expect(try store.pages(url: home) == [StoredPage(partition: "guest", url: home)])

        // When the page goes in every partition where it is recorded
        let everywhere = try await store.prune(PruneCriteria(page: home))
        #expect(everywhere.urls == [home])
        #expect(everywhere.pages == [StoredPage(partition: "guest", url: home)])
        #expect(try store.pages(url: home).isEmpty)
        try await expectSoundTotals()
    }

    @Test func dryRunListsWhatWouldGoAndChangesNothing() async throws {
        try await storeTwoPages()
        let before = try store.totals()
        // When
        let plan = try await store.prune(PruneCriteria(page: home), dryRun: true)
        // Then the plan is what a real run then does, and nothing changed meanwhile
        #expect(Set(plan.urls) == [home, script])
        #expect(plan.entryCount == 2)
        #expect(plan.entryBytes == 500)
        #expect(plan.pages == [StoredPage(partition: "guest", url: home)])
        #expect(try store.totals() == before)
        #expect(try rowCount(store, "page_edge") == 5)
        #expect(try urls() == [home, about, stylesheet, script, photo, unrelated])
        let done = try await store.prune(PruneCriteria(page: home))
        #expect(done.urls == plan.urls)
        #expect(done.pages == plan.pages)
        #expect(done.freedBytes == plan.freedBytes)
    }

    @Test func refusesAPageWithoutRecordedEdgesAndRemovesNothing() async throws {
        try await storeTwoPages()
        let before = try store.totals()
        // A stored entry that is no page, a URL not stored at all, and a page of another partition
        let cases = [
            PruneCriteria(page: unrelated), PruneCriteria(page: "https://example.test/nowhere.html"),
            PruneCriteria(partition: "user-1", page: home),
        ]
        for criteria in cases {
            for dryRun in [true, false] {
                let error = await #expect(throws: CacheStore.Error.self) {
                    try await store.prune(criteria, dryRun: dryRun)
                }
                #expect(error?.code == .unknownPage)
                #expect(error?.message.contains("'\(criteria.page ?? "")' is not a page") == true)
            }
        }
        #expect(try store.totals() == before)
        #expect(try rowCount(store, "page_edge") == 5)
    }
}
