import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing

@testable import CacheStore
@testable import WebCache

/// A stored response that another writer replaces while a load serves it is served whole, as it was
/// or as it became: never a failure for a body that went with the entry it replaced. A real origin on
/// 127.0.0.1 and a real store file.
@Suite(.timeLimit(.minutes(5)))
struct ReplacedEntryTests {
    static let texts = ["the first version\n", "the second, longer version of the page\n"]

    /// Under a cache-only policy a stale lone entry is served as stored, its body read in the entry's
    /// own read; a body read after it and found gone would make the load read the store again.
    @Test func aStaleEntryReplacedWhileItIsServedIsServedWhole() async throws {
        try await withCache(origin: { _ in
            .text(Self.texts[0], headers: ["Cache-Control": "max-age=0"])
        }) { (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("page"))
            let stored = try #require(try cache.store.entry(url: origin.url("page").cacheKey.absoluteString))
            let store = cache.store
            async let replaced: Void = {
                for round in 1...300 { try await store.save(stored, body: Data(Self.texts[round % 2].utf8)) }
            }()
            for _ in 0..<300 {
                let served = try await cache.data(for: WebRequest("page"), policy: .returnCacheDataDontLoad)
                #expect(Self.texts.contains(served.text))
                #expect(served.headers["Content-Length"] == String(served.body.count))
            }
            try await replaced
            #expect(origin.requestCount == 1)
        }
    }

    /// A stale entry revalidated with a 304, whose body another writer took away meanwhile (here the
    /// origin itself replaces the entry as it answers): the load reads the store again and serves what
    /// took its place, revalidated in turn.
    @Test func anEntryReplacedWhileItIsRevalidatedIsReadAgain() async throws {
        let replacement = Mutex<(store: CacheStore, entry: CacheEntry)?>(nil)
        try await withCache(origin: { request in
            let headers: HTTPHeaders = ["Cache-Control": "max-age=0", "ETag": "\"v1\""]
            guard request.headers["If-None-Match"] == "\"v1\"" else { return .text(Self.texts[0], headers: headers) }
            if let (store, entry) = replacement.withLock({ pending in defer { pending = nil }; return pending }) {
                let saved = DispatchSemaphore(value: 0)
                Task {
                    _ = try? await store.save(entry, body: Data(Self.texts[1].utf8))
                    saved.signal()
                }
                saved.wait()
            }
            return OriginResponse(status: 304, headers: headers)
        }) { (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("page"))
            let stored = try #require(try cache.store.entry(url: origin.url("page").cacheKey.absoluteString))
            replacement.withLock { $0 = (cache.store, stored) }

            let served = try await cache.data(for: WebRequest("page"))

            #expect(served.source == .revalidated)
            #expect(served.text == Self.texts[1])
            #expect(origin.requestCount == 3)
            #expect(replacement.withLock { $0 == nil })
        }
    }
}
