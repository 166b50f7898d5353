import CSQLite
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// A connection decodes an entry's stored header fields once and hands out the same fields while
/// the stored text is unchanged; changed text, or another entry in the same slot, is decoded anew.
@Suite(.timeLimit(.minutes(5)))
struct DecodedHeaderCacheTests {
    private func headers(_ cache: DecodedHeaderCache, id: Int64, _ text: String) -> HTTPHeaders {
        var text = text
        return text.withUTF8 { cache.headers(id: id, text: $0) }
    }

    /// Where the fields' array keeps its lines: the same address for fields that share storage.
    private func storage(_ headers: HTTPHeaders) -> UnsafeRawPointer? {
        headers.fields.withUnsafeBufferPointer { UnsafeRawPointer($0.baseAddress) }
    }

    @Test func handsOutTheSameFieldsForUnchangedText() {
        let cache = DecodedHeaderCache()
        let first = headers(cache, id: 7, "ETag: \"a\"\r\nContent-Type: text/plain\r\n")
        let again = headers(cache, id: 7, "ETag: \"a\"\r\nContent-Type: text/plain\r\n")
        #expect(first == ["ETag": "\"a\"", "Content-Type": "text/plain"])
        #expect(again == first)
        #expect(storage(again) == storage(first))
    }

    @Test func decodesChangedTextAndOtherEntriesAnew() {
        let cache = DecodedHeaderCache()
        let first = headers(cache, id: 7, "ETag: \"a\"\r\n")
        // Same length, other bytes; then another length.
        #expect(headers(cache, id: 7, "ETag: \"b\"\r\n") == ["ETag": "\"b\""])
        #expect(headers(cache, id: 7, "ETag: \"bc\"\r\n") == ["ETag": "\"bc\""])
        #expect(headers(cache, id: 7, "") == [:])
        #expect(storage(headers(cache, id: 7, "ETag: \"a\"\r\n")) != storage(first))
        // Ids 1 and 65 share a slot: each still reads as its own text.
        for _ in 0..<2 {
            #expect(headers(cache, id: 1, "A: 1\r\n") == ["A": "1"])
            #expect(headers(cache, id: 65, "A: 1\r\n") == ["A": "1"])
            #expect(headers(cache, id: 65, "B: 2\r\n") == ["B": "2"])
        }
    }

    /// Through the store: fields changed under the same entry id by another connection (as another
    /// process would) are read as changed at the next hit.
    @Test func aHitReadsFieldsChangedInTheStore() async throws {
        let folder = try TemporaryFolder()
        let store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
        let url = "https://example.test/a"
        let saved = try await store.save(makeEntry(url, headers: ["ETag": "\"v1\""]), body: Data("body".utf8))
        let id = try #require(saved.id)
        let now = referenceDate
        for _ in 0..<3 {
            #expect(try store.variants(url: url, withBodyIfFreshAt: now, upTo: 100).entries.first?.headers
                == ["ETag": "\"v1\""])
        }
        let other = try Connection(path: store.path, flags: SQLITE_OPEN_READWRITE)
        try other.execute(sql: "UPDATE entry SET headers = 'ETag: \"v2\"' || char(13, 10) WHERE id = \(id)")
        for _ in 0..<3 {
            let read = try store.variants(url: url, withBodyIfFreshAt: now, upTo: 100)
            #expect(read.entries.first?.id == id)
            #expect(read.entries.first?.headers == ["ETag": "\"v2\""])
            #expect(try store.variants(url: url).first?.headers == ["ETag": "\"v2\""])
        }
        try await store.close()
    }
}
