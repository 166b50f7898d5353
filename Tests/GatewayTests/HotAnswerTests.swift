import CMicroHTTPD
import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import WebCache

@testable import Gateway

/// Fresh answers kept in memory (``HotAnswers``): a hit on one must give what the store gives, and
/// any change to the store, or the end of the answer's freshness, must send the next request to the
/// store again. A real origin, store and gateway; real clients.
@Suite(.timeLimit(.minutes(5)))
struct HotAnswerTests {
    static let chunk = CacheStore.chunkSize

    /// `/size/N` as N bytes, fresh for an hour; `/vary/N` the same with `Vary: Accept-Language`.
    static let origin: OriginServer.Handler = { request in
        let size = Int(request.path.split(separator: "/").last ?? "") ?? 0
        var headers: HTTPHeaders = ["Cache-Control": "max-age=3600", "ETag": "\"s\(size)\"",
                                    "Content-Type": "application/octet-stream"]
        if request.path.hasPrefix("/vary/") { headers["Vary"] = "Accept-Language" }
        return OriginResponse(status: 200, headers: headers, body: .bytes(StoredHitTests.body(size: size)))
    }

    /// A gateway whose hits reach the store only when it stops: that write would be a change to the
    /// store, after which every kept answer is read again.
    private static func run(
        configure: @escaping (inout GatewayServer.Configuration) -> Void = { _ in },
        _ body: (GatewayHarness) async throws -> Void
    ) async throws {
        try await GatewayHarness.run(origin: origin, configure: { configuration, _ in
            configuration.hitFlushInterval = .seconds(86_400)
            configure(&configuration)
        }, body)
    }

    /// Asks for `path` twice, so that the gateway keeps its answer, and returns the gateway's memory,
    /// the kept answer's target and the store's change count it was kept under.
    private static func keep(
        _ path: String, _ harness: GatewayHarness
    ) async throws -> (hot: HotAnswers, target: String, count: UInt64) {
        _ = try await harness.get(path)
        _ = try await harness.get(path)
        let hot = try #require(harness.gateway.hotAnswers)
        let target = harness.origin.url(path).absoluteString
        return (hot, target, try #require(hot.kept(for: target)).changeCount)
    }

    private static func memoryAnswers(_ harness: GatewayHarness) -> Int {
        harness.gateway.memoryAnswers.load(ordering: .relaxed)
    }

    @Test(arguments: [0, 399, chunk + 1, 3 * chunk + 5, HeldBody.fileThreshold + 1])
    func aRepeatedHitIsServedFromMemoryAsTheStoreServesIt(size: Int) async throws {
        try await Self.run { harness in
            let path = "/size/\(size)"
            let miss = try await harness.get(path)
            let fromStore = try await harness.get(path)
            #expect(Self.memoryAnswers(harness) == 0, "the first hit reads the store")

            let fromMemory = try await harness.get(path)
            // Sent with the response made for the hit before when its age in seconds is the same.
            let fromMemoryAgain = try await harness.get(path)

            #expect(miss.servedAs == "network")
            #expect(Self.memoryAnswers(harness) == 2)
            #expect(fromMemoryAgain.body == fromMemory.body)
            #expect(fromMemoryAgain.headers.map(\.name) == fromMemory.headers.map(\.name))
            #expect(try #require(fromMemoryAgain.headers["Age"].flatMap { Int($0) })
                >= (try #require(fromMemory.headers["Age"].flatMap { Int($0) })))
            #expect(fromMemory.status == 200)
            #expect(fromMemory.servedAs == "hit")
            #expect(fromMemory.body == StoredHitTests.body(size: size))
            // Field for field what the store's answer had, its Age computed again.
            let names = Set(fromStore.headers.map { $0.name.lowercased() })
            #expect(Set(fromMemory.headers.map { $0.name.lowercased() }) == names)
            for field in fromStore.headers where !["age", "date"].contains(field.name.lowercased()) {
                #expect(fromMemory.headers[field.name] == field.value, "\(field.name)")
            }
            let firstAge = try #require(fromStore.headers["Age"].flatMap { Int($0) })
            #expect(try #require(fromMemory.headers["Age"].flatMap { Int($0) }) >= firstAge)
            #expect(harness.origin.requestCount == 1)
            let logged = try #require(harness.accessLog.all.last)
            #expect(logged.source == .hit && logged.isComplete && logged.bodyBytes == Int64(size))
            // A large body is sent from a file, the others from plain memory.
            let kept = try #require(harness.gateway.hotAnswers?.kept(for: harness.origin.url(path).absoluteString))
            #expect(kept.body.isInFile == (size > HeldBody.fileThreshold))
        }
    }

    @Test func aBodyInAFileIsSentWholeToManyClientsAtOnceAndNamesNoFile() async throws {
        try await Self.run { harness in
            let size = HeldBody.fileThreshold + 5
            let path = "/size/\(size)"
            let folder = URL(fileURLWithPath: harness.cache.store.path).deletingLastPathComponent().path
            _ = try await harness.get(path)
            let namesBefore = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
            let (hot, target, _) = try await Self.keep(path, harness)
            #expect(try #require(hot.kept(for: target)).body.isInFile)
            #expect(hot.bodyFiles.count == 1)
            let request = HTTPRequest(method: .get, url: harness.origin.url(path))
            let clients = 24
            let bodies = try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<clients {
                    group.addTask { try await GatewayHarness.send(request, via: harness.proxied).body }
                }
                return try await group.reduce(into: [Data]()) { $0.append($1) }
            }
            await harness.accessLog.waitForCount(3 + clients)

            #expect(bodies.count == clients)
            #expect(bodies.allSatisfy { $0 == StoredHitTests.body(size: size) })
            #expect(Self.memoryAnswers(harness) == 1 + clients, "the second of keep's requests, then every client")
            #expect(harness.origin.requestCount == 1)
            // The kept body's file has no name, so a process that dies leaves nothing beside the store.
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).sorted() == namesBefore)
        }
    }

    @Test func aChangeToTheStoreByAnotherConnectionSendsTheNextRequestToTheStore() async throws {
        try await Self.run { harness in
            let path = "/size/399"
            _ = try await harness.get(path)
            _ = try await harness.get(path)
            _ = try await harness.get(path)
            #expect(Self.memoryAnswers(harness) == 1)

            // Another connection to the store file (as another process would) stores new bytes for the URL.
            let other = try CacheStore(path: harness.cache.store.path)
            let url = harness.origin.url(path).cacheKey.absoluteString
            let stored = try #require(try other.entry(url: url))
            let replaced = CacheEntry(
                partition: stored.partition, method: .get, url: url, varyKey: "", status: 200, headers: stored.headers,
                requestTime: stored.requestTime, responseTime: stored.responseTime, freshUntil: stored.freshUntil)
            try await other.save(replaced, body: Data("replaced!".utf8))
            try await other.close()

            let afterChange = try await harness.get(path)
            let again = try await harness.get(path)

            #expect(afterChange.body == Data("replaced!".utf8))
            #expect(again.body == Data("replaced!".utf8))
            #expect(Self.memoryAnswers(harness) == 2, "read again once, then kept again")
            #expect(harness.origin.requestCount == 1)
        }
    }

    @Test func conditionsRangesDirectivesAndHeadGoToTheStore() async throws {
        try await Self.run { harness in
            let path = "/size/600000"
            _ = try await harness.get(path)
            _ = try await harness.get(path)
            _ = try await harness.get(path)
            #expect(Self.memoryAnswers(harness) == 1)

            let notModified = try await harness.get(path, headers: ["If-None-Match": "\"s600000\""])
            let ranged = try await harness.get(path, headers: ["Range": "bytes=10-19"])
            let noCache = try await harness.get(path, headers: ["Cache-Control": "no-cache"])
            let head = try await harness.get(path, method: .head)

            #expect(notModified.status == 304)
            #expect(ranged.status == 206)
            #expect(ranged.body == StoredHitTests.body(size: 600_000).subdata(in: 10..<20))
            #expect(noCache.servedAs == "network", "asked the origin, which answers without a condition")
            #expect(harness.origin.requestCount == 2)
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(Self.memoryAnswers(harness) == 1, "none of them from memory")
        }
    }

    @Test func anAnswerThatVariesWithTheRequestIsNotKept() async throws {
        try await Self.run { harness in
            for _ in 0..<3 {
                let reply = try await harness.get("/vary/399", headers: ["Accept-Language": "fr"])
                #expect(reply.body == StoredHitTests.body(size: 399))
            }
            #expect(harness.gateway.storeAnswers.load(ordering: .relaxed) == 2)
            #expect(Self.memoryAnswers(harness) == 0)
            #expect(harness.gateway.hotAnswers?.bytes == 0)
        }
    }

    @Test func aSizeOfZeroKeepsNothing() async throws {
        try await Self.run(configure: { $0.memoryCacheSize = 0 }) { harness in
            for _ in 0..<3 { _ = try await harness.get("/size/399") }
            #expect(harness.gateway.hotAnswers == nil)
            #expect(harness.gateway.storeAnswers.load(ordering: .relaxed) == 2)
            #expect(Self.memoryAnswers(harness) == 0)
        }
    }

    @Test func theLeastRecentlyServedAnswersGoWhenTheMemoryIsFull() async throws {
        // 16,000 bytes: bodies of at most 2,000 bytes are kept, eleven of 399 at most.
        try await Self.run(configure: { $0.memoryCacheSize = 16_000 }) { harness in
            let hot = try #require(harness.gateway.hotAnswers)
            // /size/399/N: 399 bytes each, at 20 URLs.
            for index in 0..<20 {
                _ = try await harness.get("/size/\(index)/399")
                _ = try await harness.get("/size/\(index)/399")
                #expect(hot.bytes <= 16_000)
            }
            let served = Self.memoryAnswers(harness)
            _ = try await harness.get("/size/19/399")
            #expect(Self.memoryAnswers(harness) == served + 1, "the last one kept is still there")
            _ = try await harness.get("/size/0/399")
            #expect(Self.memoryAnswers(harness) == served + 1, "the first one went")
            // A body over an eighth of the size is never kept.
            for _ in 0..<3 { _ = try await harness.get("/size/2001") }
            #expect(Self.memoryAnswers(harness) == served + 1)
        }
    }

    @Test func aKeptAnswerGoesWhenItsFreshnessEndsOrTheStoreChanges() async throws {
        try await Self.run { harness in
            let path = "/size/399"
            let (hot, target, count) = try await Self.keep(path, harness)
            let kept = try #require(hot.answer(for: target, changeCount: count, now: Date()))
            let freshness = kept.kept.freshness
            let lastFresh = freshness.freshUntil.addingTimeInterval(-1)

            let late = try #require(hot.answer(for: target, changeCount: count, now: lastFresh))
            #expect(late.age == Int(freshness.ageWhenReceived + lastFresh.timeIntervalSince(freshness.responseTime)))
            #expect(hot.answer(for: target, changeCount: count + 1, now: Date()) == nil, "another change count")
            #expect(hot.bytes == 0, "and it went")

            _ = try await harness.get(path)  // kept again
            let keptAgain = try #require(hot.kept(for: target))
            #expect(hot.bytes == 399 + HotAnswers.slotOverhead)
            #expect(hot.answer(for: target, changeCount: keptAgain.changeCount, now: freshness.freshUntil) == nil)
            #expect(hot.bytes == 0)
        }
    }

    /// The gateway's own saves of other URLs leave a kept answer in memory; a change the store
    /// cannot tell apart sends the next hit to the store.
    @Test func aKeptAnswerStaysWhileTheGatewayStoresOtherURLs() async throws {
        try await Self.run { harness in
            let path = "/size/399"
            let (hot, target, count) = try await Self.keep(path, harness)
            for size in [400, 401] {
                let miss = try await harness.get("/size/\(size)")
                #expect(miss.servedAs == "network")
            }
            let fromMemory = try await harness.get(path)
            #expect(fromMemory.body == StoredHitTests.body(size: 399))
            #expect(Self.memoryAnswers(harness) == 1, "served from memory after two saves of other URLs")

            let kept = try #require(hot.kept(for: target))
            #expect(kept.storeKey == harness.origin.url(path).cacheKey.absoluteString)
            var asked: [String] = []
            let later = count + 1_000
            #expect(hot.answer(for: target, changeCount: later, now: Date()) { key, _ in
                asked.append(key)
                return true
            } == nil)
            #expect(asked == [kept.storeKey])
            #expect(hot.bytes == 0, "and it went")
        }
    }

    @Test func aResponseMadeForOneAgeIsSentAtThatAgeOnly() async throws {
        try await Self.run { harness in
            let path = "/size/399"
            let (hot, target, count) = try await Self.keep(path, harness)
            let now = Date()
            let ready = try #require(hot.answer(for: target, changeCount: count, now: now))
            #expect(ready.response == nil, "no hit was answered from memory yet")
            try #require(cmhd_load() == nil, "libmicrohttpd is loaded")
            let response = PreparedResponse(try #require(cmhd_create_response_from_buffer(
                0, nil, MHD_ResponseMemoryMode.RESPMEM_PERSISTENT)))

            hot.prepared(response, age: ready.age, for: target, kept: ready.kept)

            #expect(hot.answer(for: target, changeCount: count, now: now)?.response === response)
            let later = try #require(hot.answer(for: target, changeCount: count, now: now.addingTimeInterval(1)))
            #expect(later.age == ready.age + 1)
            #expect(later.response == nil, "a second later, the Age differs")
            #expect(hot.answer(for: target, changeCount: count, now: now)?.response === response)

            // A response made for an answer that is no longer the one kept is not noted.
            _ = hot.answer(for: target, changeCount: count + 1, now: now)
            _ = try await harness.get(path)  // read from the store and kept again
            let keptAgain = try #require(hot.kept(for: target))
            hot.prepared(response, age: ready.age, for: target, kept: ready.kept)
            #expect(hot.answer(for: target, changeCount: keptAgain.changeCount, now: now)?.response == nil)
        }
    }

    @Test func freshnessGivesTheAgeUntilTheLifetimeEnds() {
        let received = Date(timeIntervalSince1970: 1_800_000_000)
        let freshness = StoredAnswer.Freshness(
            freshUntil: received.addingTimeInterval(100), responseTime: received, ageWhenReceived: 30)
        #expect(freshness.age(at: received) == 30)
        #expect(freshness.age(at: received.addingTimeInterval(99.5)) == 129.5)
        #expect(freshness.age(at: received.addingTimeInterval(100)) == nil)
        #expect(freshness.age(at: received.addingTimeInterval(-1)) == nil, "a clock that went back")
    }
}
