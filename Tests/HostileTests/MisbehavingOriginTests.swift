import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import Transport
import WebCache

/// Origins that break the protocol, stall, or send too much: every bad URL fails with a reason that
/// names it, nothing of it is stored, limits hold, and the good URLs of the same run are stored.
@Suite struct MisbehavingOriginTests {
    /// What each bad path must fail with, through `load`.
    static let expectedCodes: [(path: String, code: WebCacheError.Code)] = [
        ("reset-mid-body", .network),
        ("short-body", .network),
        ("stall-after-head", .network),
        ("stall-silent", .network),
        ("loop-a", .redirects),
        ("chain/0", .redirects),
        ("enormous-head", .tooLarge),
        ("endless", .tooLarge),
        ("bomb", .tooLarge),
        ("bad-chunk", .network),
    ]

    @Test func preloadRunGoesOnPastEveryMisbehaviourAndStoresOnlyTheGoodURLs() async throws {
        try #require(CompressionBomb.gzip != nil, "gzip is needed to build the compression bomb")
        let server = try startOrigin(MisbehavingOrigin.respond)
        defer { server.stop() }
        let factory = try CacheFactory()
        let cache = try factory.make()
        var options = quickOptions(retries: 2)
        options.maximumResourceSize = MisbehavingOrigin.sizeLimit

        let bad = MisbehavingOrigin.badPaths.map { server.url($0) }
        let pages = ["good.html", "plain.txt"].map { server.url($0) }
        let report = await cache.preload((bad + pages).map(\.absoluteString), options: options)

        // Every bad URL failed, once, under its own name, with a reason.
        let failed = Dictionary(grouping: report.failures, by: \.url)
        for url in bad {
            let problems = try #require(failed[url.absoluteString], "\(url) should have failed")
            #expect(problems.count == 1)
            #expect(!(problems.first?.reason.isEmpty ?? true))
        }
        #expect(report.failures.count == bad.count)
        #expect(failed[server.url("storm/one").absoluteString]?.first?.reason == "HTTP 503")
        #expect(failed[server.url("enormous-head").absoluteString]?.first?.reason.contains("response head") == true)
        #expect(failed[server.url("bomb").absoluteString]?.first?.reason.contains("larger than the limit") == true)
        #expect(failed[server.url("loop-a").absoluteString]?.first?.reason.contains("redirect loop") == true)

        // The good ones, the stylesheet found in the good page included, are stored.
        #expect(report.completed == 3)
        for path in MisbehavingOrigin.goodPaths {
            #expect(try cache.store.entries(url: server.url(path).absoluteString).count == 1, "\(path)")
        }
        // Nothing of a bad URL was stored, no staged chunk is left over, and the store is sound.
        for url in bad {
            #expect(try cache.store.entries(url: url.absoluteString).isEmpty, "\(url) was stored")
        }
        #expect(try cache.store.entries(url: server.url("loop-b").absoluteString).isEmpty)
        #expect(try cache.store.totals().entryCount == 3)
        let statistics = try await cache.store.statistics()
        #expect(statistics.stagedBytes == 0)
        let verification = try await cache.store.verify()
        #expect(verification.isSound, "\(verification.problems)")

        // A 5xx storm: each URL was tried exactly 1 + retries times, and the huge Retry-After was capped.
        let storm = server.requests.filter { $0.target.hasPrefix("/storm/") }
        #expect(storm.count == 2 * (1 + options.retries))
        await cache.close()
    }

    @Test(arguments: MisbehavingOriginTests.expectedCodes.map(\.path))
    func loadFailsWithAClearReasonAndStoresNothing(path: String) async throws {
        if path == "bomb" { try #require(CompressionBomb.gzip != nil, "gzip is needed to build the compression bomb") }
        let expected = try #require(MisbehavingOriginTests.expectedCodes.first { $0.path == path }?.code)
        let server = try startOrigin(MisbehavingOrigin.respond)
        defer { server.stop() }
        let factory = try CacheFactory()
        let cache = try factory.make()
        let good = try await cache.data(for: WebRequest(url: server.url("plain.txt")))
        #expect(good.status == 200)
        let before = try cache.store.totals()

        let url = server.url(path)
        var request = WebRequest(url: url)
        request.maximumBodySize = MisbehavingOrigin.sizeLimit
        let result = await loadResult(cache, request)
        guard case .failure(let error) = result else {
            Issue.record("\(path) loaded although it misbehaves")
            return
        }
        #expect(error.code == expected, "\(error)")
        // The message names the URL that failed (the first one of a redirect chain or loop).
        #expect(error.description.contains(url.absoluteString), "\(error)")
        #expect(try cache.store.entries(url: url.absoluteString).isEmpty)
        #expect(try cache.store.totals() == before)
        #expect(try await cache.store.statistics().stagedBytes == 0)
        #expect(try await cache.store.verify().isSound)

        // The cache still works after the failure.
        let again = try await cache.data(for: WebRequest(url: server.url("plain.txt")))
        #expect(again.source == .hit)
        await cache.close()
    }

    @Test func aStalledTransferIsATimeoutNamingTheURL() async throws {
        let server = try startOrigin(MisbehavingOrigin.respond)
        defer { server.stop() }
        let factory = try CacheFactory()
        let cache = try factory.make()
        let url = server.url("stall-after-head")
        let result = await loadResult(cache, WebRequest(url: url))
        guard case .failure(let error) = result else {
            Issue.record("a stalled transfer loaded")
            return
        }
        #expect(error.message.contains("timed out"), "\(error)")
        await cache.close()
    }

    @Test func aBodyLongerThanItsContentLengthIsCutAtTheDeclaredLength() async throws {
        let server = try startOrigin(MisbehavingOrigin.respond)
        defer { server.stop() }
        let factory = try CacheFactory()
        let cache = try factory.make()
        let url = server.url("long-body")
        let response = try await cache.data(for: WebRequest(url: url))
        // The message ends where Content-Length says; the excess is not part of it.
        #expect(response.body == Data(repeating: 0x63, count: 10))
        let entries = try cache.store.entries(url: url.absoluteString)
        #expect(entries.count == 1)
        let bodyID = try #require(entries.first?.bodyID)
        #expect(try cache.store.bodyData(bodyID: bodyID).count == 10)
        // The excess bytes may still wait on the kept-alive connection, where they would read as a
        // broken response to the next request: the transport sends that one again on a new connection.
        let next = try await cache.data(for: WebRequest(url: server.url("plain.txt")))
        #expect(String(decoding: next.body, as: UTF8.self) == "plain and simple")
        #expect(try cache.store.totals().entryCount == 2)
        #expect(try await cache.store.verify().isSound)
        await cache.close()
    }

    @Test func theDecodedSizeLimitHoldsForACompressionBomb() async throws {
        let bomb = try #require(CompressionBomb.gzip, "gzip is needed to build the compression bomb")
        #expect(bomb.count < Int(MisbehavingOrigin.sizeLimit))  // small on the wire, huge decoded
        let server = try startOrigin(MisbehavingOrigin.respond)
        defer { server.stop() }
        let factory = try CacheFactory()
        let cache = try factory.make()
        var request = WebRequest(url: server.url("bomb"))
        request.maximumBodySize = MisbehavingOrigin.sizeLimit
        let result = await loadResult(cache, request)
        guard case .failure(let error) = result else {
            Issue.record("the compression bomb loaded")
            return
        }
        #expect(error.code == .tooLarge)
        #expect(error.message.contains("\(MisbehavingOrigin.sizeLimit)"))
        #expect(try cache.store.totals().entryCount == 0)
        await cache.close()
    }

    @Test func aTransportBodyLimitAlsoHoldsOnDecodedBytes() async throws {
        try #require(CompressionBomb.gzip != nil, "gzip is needed to build the compression bomb")
        let server = try startOrigin(MisbehavingOrigin.respond)
        defer { server.stop() }
        let factory = try CacheFactory()
        let cache = try factory.make { $0.transportConfiguration.maxBodyBytes = MisbehavingOrigin.sizeLimit }
        let result = await loadResult(cache, WebRequest(url: server.url("bomb")))
        guard case .failure(let error) = result else {
            Issue.record("the compression bomb loaded past the transport's limit")
            return
        }
        #expect(error.code == .tooLarge, "\(error)")
        #expect(try cache.store.totals().entryCount == 0)
        await cache.close()
    }
}
