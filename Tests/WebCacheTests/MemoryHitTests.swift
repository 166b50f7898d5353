import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import WebCacheTestSupport

@testable import WebCache

/// Fresh hits kept in the loader's memory (``Loader/memory``): a hit on one must give what the store
/// gives, and any change to the store, by this cache or another, must send the next load to the store
/// again. A real origin on 127.0.0.1, real store files and libcurl.
@Suite(.timeLimit(.minutes(5)))
struct MemoryHitTests {
    static let chunk = CacheStore.chunkSize

    /// `/size/N` as N bytes, fresh for ten minutes and 5 s old; `/vary/N` the same with `Vary`.
    static let origin: OriginServer.Handler = { request in
        let size = Int(request.path.split(separator: "/").last ?? "") ?? 0
        var headers: HTTPHeaders = ["Cache-Control": "max-age=600", "Age": "5", "ETag": "\"s\(size)\""]
        if request.path.hasPrefix("/vary/") { headers["Vary"] = "Accept-Language" }
        return OriginResponse(headers: headers, body: .bytes(body(size: size)))
    }

    static func body(size: Int) -> Data {
        Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    }

    private static func memoryHits(_ cache: WebCache) -> Int {
        cache.loader.memoryHits.load(ordering: .relaxed)
    }

    /// The fields of `response` but its `Age`, whose value follows the clock.
    private static func fieldsButAge(_ response: LoadedResponse) -> [String] {
        response.headers.filter { $0.name != "Age" }.map { "\($0.name): \($0.value)" }
    }

    @Test(arguments: [0, 1, 10_240, chunk])
    func aRepeatedHitIsServedFromMemoryAsTheStoreServesIt(size: Int) async throws {
        try await withCache(origin: Self.origin) { origin, cache in
            let request = WebRequest("size/\(size)")
            #expect(try await cache.data(for: request).source == .network)
            let fromStore = try await cache.data(for: request)
            #expect(Self.memoryHits(cache) == 0)
            let fromMemory = try await cache.data(for: request)
            #expect(Self.memoryHits(cache) == 1)
            for hit in [fromStore, fromMemory] {
                #expect(hit.source == .hit)
                #expect(hit.status == 200)
                #expect(hit.body == Self.body(size: size))
                #expect(hit.age >= 5)
                #expect(hit.headers["Age"].flatMap { Int($0) }.map { $0 >= 5 } == true)
                #expect(hit.headers["Content-Length"] == String(size))
            }
            #expect(cache.currentMemoryUsage == size + AnswerMemory<MemoryHit, Never>.slotOverhead)
            #expect(Self.fieldsButAge(fromMemory) == Self.fieldsButAge(fromStore))
            #expect(fromMemory.headers.map(\.name) == fromStore.headers.map(\.name))
            #expect(origin.requestCount == 1)
        }
    }

    @Test func aBodyLargerThanOneChunkIsStreamedFromTheStoreEachTime() async throws {
        try await withCache(origin: Self.origin) { origin, cache in
            let request = WebRequest("size/\(Self.chunk + 1)")
            for _ in 0..<3 {
                let loaded = try await cache.data(for: request)
                #expect(loaded.body == Self.body(size: Self.chunk + 1))
            }
            #expect(Self.memoryHits(cache) == 0)
            #expect(origin.requestCount == 1)
        }
    }

    @Test func aChangeByAnotherCacheOnTheSameStoreSendsTheNextLoadToTheStore() async throws {
        let version = Shared(1)
        try await withCache(origin: { _ in
            .text("version \(version.value)", headers: ["Cache-Control": "max-age=600"])
        }) { origin, cache in
            let request = WebRequest("page")
            _ = try await cache.data(for: request)
            _ = try await cache.data(for: request)
            #expect(try await cache.data(for: request).text == "version 1")
            #expect(Self.memoryHits(cache) == 1)

            // Another cache (a process of its own would do the same) stores a new version.
            version.value = 2
            var configuration = WebCache.Configuration(environment: [:])
            configuration.storePath = cache.configuration.storePath
            let other = try WebCache(configuration: configuration)
            let reloaded = try await other.data(for: WebRequest(url: origin.url("page")),
                                                policy: .reloadIgnoringCacheData)
            #expect(reloaded.text == "version 2")
            await other.close()

            let afterChange = try await cache.data(for: request)
            #expect(afterChange.text == "version 2")
            #expect(afterChange.source == .hit)
            #expect(Self.memoryHits(cache) == 1)
            // Kept again from that read.
            #expect(try await cache.data(for: request).text == "version 2")
            #expect(Self.memoryHits(cache) == 2)
            #expect(origin.requestCount == 2)
        }
    }

    /// This cache's own saves of other URLs leave a kept answer in memory; its save of a new copy of
    /// the same URL sends the next load to the store.
    @Test func aSaveOfAnotherURLByThisCacheLeavesTheKeptAnswer() async throws {
        let version = Shared(1)
        try await withCache(origin: { request in
            .text("\(request.path) version \(version.value)", headers: ["Cache-Control": "max-age=600"])
        }) { origin, cache in
            let page = WebRequest("page")
            for _ in 0..<3 { _ = try await cache.data(for: page) }
            #expect(Self.memoryHits(cache) == 1)
            #expect(try await cache.data(for: WebRequest("other")).source == .network)
            #expect(try await cache.data(for: page).text == "/page version 1")
            #expect(Self.memoryHits(cache) == 2, "served from memory after the other URL's save")

            version.value = 2
            let reloaded = try await cache.data(
                for: WebRequest(url: origin.url("page")), policy: .reloadIgnoringCacheData)
            #expect(reloaded.text == "/page version 2")
            let afterSave = try await cache.data(for: page)
            #expect(afterSave.text == "/page version 2")
            #expect(afterSave.source == .hit)
            #expect(Self.memoryHits(cache) == 2, "read from the store after its own URL's save")
            #expect(try await cache.data(for: page).text == "/page version 2")
            #expect(Self.memoryHits(cache) == 3)
            #expect(origin.requestCount == 3)
        }
    }

    /// This cache's revalidation of another URL (a 304 updates its entry) and its invalidation of
    /// another URL (after a POST) leave a kept answer in memory.
    @Test func aRevalidationAndAnInvalidationOfOtherURLsLeaveTheKeptAnswer() async throws {
        try await withCache(origin: { request in
            switch request.path {
            case "/checked" where request.headers["If-None-Match"] == "\"v1\"":
                return OriginResponse(status: 304, headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\""])
            case "/checked":
                return .text("checked", headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\""])
            default:
                return .text("\(request.method) \(request.path)", headers: ["Cache-Control": "max-age=600"])
            }
        }) { origin, cache in
            let page = WebRequest("page")
            for _ in 0..<3 { _ = try await cache.data(for: page) }
            #expect(Self.memoryHits(cache) == 1)
            #expect(try await cache.data(for: WebRequest("checked")).source == .network)
            #expect(try await cache.data(for: WebRequest("checked")).source == .revalidated)
            #expect(try await cache.data(for: page).source == .hit)
            #expect(Self.memoryHits(cache) == 2, "served from memory after the other URL's 304")

            #expect(try await cache.data(for: WebRequest("posted")).source == .network)
            _ = try await cache.data(for: WebRequest("posted", method: .post, body: Data("x=1".utf8)))
            #expect(try cache.storedVariants(origin.url("posted")).isEmpty, "invalidated by the POST")
            #expect(try await cache.data(for: page).text == "GET /page")
            #expect(Self.memoryHits(cache) == 3, "served from memory after the other URL's invalidation")
            #expect(origin.requestCount == 5)
        }
    }

    @Test func anEntryRemovedFromTheStoreIsFetchedAgain() async throws {
        try await withCache(origin: Self.origin) { origin, cache in
            let request = WebRequest("size/10")
            for _ in 0..<3 { _ = try await cache.data(for: request) }
            #expect(Self.memoryHits(cache) == 1)
            _ = try await cache.store.removeAll(partition: cache.partition)
            #expect(try await cache.data(for: request).source == .network)
            #expect(Self.memoryHits(cache) == 1)
            #expect(origin.requestCount == 2)
        }
    }

    /// Requests whose fields decide the answer, and answers that differ by request, go to the store
    /// (or the network) each time; the answer kept for a plain request is not handed to them.
    @Test func requestsWithDecidingFieldsAndVaryingAnswersAreNotServedFromMemory() async throws {
        try await withCache(origin: Self.origin) { origin, cache in
            let plain = WebRequest("size/100")
            for _ in 0..<2 { _ = try await cache.data(for: plain) }

            let ranged = try await cache.data(for: WebRequest("size/100", headers: ["Range": "bytes=0-9"]))
            #expect(ranged.status == 206)
            #expect(ranged.body == Self.body(size: 100).prefix(10))
            let revalidated = try await cache.data(for: WebRequest("size/100", headers: ["Cache-Control": "no-cache"]))
            #expect(revalidated.source != .hit)
            #expect(Self.memoryHits(cache) == 0)

            let varying = WebRequest("vary/100", headers: ["Accept-Language": "fr"])
            #expect(try await cache.data(for: varying).source == .network)
            for _ in 0..<2 {
                let loaded = try await cache.data(for: varying)
                #expect(loaded.source == .hit)
            }
            // Another language is another variant, fetched.
            let english = try await cache.data(for: WebRequest("vary/100", headers: ["Accept-Language": "en"]))
            #expect(english.source == .network)
            #expect(Self.memoryHits(cache) == 0)
            #expect(origin.requestCount == 4)
        }
    }

    /// A body stored as its origin coded it is kept for callers that take it so, and decoded from
    /// the store for callers that decode.
    @Test func aCodedBodyKeptForCodedLoadsIsDecodedForOthers() async throws {
        try await withCache(origin: { _ in
            OriginResponse(headers: ["Cache-Control": "max-age=600", "Content-Encoding": "gzip"],
                           body: .bytes(CodedContentTests.gzipBytes))
        }) { origin, cache in
            var coded = WebRequest("coded")
            coded.decodesContent = false
            for _ in 0..<3 {
                let loaded = try await cache.data(for: coded)
                #expect(loaded.body == CodedContentTests.gzipBytes)
            }
            #expect(Self.memoryHits(cache) == 1)
            for _ in 0..<2 {
                let loaded = try await cache.data(for: WebRequest("coded"))
                #expect(loaded.text == CodedContentTests.gzipText)
            }
            #expect(Self.memoryHits(cache) == 1)
            #expect(origin.requestCount == 1)
        }
    }

    /// A kept answer serves only the partition it was read from: a user's entries are never another
    /// identity's, and a guest's answer is not a user's (the store keeps them apart the same way).
    @Test func aKeptAnswerServesOnlyThePartitionItWasReadFrom() async throws {
        try await withCache(origin: Self.origin) { origin, cache in
            for _ in 0..<2 { _ = try await cache.data(for: WebRequest("size/10")) }
            let loader = cache.loader
            let request = HTTPRequest(url: origin.url("size/10"))
            let place = try #require(loader.memoryPlace(for: request, key: request.url.cacheKey))
            var user = RequestContext.guest
            user.partition = "user-0123456789abcdef"
            #expect(loader.memoryAnswer(at: place, request: request, context: user, now: Date(), limit: nil) == nil)
            let guest = loader.memoryAnswer(at: place, request: request, context: .guest, now: Date(), limit: nil)
            #expect(guest?.status == 200)
            #expect(Self.memoryHits(cache) == 1)
        }
    }

    @Test func aKeptBodyOverTheRequestsLimitFailsAsFromTheStore() async throws {
        try await withCache(origin: Self.origin) { _, cache in
            for _ in 0..<2 { _ = try await cache.data(for: WebRequest("size/100")) }
            let limited = WebRequest("size/100", maximumBodySize: 99)
            let error = await #expect(throws: WebCacheError.self) { try await cache.data(for: limited) }
            #expect(error?.code == .tooLarge)
            // Also where nothing reads the body: the limit is the store's answer's, not the reader's.
            let streamed = await #expect(throws: WebCacheError.self) { try await cache.load(limited) }
            #expect(streamed?.code == .tooLarge)
            #expect(Self.memoryHits(cache) == 0)
        }
    }

    @Test func aSizeOf0KeepsNothing() async throws {
        try await withCache(origin: Self.origin, configure: { $0.memoryCacheSize = 0 }) { origin, cache in
            for _ in 0..<3 {
                let loaded = try await cache.data(for: WebRequest("size/10"))
                #expect(loaded.body == Self.body(size: 10))
            }
            #expect(cache.loader.memory == nil)
            #expect(cache.currentMemoryUsage == 0)
            #expect(Self.memoryHits(cache) == 0)
            #expect(origin.requestCount == 1)
        }
    }

    @Test func aClosedCacheFailsRatherThanServeFromMemory() async throws {
        try await withCache(origin: Self.origin) { _, cache in
            for _ in 0..<3 { _ = try await cache.data(for: WebRequest("size/10")) }
            await cache.close()
            await #expect(throws: WebCacheError.self) { try await cache.data(for: WebRequest("size/10")) }
            #expect(Self.memoryHits(cache) == 1)
        }
    }
}
