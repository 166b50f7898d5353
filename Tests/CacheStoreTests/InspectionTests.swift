import CSQLite
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// Queries for `inspect`, `pin` and `prune --max-size --dry-run`: entries across partitions, pages with
/// edges, and eviction plans that match what eviction then does.
@Suite(.timeLimit(.minutes(5)))
struct InspectionTests {
    let folder: TemporaryFolder
    let store: CacheStore

    init() throws {
        folder = try TemporaryFolder()
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
    }

    private let page = "https://example.test/index.html"

    @Test func listsEveryEntryOfAURLAcrossPartitionsAndVariants() async throws {
        // Given
        try await store.save(makeEntry(page, partition: "user-b"), body: Data("b".utf8))
        try await store.save(makeEntry(page, partition: "guest", varyKey: "accept-language=fr"), body: Data("fr".utf8))
        try await store.save(makeEntry(page, partition: "guest"), body: Data("en".utf8))
        try await store.save(makeEntry(page, partition: "guest", method: .head), body: Data())
        try await store.save(makeEntry("https://example.test/other"), body: Data("o".utf8))
        // When
        let entries = try store.entries(url: page)
        // Then
        #expect(entries.map(\.partition) == ["guest", "guest", "guest", "user-b"])
        #expect(entries.map(\.method) == [.get, .get, .head, .get])
        #expect(entries.map(\.varyKey) == ["", "accept-language=fr", "", ""])
        #expect(try store.entries(url: "https://example.test/missing").isEmpty)
    }

    @Test func listsPagesWithEdgesByPartitionAndURL() async throws {
        let edge = [PageEdge(resourceURL: "https://example.test/app.css", kind: "stylesheet")]
        try await store.save(makeEntry(page), body: Data("<html>".utf8), pageEdges: edge)
        try await store.setEdges(edge, forPage: "https://example.test/b.html", partition: "user-1")
        try await store.setEdges(edge, forPage: page, partition: "user-1")
        try await store.save(makeEntry("https://example.test/no-edges.html"), body: Data("x".utf8))

        #expect(try store.pages() == [
            StoredPage(partition: "guest", url: page),
            StoredPage(partition: "user-1", url: "https://example.test/b.html"),
            StoredPage(partition: "user-1", url: page),
        ])
        #expect(try store.pages(partition: "guest") == [StoredPage(partition: "guest", url: page)])
        #expect(try store.pages(url: page).map(\.partition) == ["guest", "user-1"])
        #expect(try store.pages(partition: "user-1", url: "https://example.test/no-edges.html").isEmpty)
    }

    @Test func pagesAreListedAPieceAtATimeInTheOrderOfTheWholeList() async throws {
        // Given pages in two partitions, one with two edges (listed once), URLs that sort apart from
        // their insertion order
        let edge = [PageEdge(resourceURL: "https://example.test/app.css", kind: "stylesheet")]
        for (partition, name) in [("user-1", "b"), ("guest", "c"), ("user-1", "a"), ("guest", "a"), ("guest", "b")] {
            try await store.setEdges(edge, forPage: "https://example.test/\(name).html", partition: partition)
        }
        try await store.setEdges(
            edge + [PageEdge(resourceURL: "https://example.test/app.js", kind: "script")],
            forPage: "https://example.test/z.html", partition: "guest")
        let whole = try store.pages()
        #expect(whole.count == 6)
        // When read four at a time
        var pieces: [[StoredPage]] = []
        var position: PageListPosition?
        repeat {
            let piece = try store.pages(after: position, limit: 4)
            pieces.append(piece.pages)
            position = piece.next
        } while position != nil
        // Then the pieces are the whole list, in its order
        #expect(pieces.map(\.count) == [4, 2])
        #expect(pieces.flatMap { $0 } == whole)
        let all = try store.pages(after: nil, limit: 6)
        #expect(all.pages == whole)
        #expect(try store.pages(after: all.next, limit: 6).pages.isEmpty)
    }

    @Test func pagesWhoseURLsAreNotUTF8AreListedOnceAPieceAtATime() async throws {
        // Given pages around two whose stored URLs hold bytes that are not UTF-8 (0xFF sorts after the
        // replacement character's bytes, 0x80 before them)
        let edge = [PageEdge(resourceURL: "https://example.test/app.css", kind: "stylesheet")]
        for name in ["a", "m", "z"] {
            try await store.setEdges(edge, forPage: "https://example.test/\(name).html", partition: "guest")
        }
        let writer = try Connection(path: store.path, flags: SQLITE_OPEN_READWRITE)
        for byte in ["80", "ff"] {
            try writer.execute(sql: """
                INSERT INTO page_edge VALUES ('guest', CAST(x'68747470733a2f2f6578616d706c652e746573742f6d\(byte)' AS TEXT),
                'https://example.test/app.css', 'stylesheet', NULL)
                """)
        }
        let whole = try store.pages()
        #expect(whole.count == 5)
        // When read one at a time
        var listed: [StoredPage] = []
        var position: PageListPosition?
        repeat {
            let piece = try store.pages(after: position, limit: 1)
            listed += piece.pages
            position = piece.next
        } while position != nil && listed.count <= 10
        // Then each is listed once, in the order of the whole list
        #expect(listed == whole)
    }

    @Test func anEvictionPlanRemovesNothingAndMatchesTheEviction() async throws {
        // Given entries used at different times, two sharing one body, one pinned
        let shared = makeBody(size: 3_000, seed: 1)
        var urls: [String] = []
        for (index, size) in [2_000, 1_000, 0, 4_000, 500].enumerated() {
            let url = "https://example.test/\(index)"
            urls.append(url)
            var entry = makeEntry(url)
            entry.pinned = index == 4
            try await store.save(entry, body: size == 0 ? shared : makeBody(size: size, seed: UInt8(index + 2)))
        }
        try await store.save(makeEntry("https://example.test/sharing"), body: shared)
        for (offset, url) in (urls + ["https://example.test/sharing"]).enumerated() {
            let id = try #require(try store.entry(url: url)?.id)
            store.recordHit(entryID: id, at: referenceDate.addingTimeInterval(Double(10 + offset)))
        }
        try await store.flushAccessLog()
        let before = try store.totals()

        // When
        let plan = try store.evictionPlan(toFit: 4_000)
        // Then nothing is removed yet
        #expect(try store.totals() == before)
        // 10,500 body bytes: evicting 0, 1 and 3 frees 7,000; 2 stays, as evicting it would free
        // nothing while the entry that shares its body, used later, stays
        #expect(plan.urls == [0, 1, 3].map { "https://example.test/\($0)" })
        #expect(plan.freedBytes == 7_000)
        #expect(plan.entryBytes == 7_000)
        #expect(plan.bodyBytesLeft == before.bodyBytes - 7_000)

        // When the store evicts for real, it removes the same entries and frees the same bytes
        let evicted = try await store.evict(toFit: 4_000)
        #expect(evicted.urls == plan.urls)
        #expect(evicted.freedBytes == plan.freedBytes)
        #expect(evicted.entryBytes == plan.entryBytes)
        #expect(evicted.bodyBytesLeft == plan.bodyBytesLeft)
        #expect(try store.totals().bodyBytes == plan.bodyBytesLeft)
    }

    @Test func anEvictionPlanIsEmptyWhenTheStoreFits() async throws {
        try await store.save(makeEntry(page), body: makeBody(size: 1_000, seed: 3))
        let plan = try store.evictionPlan(toFit: 1_000)
        #expect(plan.entryCount == 0)
        #expect(plan.urls.isEmpty)
        #expect(plan.bodyBytesLeft == 1_000)
        #expect(try store.evictionPlan(toFit: 0).urls == [page])
    }
}
