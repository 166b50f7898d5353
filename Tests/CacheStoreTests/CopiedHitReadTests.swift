import CSQLite
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// A server's hit read (`variants(partition:method:url:copyingBodyIfFreshAt:upTo:)`) gives the
/// variants as `variants` does, and copies into memory of its own the body of a lone fresh variant
/// within the limit, in the same read, only when it is sound.
@Suite(.timeLimit(.minutes(5)))
struct CopiedHitReadTests {
    let folder: TemporaryFolder
    let store: CacheStore

    init() throws {
        folder = try TemporaryFolder()
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
    }

    /// The read's entries, and the copied body's bytes (the copy freed here).
    private func copiedRead(_ url: String, at now: Date = referenceDate, upTo limit: Int64 = 300_000) throws
        -> (entries: [CacheEntry], body: Data?)
    {
        let read = try store.variants(url: url, copyingBodyIfFreshAt: now, upTo: limit)
        defer { free(read.body?.baseAddress) }
        return (read.entries, read.body.map { Data($0) })
    }

    @Test(arguments: [0, 1, 10_240, CacheStore.chunkSize, CacheStore.chunkSize + 1])
    func copiesTheBodyOfALoneFreshVariantWithinTheLimit(size: Int) async throws {
        let url = "https://example.test/a"
        let body = makeBody(size: size, seed: 3)
        try await store.save(makeEntry(url, freshFor: 600), body: body)

        let read = try copiedRead(url, upTo: Int64(size))

        #expect(read.entries == (try store.variants(url: url)))
        #expect(read.body == body)
    }

    @Test func copiesNothingWhenStaleOverTheLimitOrAbsent() async throws {
        let url = "https://example.test/a"
        try await store.save(makeEntry(url, freshFor: 600), body: makeBody(size: 10_240, seed: 1))

        #expect(try copiedRead(url, at: referenceDate.addingTimeInterval(600)).body == nil)
        #expect(try copiedRead(url, at: referenceDate.addingTimeInterval(600)).entries.count == 1)
        #expect(try copiedRead(url, upTo: 10_239).body == nil)
        #expect(try copiedRead("https://example.test/none").entries.isEmpty)
    }

    @Test func copiesNothingForSeveralVariants() async throws {
        let url = "https://example.test/v"
        try await store.save(makeEntry(url, varyKey: "accept-encoding=gzip"), body: Data("gzip".utf8))
        try await store.save(makeEntry(url, varyKey: "accept-encoding=br"), body: Data("br".utf8))

        let read = try copiedRead(url)

        #expect(read.entries.map(\.varyKey) == ["accept-encoding=gzip", "accept-encoding=br"])
        #expect(read.body == nil)
    }

    @Test func copiesNothingWhenTheBodyIsDamagedAndLeavesTheErrorToTheBodyRead() async throws {
        let url = "https://example.test/d"
        let saved = try await store.save(makeEntry(url), body: makeBody(size: 5_000, seed: 2))
        let bodyID = try #require(saved.bodyID)
        let other = try Connection(path: store.path, flags: SQLITE_OPEN_READWRITE)
        try other.execute(sql: "UPDATE body_chunk SET data = zeroblob(length(data)) WHERE body_id = \(bodyID)")

        let read = try copiedRead(url)

        #expect(read.entries.map(\.id) == [saved.id])
        #expect(read.body == nil)
        var buffer = [UInt8](repeating: 0, count: 5_000)
        let error = try #require(throws: CacheStore.Error.self) {
            try buffer.withUnsafeMutableBytes { try store.copyBody(bodyID: bodyID, into: $0) }
        }
        #expect(error.code == .damagedBody)
    }
}
