import CSQLite
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// ``CacheStore/entriesMayHaveChanged(url:since:until:)``: between two change counts, only this
/// store's own commits that name their URLs leave the other URLs' entries known unchanged; any other
/// commit, or one that cannot be told apart, may have changed every entry. Real store files.
@Suite(.timeLimit(.minutes(2)))
struct OwnCommitTests {
    let folder: TemporaryFolder
    let store: CacheStore
    let a = "https://example.test/a"
    let b = "https://example.test/b"

    init() throws {
        folder = try TemporaryFolder()
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
    }

    private func save(_ url: String, _ text: String = "x") async throws {
        try await store.save(makeEntry(url), body: Data(text.utf8))
    }

    /// Commits an update of `url`'s entry through a connection of its own, as another process would.
    private func commitElsewhere(_ url: String) throws {
        let other = try Connection(path: store.path, flags: SQLITE_OPEN_READWRITE)
        other.setBusyTimeout(milliseconds: 5_000)
        try other.run("UPDATE entry SET hit_count = hit_count + 1 WHERE url = ?", [.text(url)])
    }

    @Test func aSaveNamesOnlyItsOwnURL() async throws {
        try await save(a)
        let before = try store.changeCount()
        try await save(b)
        let after = try store.changeCount()
        #expect(after != before)
        #expect(!store.entriesMayHaveChanged(url: a, since: before, until: after))
        #expect(store.entriesMayHaveChanged(url: b, since: before, until: after))
        #expect(!store.entriesMayHaveChanged(url: a, since: after, until: after))
    }

    @Test func savesReadAsOneChangeOfTheCountOrAsSeveralNameTheSameURLs() async throws {
        try await save(a)
        let start = try store.changeCount()
        var counts = [start]
        for index in 0..<5 {
            try await save("https://example.test/\(index)")
            if index.isMultiple(of: 2) { counts.append(try store.changeCount()) }
        }
        let end = try store.changeCount()
        #expect(!store.entriesMayHaveChanged(url: a, since: start, until: end))
        for (since, until) in zip(counts, counts.dropFirst()) {
            #expect(!store.entriesMayHaveChanged(url: a, since: since, until: until))
        }
        #expect(store.entriesMayHaveChanged(url: "https://example.test/3", since: start, until: end))
    }

    @Test func hitsPageRecordsAndStagedChunksChangeNoEntry() async throws {
        try await save(a)
        let entry = try #require(try store.entry(url: a))
        let before = try store.changeCount()
        try await store.setEdges([PageEdge(resourceURL: b, kind: "image")], forPage: a)
        _ = store.recordHit(entryID: try #require(entry.id), at: referenceDate)
        try await store.flushAccessLog()
        var writer = store.makeBodyWriter()
        try await writer.write(Data(repeating: 7, count: CacheStore.chunkSize + 1))
        try await writer.discard()
        let after = try store.changeCount()
        #expect(after != before)
        #expect(!store.entriesMayHaveChanged(url: a, since: before, until: after))
    }

    @Test func aCommitOfAnotherConnectionMayHaveChangedEveryURL() async throws {
        try await save(a)
        let start = try store.changeCount()
        try await save(b)
        let ownFirst = try store.changeCount()
        try commitElsewhere(a)
        let foreign = try store.changeCount()
        try await save("https://example.test/c")
        let ownLast = try store.changeCount()
        #expect(!store.entriesMayHaveChanged(url: a, since: start, until: ownFirst))
        #expect(store.entriesMayHaveChanged(url: a, since: ownFirst, until: foreign))
        #expect(store.entriesMayHaveChanged(url: "https://example.test/never", since: ownFirst, until: foreign))
        #expect(!store.entriesMayHaveChanged(url: a, since: foreign, until: ownLast))
        #expect(store.entriesMayHaveChanged(url: a, since: start, until: ownLast))
    }

    @Test func commitsOnBothSidesBetweenTwoReadsOfTheCountMayHaveChangedEveryURL() async throws {
        try await save(a)
        let before = try store.changeCount()
        try await save(b)
        try commitElsewhere(a)
        try await save("https://example.test/c")
        let after = try store.changeCount()
        #expect(store.entriesMayHaveChanged(url: a, since: before, until: after))
    }

    /// A write transaction of the store that changed nothing commits nothing, so the counter it read
    /// is the next commit's, whoever makes it: that commit is not taken for the store's own.
    @Test func aTransactionThatWroteNothingLendsItsCounterToNoOne() async throws {
        try await save(a)
        let edges = [PageEdge(resourceURL: b, kind: "image")]
        try await store.setEdges(edges, forPage: a)
        let before = try store.changeCount()
        // The same edges again: a transaction that finds nothing to write, and says it changes no entry.
        try await store.setEdges(edges, forPage: a)
        #expect(try store.changeCount() == before)
        try commitElsewhere(a)
        let after = try store.changeCount()
        #expect(after != before)
        #expect(store.entriesMayHaveChanged(url: a, since: before, until: after))
    }

    @Test func anInvalidationNamesItsURL() async throws {
        try await save(a)
        try await save(b)
        let before = try store.changeCount()
        #expect(try await store.invalidate(url: b).entryCount == 1)
        let after = try store.changeCount()
        #expect(after != before)
        #expect(!store.entriesMayHaveChanged(url: a, since: before, until: after))
        #expect(store.entriesMayHaveChanged(url: b, since: before, until: after))
    }

    @Test func anUpdateAfterA304NamesTheURLsOfItsEntries() async throws {
        try await save(a)
        let saved = try await store.save(makeEntry(b), body: Data("y".utf8))
        let before = try store.changeCount()
        let update = MetadataUpdate(
            entryID: try #require(saved.id), headers: ["ETag": "\"2\""], requestTime: referenceDate,
            responseTime: referenceDate, freshUntil: referenceDate.addingTimeInterval(60))
        let gone = MetadataUpdate(
            entryID: 999_999, headers: [:], requestTime: referenceDate, responseTime: referenceDate,
            freshUntil: referenceDate)
        #expect(try await store.updateMetadata([update, gone]) == 1)
        let after = try store.changeCount()
        #expect(after != before)
        #expect(!store.entriesMayHaveChanged(url: a, since: before, until: after))
        #expect(store.entriesMayHaveChanged(url: b, since: before, until: after))
    }

    @Test func aPruneAndADiscardedBodyNameTheURLsTheyRemove() async throws {
        try await save(a)
        let saved = try await store.save(makeEntry(b), body: Data("shared".utf8))
        let c = "https://example.test/c"
        try await save(c, "shared")
        let before = try store.changeCount()
        let pruned = try await store.prune(PruneCriteria(urlPattern: "*/c"))
        #expect(pruned.urls == [c])
        let afterPrune = try store.changeCount()
        #expect(!store.entriesMayHaveChanged(url: a, since: before, until: afterPrune))
        #expect(!store.entriesMayHaveChanged(url: b, since: before, until: afterPrune))
        #expect(store.entriesMayHaveChanged(url: c, since: before, until: afterPrune))
        #expect(try await store.discardBody(id: try #require(saved.bodyID)).urls == [b])
        let afterDiscard = try store.changeCount()
        #expect(!store.entriesMayHaveChanged(url: a, since: afterPrune, until: afterDiscard))
        #expect(store.entriesMayHaveChanged(url: b, since: afterPrune, until: afterDiscard))
    }

    @Test func aPruneOfMoreURLsThanACommitNamesMayHaveChangedEveryURL() async throws {
        try await save(a)
        let many = (0...CommitLedger.namedLimit).map { "https://example.test/many/\($0)" }
        let store = self.store
        try await withThrowingTaskGroup(of: Void.self) { group in
            for url in many { group.addTask { _ = try await store.save(makeEntry(url), body: Data("x".utf8)) } }
            try await group.waitForAll()
        }
        let before = try store.changeCount()
        #expect(try await store.prune(PruneCriteria(urlPattern: "*/many/*")).entryCount == many.count)
        let after = try store.changeCount()
        #expect(store.entriesMayHaveChanged(url: a, since: before, until: after))
    }

    @Test func writesThatDoNotNameWhatTheyChangeMayHaveChangedEveryURL() async throws {
        try await save(a)
        let other = try CacheStore(path: folder.path("other.sqlite"), configuration: configuration())
        try await other.save(makeEntry(b), body: Data("z".utf8))
        let before = try store.changeCount()
        #expect(try await store.merge(from: other).mergedEntries == 1)
        let after = try store.changeCount()
        #expect(store.entriesMayHaveChanged(url: a, since: before, until: after))
        try await other.close()
    }

    @Test func anEvictionAfterASaveNamesTheURLsItEvicted() async throws {
        let limited = try CacheStore(
            path: folder.path("limited.sqlite"), configuration: configuration(byteLimit: 6 * 1_024))
        let c = "https://example.test/c"
        try await limited.save(makeEntry(a), body: Data(repeating: 1, count: 4_000))
        try await limited.save(makeEntry(c), body: Data(repeating: 3, count: 100))
        let before = try limited.changeCount()
        try await limited.save(makeEntry(b), body: Data(repeating: 2, count: 4_000))
        let after = try limited.changeCount()
        #expect(try limited.entry(url: a) == nil, "evicted to make room")
        #expect(try limited.entry(url: c) != nil)
        #expect(limited.entriesMayHaveChanged(url: a, since: before, until: after))
        #expect(limited.entriesMayHaveChanged(url: b, since: before, until: after))
        #expect(!limited.entriesMayHaveChanged(url: c, since: before, until: after))
        try await limited.close()
    }

    @Test func aStoreOpenForReadingOnlyKnowsNoCommitOfItsOwn() async throws {
        try await save(a)
        var readOnly = configuration()
        readOnly.readOnly = true
        let reading = try CacheStore(path: store.path, configuration: readOnly)
        let before = try reading.changeCount()
        try await save(b)
        let after = try reading.changeCount()
        #expect(after != before)
        #expect(reading.entriesMayHaveChanged(url: a, since: before, until: after))
        #expect(!reading.entriesMayHaveChanged(url: a, since: after, until: after))
        try await reading.close()
    }

    @Test func countsTooFarApartMayHaveChangedEveryURL() {
        let ledger = CommitLedger()
        let far = UInt64(CommitLedger.remembered) + 1
        #expect(ledger.mayHaveChanged(url: a, since: 0, until: far))
        #expect(ledger.mayHaveChanged(url: a, since: 5, until: 4))
        #expect(ledger.mayHaveChanged(url: a, since: 0, until: 1), "a change never noted")
    }
}
