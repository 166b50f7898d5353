import CSQLite
import Foundation
import Testing
import WebCacheTestSupport

@testable import CacheStore

@Suite(.timeLimit(.minutes(5)))
struct MaintenanceTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    // MARK: - Compacting

    @Test func compactingGivesRemovedEntriesSpaceBackAndKeepsTheRest() async throws {
        let path = folder.path("compact.sqlite")
        let store = try CacheStore(path: path, configuration: configuration())
        for index in 0..<40 {
            try await store.save(
                makeEntry("https://example.test/\(index < 4 ? "keep" : "drop")/\(index)"),
                body: makeBody(size: 200_000, seed: UInt8(index)))
        }
        let removed = try await store.prune(PruneCriteria(urlPattern: "*/drop/*"))
        #expect(removed.entryCount == 36)

        let compacted = try await store.compact()

        #expect(compacted.bytesAfter * 4 < compacted.bytesBefore, "\(compacted)")
        #expect(compacted.reclaimedBytes > 36 * 200_000 / 2, "\(compacted)")
        for index in 0..<4 {
            let hit = try #require(try await store.lookup(url: "https://example.test/keep/\(index)"))
            #expect(hit.body == makeBody(size: 200_000, seed: UInt8(index)))
        }
        #expect(try await store.verify().isSound)
        #expect(try store.totals() == (try scannedTotals(store)))
        try await store.close()
        // The file is still a store of this version, and opens as one.
        let reopened = try CacheStore(path: path, configuration: configuration())
        #expect(try reopened.totals().entryCount == 4)
        try await reopened.close()
    }

    // MARK: - Totals

    @Test func totalsStayExactThroughARandomMixOfWrites() async throws {
        let store = try CacheStore(path: folder.path("totals.sqlite"), configuration: configuration())
        var generator = SystemRandomNumberGenerator()
        let bodies = (0..<6).map { makeBody(size: 500 * $0, seed: UInt8($0)) }
        for step in 0..<150 {
            let url = "https://example.test/\(Int.random(in: 0..<12, using: &generator))"
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<6:
                let partition = Bool.random(using: &generator) ? "guest" : "user"
                try await store.save(
                    makeEntry(url, partition: partition), body: bodies.randomElement(using: &generator)!)
            case 6:
                var writer = store.makeBodyWriter()
                try await writer.write(makeBody(size: CacheStore.chunkSize + step, seed: UInt8(step % 200)))
                try await store.save(makeEntry(url), body: writer)
            case 7, 8:
                try await store.invalidate(url: url, partition: Bool.random(using: &generator) ? "guest" : "user")
            default:
                try await store.prune(PruneCriteria(urlPattern: "*/1*"))
            }
            if step % 25 == 0 {
                #expect(try store.totals() == (try scannedTotals(store)), "after step \(step)")
            }
        }
        #expect(try store.totals() == (try scannedTotals(store)))
        #expect(try await store.verify().isSound)
        try await store.close()
    }

    // MARK: - Eviction

    @Test func evictsLeastRecentlyUsedFirstAndNeverPinned() async throws {
        let store = try CacheStore(path: folder.path("evict.sqlite"), configuration: configuration())
        for index in 0..<5 {
            try await store.save(
                makeEntry("https://example.test/\(index)"), body: makeBody(size: 1_000, seed: UInt8(index)))
        }
        try await store.setPinned(true, url: "https://example.test/0")
        // 3 was used most recently, then 1
        _ = store.recordHit(
            entryID: try #require(try store.entry(url: "https://example.test/1")?.id), at: referenceDate + 10)
        _ = store.recordHit(
            entryID: try #require(try store.entry(url: "https://example.test/3")?.id), at: referenceDate + 20)
        // When
        let result = try await store.evict(toFit: 3_000)
        // Then: 2 and 4 go (oldest access), 1 and 3 stay, 0 is pinned
        #expect(Set(result.urls) == ["https://example.test/2", "https://example.test/4"])
        #expect(result.freedBytes == 2_000)
        #expect(try store.totals().bodyBytes == 3_000)
        #expect(result.bodyBytesLeft == 3_000)
        // Not even a limit of zero evicts a pinned entry, and what is left says so
        let pinned = try await store.evict(toFit: 0)
        #expect(pinned.bodyBytesLeft == (try store.totals().bodyBytes))
        #expect(pinned.bodyBytesLeft ?? 0 > 0)
        #expect(try store.variants(url: "https://example.test/0").count == 1)
        #expect(try store.totals().entryCount == 1)
        try await store.close()
    }

    @Test func hitsWaitInTheirOwnRowsUntilAnEvictionFoldsThemIntoTheOrder() async throws {
        // Given three entries saved at one instant, a hit twice at +10 and b once at +20, written
        let store = try CacheStore(path: folder.path("fold.sqlite"), configuration: configuration())
        var ids: [String: Int64] = [:]
        for name in ["a", "b", "c"] {
            ids[name] = try await store.save(
                makeEntry("https://example.test/\(name)"), body: makeBody(size: 1_000, seed: UInt8(name.utf8.first!))
            ).id
        }
        for _ in 0..<2 { _ = store.recordHit(entryID: try #require(ids["a"]), at: referenceDate + 10) }
        _ = store.recordHit(entryID: try #require(ids["b"]), at: referenceDate + 20)
        try await store.flushAccessLog()
        let raw = try Connection(path: store.path, flags: SQLITE_OPEN_READWRITE)
        let folded = "SELECT sum(hit_count) FROM entry"
        // Then the entries' rows are untouched, the hits wait in entry_access, and reads add them
        #expect(try raw.int64(folded) == 0)
        #expect(try raw.int64("SELECT count(*) FROM entry_access") == 2)
        let a = try #require(try store.entry(url: "https://example.test/a"))
        #expect(a.hitCount == 2)
        #expect(abs(a.lastAccess.timeIntervalSince(referenceDate + 10)) < 0.001)
        // and the plan of an eviction orders by them: c was used least recently
        #expect(try store.evictionPlan(toFit: 2_000).urls == ["https://example.test/c"])

        // When an eviction runs, it folds the hits first and evicts by them
        let result = try await store.evict(toFit: 2_000)
        #expect(result.urls == ["https://example.test/c"])
        #expect(try raw.int64("SELECT count(*) FROM entry_access") == 0)
        #expect(try raw.int64(folded) == 3)
        let b = try #require(try store.entry(url: "https://example.test/b"))
        #expect(b.hitCount == 1)
        #expect(abs(b.lastAccess.timeIntervalSince(referenceDate + 20)) < 0.001)
        // and the next eviction takes a, used before b
        #expect(try await store.evict(toFit: 1_000).urls == ["https://example.test/a"])

        // An entry removed takes its waiting hits with it
        _ = store.recordHit(entryID: try #require(ids["b"]), at: referenceDate + 30)
        try await store.flushAccessLog()
        #expect(try raw.int64("SELECT count(*) FROM entry_access") == 1)
        try await store.invalidate(url: "https://example.test/b")
        #expect(try raw.int64("SELECT count(*) FROM entry_access") == 0)
        try await store.close()
    }

    @Test func amongEqualAccessTimesTheLargerBodyGoesFirstAndAPinnedOneNever() async throws {
        // Every save is at the same instant; the larger bodies are saved later, the largest is pinned.
        let store = try CacheStore(path: folder.path("evict-size.sqlite"), configuration: configuration())
        for (name, size) in [("small", 1_000), ("medium", 2_000), ("large", 3_000), ("pinned", 5_000)] {
            try await store.save(
                makeEntry("https://example.test/\(name)"), body: makeBody(size: size, seed: UInt8(size / 1_000)))
        }
        try await store.setPinned(true, url: "https://example.test/pinned")

        // One eviction of the largest unpinned body is enough to fit
        let first = try await store.evict(toFit: 8_000)
        #expect(first.urls == ["https://example.test/large"])
        #expect(first.freedBytes == 3_000)
        let second = try await store.evict(toFit: 6_000)
        #expect(second.urls == ["https://example.test/medium"])
        // A limit only the pinned entry exceeds leaves it, and the limit stays exceeded
        let last = try await store.evict(toFit: 0)
        #expect(last.urls == ["https://example.test/small"])
        #expect(try store.entry(url: "https://example.test/pinned") != nil)
        #expect(try store.totals().bodyBytes == 5_000)
        try await store.close()
    }

    @Test func anEntryWhoseBodyAMoreRecentEntryStillUsesIsNotEvictedForNothing() async throws {
        // Given one body under a guest's URL, used long ago, and a user's, used lately; and a body of
        // its own, used in between
        let store = try CacheStore(path: folder.path("evict-shared.sqlite"), configuration: configuration())
        let shared = makeBody(size: 1_000, seed: 1)
        try await store.save(makeEntry("https://a.test/shared"), body: shared)
        let user = try await store.save(makeEntry("https://a.test/shared", partition: "user"), body: shared)
        let own = try await store.save(makeEntry("https://a.test/own"), body: makeBody(size: 1_000, seed: 2))
        _ = store.recordHit(entryID: try #require(own.id), at: referenceDate + 10)
        _ = store.recordHit(entryID: try #require(user.id), at: referenceDate + 20)
        try await store.flushAccessLog()
        // When the store must free one body
        let plan = try store.evictionPlan(toFit: 1_000)
        let result = try await store.evict(toFit: 1_000)
        // Then the body of its own goes; the guest's entry, least recently used, would have freed
        // nothing while the user's stays, so it stays too
        #expect(result.urls == ["https://a.test/own"])
        #expect(result.freedBytes == 1_000)
        #expect(plan.urls == result.urls && plan.freedBytes == result.freedBytes)
        #expect(try store.entry(url: "https://a.test/shared") != nil)
        #expect(try store.entry(partition: "user", url: "https://a.test/shared") != nil)
        // and when the shared body must go too, both its entries go at once
        let last = try await store.evict(toFit: 0)
        #expect(Set(last.urls) == ["https://a.test/shared"] && last.entryCount == 2)
        #expect(last.freedBytes == 1_000)
        #expect(try store.totals().entryCount == 0)
        try await store.close()
    }

    @Test func entriesThatFreeNothingStayAndTheLimitIsLeftExceeded() async throws {
        // Given a body shared with a pinned entry, and an entry with an empty body
        let store = try CacheStore(path: folder.path("evict-nothing.sqlite"), configuration: configuration())
        let shared = makeBody(size: 1_000, seed: 3)
        try await store.save(makeEntry("https://a.test/copy"), body: shared)
        try await store.save(makeEntry("https://a.test/kept"), body: shared)
        try await store.setPinned(true, url: "https://a.test/kept")
        try await store.save(makeEntry("https://a.test/empty"), body: Data())
        // When the limit asks for every byte
        let plan = try store.evictionPlan(toFit: 0)
        let result = try await store.evict(toFit: 0)
        // Then nothing goes: no removal would free a byte
        #expect(result.entryCount == 0 && plan.entryCount == 0)
        #expect(try store.totals().entryCount == 3)
        #expect(try store.totals().bodyBytes == 1_000)
        try await store.close()
    }

    @Test func evictsAfterSavesWhenAByteLimitIsConfigured() async throws {
        // The real clock, so that every save has a later access time than the one before
        var settings = CacheStore.Configuration()
        settings.byteLimit = 10_000
        let store = try CacheStore(path: folder.path("cap.sqlite"), configuration: settings)
        for index in 0..<10 {
            try await store.save(
                makeEntry("https://example.test/\(index)"), body: makeBody(size: 3_000, seed: UInt8(index)))
            #expect(try store.totals().bodyBytes <= 10_000)
        }
        #expect(try store.entry(url: "https://example.test/9") != nil)
        #expect(try store.totals().entryCount == 3)
        try await store.close()
    }

    // MARK: - Pruning

    @Test func prunesByEachCriterionAndDryRunChangesNothing() async throws {
        let store = try CacheStore(path: folder.path("prune.sqlite"), configuration: configuration())
        try await store.save(makeEntry("https://a.test/expired", freshFor: -100), body: makeBody(size: 10, seed: 1))
        try await store.save(
            makeEntry("https://a.test/stale-ok", freshFor: -100, staleFor: 1_000), body: makeBody(size: 20, seed: 2))
        try await store.save(makeEntry("https://b.test/big.bin"), body: makeBody(size: 5_000, seed: 3))
        try await store.save(
            makeEntry("https://b.test/page.html", partition: "user"), body: makeBody(size: 30, seed: 4))
        try await store.save(makeEntry("https://c.test/pinned.js", freshFor: -100), body: makeBody(size: 40, seed: 5))
        try await store.setPinned(true, url: "https://c.test/pinned.js")
        let before = try store.totals()

        let cases: [(PruneCriteria, Set<String>)] = [
            (PruneCriteria(expiredAt: referenceDate), ["https://a.test/expired"]),
            (
                PruneCriteria(expiredAt: referenceDate, includePinned: true),
                ["https://a.test/expired", "https://c.test/pinned.js"]
            ),
            (PruneCriteria(host: "B.test"), ["https://b.test/big.bin", "https://b.test/page.html"]),
            (PruneCriteria(urlPattern: "*.html"), ["https://b.test/page.html"]),
            (PruneCriteria(partition: "user"), ["https://b.test/page.html"]),
            (PruneCriteria(largerThan: 1_000), ["https://b.test/big.bin"]),
            (
                PruneCriteria(storedBefore: referenceDate + 1),
                [
                    "https://a.test/expired", "https://a.test/stale-ok", "https://b.test/big.bin",
                    "https://b.test/page.html",
                ]
            ),
            (PruneCriteria(storedBefore: referenceDate), []),
        ]
        for (criteria, expected) in cases {
            let wouldGo = try await store.prune(criteria, dryRun: true)
            #expect(Set(wouldGo.urls) == expected, "\(criteria)")
            #expect(wouldGo.entryCount == expected.count)
        }
        #expect(try store.totals() == before)

        let gone = try await store.prune(PruneCriteria(host: "b.test", largerThan: 1_000))
        #expect(gone.urls == ["https://b.test/big.bin"])
        #expect(gone.entryBytes == 5_000)
        #expect(gone.freedBytes == 5_000)
        #expect(try store.totals().entryCount == before.entryCount - 1)
        #expect(try store.totals() == (try scannedTotals(store)))
        try await store.close()
    }

    @Test func aDryRunFreesWhatTheRunFreesWhenBodiesAreShared() async throws {
        let store = try CacheStore(path: folder.path("shared.sqlite"), configuration: configuration())
        // Two URLs of one body, and a body of its own; one of the two in another partition
        let shared = makeBody(size: 100, seed: 1)
        try await store.save(makeEntry("https://a.test/one"), body: shared)
        try await store.save(makeEntry("https://a.test/one", partition: "user"), body: shared)
        try await store.save(makeEntry("https://a.test/two"), body: makeBody(size: 30, seed: 2))
        let criteria = PruneCriteria(partition: "guest")

        let plan = try await store.prune(criteria, dryRun: true)
        let run = try await store.prune(criteria)

        #expect(plan.entryBytes == 130)
        #expect(run.freedBytes == 30, "the shared body stays for the other partition")
        #expect(plan.freedBytes == run.freedBytes)
        try await store.close()
    }

    @Test func anEntryTheOriginConfirmedCountsAsStoredWhenItWasConfirmed() async throws {
        let store = try CacheStore(path: folder.path("confirmed.sqlite"), configuration: configuration())
        let saved = try await store.save(makeEntry("https://a.test/page"), body: makeBody(size: 10, seed: 1))
        let id = try #require(saved.id)
        // A 304 a day later
        let confirmed = referenceDate + 86_400
        try await store.updateMetadata([MetadataUpdate(
            entryID: id, headers: saved.headers, requestTime: confirmed, responseTime: confirmed,
            freshUntil: confirmed + 600)])

        #expect(try await store.prune(PruneCriteria(storedBefore: referenceDate + 3_600), dryRun: true).urls == [])
        #expect(try await store.prune(PruneCriteria(storedBefore: confirmed + 1), dryRun: true).urls
            == ["https://a.test/page"])
        try await store.close()
    }

    // MARK: - Statistics

    @Test func computesStatisticsAtAnInstant() async throws {
        let store = try CacheStore(path: folder.path("stats.sqlite"), configuration: configuration())
        try await store.save(makeEntry("https://a.test/fresh"), body: makeBody(size: 100, seed: 1))
        try await store.save(
            makeEntry("https://a.test/stale", freshFor: -10, staleFor: 100), body: makeBody(size: 200, seed: 2))
        try await store.save(
            makeEntry("https://b.test/old", partition: "user", freshFor: -10), body: makeBody(size: 300, seed: 3))
        try await store.setPinned(true, url: "https://a.test/fresh")
        let statistics = try await store.statistics(at: referenceDate)
        #expect(statistics.totals.entryCount == 3)
        #expect(statistics.freshCount == 1)
        #expect(statistics.staleServableCount == 1)
        #expect(statistics.expiredCount == 1)
        #expect(statistics.pinnedCount == 1)
        #expect(statistics.hosts.map(\.name) == ["a.test", "b.test"])
        #expect(statistics.hosts.map(\.entryBytes) == [300, 300])
        #expect(statistics.partitions.map(\.name) == ["guest", "user"])
        #expect(statistics.partitions.map(\.entryCount) == [2, 1])
        try await store.close()
    }
}
