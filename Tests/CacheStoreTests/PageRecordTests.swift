import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// `recordedPages(partition:urls:discovery:at:)`: a page's record is trusted only while the digest
/// written with it still describes it: the same edges, the same bodies and content types in the
/// entries they name, the same discovery text, every edge fresh and none failed.
@Suite(.timeLimit(.minutes(5)))
struct PageRecordTests {
    let folder: TemporaryFolder
    let store: CacheStore
    let page = "https://example.test/page"
    let sheet = "https://example.test/app.css"
    let image = "https://example.test/a.png"
    let now = referenceDate.addingTimeInterval(1)

    init() throws {
        folder = try TemporaryFolder()
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
    }

    private var edges: [PageEdge] {
        [PageEdge(resourceURL: page, kind: "page"), PageEdge(resourceURL: sheet, kind: "stylesheet"),
         PageEdge(resourceURL: image, kind: "image")]
    }

    /// The page, its stylesheet and its image stored fresh, and the page's edges recorded with `discovery`.
    private func record(discovery: String? = "desktop") async throws {
        try await store.save(makeEntry(page, headers: ["Content-Type": "text/html"]), body: Data("<html>".utf8))
        try await store.save(makeEntry(sheet, headers: ["Content-Type": "text/css"]), body: Data("a{}".utf8))
        try await store.save(makeEntry(image, headers: ["Content-Type": "image/png"]), body: makeBody(size: 9, seed: 1))
        try await store.setEdges([page: edges], discovery: discovery)
    }

    private func recorded(_ discovery: String = "desktop", at date: Date? = nil) throws -> RecordedPage? {
        try store.recordedPages(urls: [page], discovery: discovery, at: date ?? now)[0]
    }

    @Test func aRecordWrittenWithADiscoveryStandsForThatDiscoveryOnly() async throws {
        // Given a page recorded with its edges and a discovery text
        try await record()

        // Then the record answers for that text, with every edge and its entry, and for no other
        let found = try #require(try recorded())
        #expect(found.edges.map(\.resourceURL) == [image, sheet, page])
        #expect(found.edges.map(\.kind) == ["image", "stylesheet", "page"])
        #expect(found.edges.map(\.contentType) == ["image/png", "text/css", "text/html"])
        #expect(found.edges.map(\.bodySize) == [9, 3, 6])
        let ids = try [image, sheet, page].map { try #require(try store.entry(url: $0)?.id) }
        #expect(found.edges.map(\.entryID) == ids)
        #expect(try recorded("phone") == nil)
        // And a page recorded without one, or not at all, has no record to trust
        #expect(try store.recordedPages(urls: [page, "https://example.test/other"], discovery: "desktop", at: now)[1] == nil)
    }

    @Test func edgesRecordedWithoutADiscoveryLeaveNoTrustedRecord() async throws {
        try await record(discovery: nil)
        #expect(try recorded() == nil)
    }

    @Test func aBodyStoredAgainUnderAnEdgeMakesTheRecordUntrusted() async throws {
        // Given a recorded page
        try await record()
        #expect(try recorded() != nil)

        // When its stylesheet is stored again with other bytes (still fresh)
        try await store.save(makeEntry(sheet, headers: ["Content-Type": "text/css"]), body: Data("b{}".utf8))

        // Then the record no longer stands; recording the edges again with the discovery trusts it again
        #expect(try recorded() == nil)
        try await store.setEdges([page: edges], discovery: "desktop")
        #expect(try recorded() != nil)
    }

    @Test func theSameBytesStoredAgainKeepTheRecord() async throws {
        // Given a recorded page whose image is stored again with the same bytes (a 200 to a reload)
        try await record()
        try await store.save(makeEntry(image, headers: ["Content-Type": "image/png"]), body: makeBody(size: 9, seed: 1))

        // Then the record still stands: the body is the same
        #expect(try recorded() != nil)
    }

    @Test func aChangedContentTypeMakesTheRecordUntrusted() async throws {
        try await record()
        try await store.save(makeEntry(sheet, headers: ["Content-Type": "text/plain"]), body: Data("a{}".utf8))
        #expect(try recorded() == nil)
    }

    @Test func edgesChangedWithoutADiscoveryMakeTheRecordUntrusted() async throws {
        // Given a recorded page
        try await record()

        // When an edge is added by a write that records no discovery (another run, a merge)
        let font = "https://example.test/f.woff2"
        try await store.save(makeEntry(font, headers: ["Content-Type": "font/woff2"]), body: Data("f".utf8))
        try await store.setEdges([page: edges + [PageEdge(resourceURL: font, kind: "font")]])

        // Then the digest no longer describes the record
        #expect(try recorded() == nil)
    }

    @Test func aStaleMissingOrFailedEdgeMakesTheRecordUntrusted() async throws {
        // Given a recorded page
        try await record()

        // Then it stands while every entry is fresh, not once the first goes stale (600 s)
        #expect(try recorded(at: referenceDate.addingTimeInterval(599)) != nil)
        #expect(try recorded(at: referenceDate.addingTimeInterval(601)) == nil)

        // And not when an edge's entry is gone
        try await store.prune(PruneCriteria(urlPattern: image))
        #expect(try recorded() == nil)

        // And not when an edge failed, even with the failure recorded with the discovery
        try await record()
        var failed = edges
        failed[2].failure = "HTTP 404"
        try await store.setEdges([page: failed], discovery: "desktop")
        #expect(try recorded() == nil)
        // And such a record keeps no digest, so that it is not checked in vain at every run
        #expect(try digestCount() == 0)
    }

    @Test func edgesFoundInBytesTheStoreNoLongerHoldsGetNoDigest() async throws {
        // Given a page written with the hashes of the bytes its edges were found in, as stored
        try await record(discovery: nil)
        let read = [page: SHA256.hash(Data("<html>".utf8)), sheet: SHA256.hash(Data("a{}".utf8))]
        try await store.setEdges([page: edges], discovery: "desktop", scanned: read)
        #expect(try recorded() != nil)

        // When the edges are written again from a stylesheet read before someone stored other bytes
        try await store.setEdges(
            [page: edges], discovery: "desktop", scanned: [sheet: SHA256.hash(Data("earlier{}".utf8))])

        // Then the page keeps no digest: its edges describe bytes the store no longer holds
        #expect(try recorded() == nil)
        #expect(try digestCount() == 0)
    }

    @Test func aRecordNamingAURLWithoutAnEntryKeepsNoDigest() async throws {
        // Given a page whose edges name a resource a run fetched without storing (no-store)
        try await store.save(makeEntry(page, headers: ["Content-Type": "text/html"]), body: Data("<html>".utf8))
        let unstored = "https://example.test/counter.png"
        try await store.setEdges(
            [page: [PageEdge(resourceURL: page, kind: "page"), PageEdge(resourceURL: unstored, kind: "image")]],
            discovery: "desktop")

        // Then no digest is written, and none stands
        #expect(try digestCount() == 0)
        #expect(try recorded() == nil)
    }

    private func digestCount() throws -> Int64? {
        try store.read("count") { try $0.int64("SELECT count(*) FROM page_basis") }
    }

    @Test func anEdgeTheCallerConfirmedNeedNotBeFresh() async throws {
        // Given a recorded page, once its entries are stale
        try await record()
        let later = referenceDate.addingTimeInterval(601)
        #expect(try recorded(at: later) == nil)

        // Then the record stands only when every stale edge is one the caller confirmed
        let confirmed = try store.recordedPages(urls: [page], discovery: "desktop", at: later, confirmed: [page, sheet, image])
        #expect(confirmed[0]?.edges.count == 3)
        #expect(try store.recordedPages(urls: [page], discovery: "desktop", at: later, confirmed: [page, sheet])[0] == nil)
    }

    @Test func anEdgeWithTwoVariantsMakesTheRecordUntrusted() async throws {
        try await record()
        try await store.save(makeEntry(image, varyKey: "accept=webp", headers: ["Content-Type": "image/webp"]),
                             body: makeBody(size: 9, seed: 2))
        #expect(try recorded() == nil)
    }

    @Test func aRemovedPageTakesItsDigestAlong() async throws {
        // Given a recorded page in a partition
        try await record()

        // When the partition is removed, as at logout
        try await store.removeAll(partition: "guest")

        // Then no digest is left behind
        #expect(try digestCount() == 0)
    }
}
