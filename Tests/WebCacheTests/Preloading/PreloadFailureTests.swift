import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import WebCacheTestSupport
@testable import WebCache

/// What a preload does with failing resources, oversized ones and unusable input.
@Suite struct PreloadFailureTests {
    // MARK: - Retries and HTTP errors

    @Test func transientFailuresAreRetriedAndAMissingResourceIsReported() async throws {
        let flakyAnswers = Mutex(0)
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/index.html":
                return .text("<img src=\"flaky.png\"><img src=\"missing.png\"><img src=\"fine.png\">",
                             contentType: "text/html")
            case "/flaky.png":
                let answer = flakyAnswers.withLock { count -> Int in
                    count += 1
                    return count
                }
                if answer <= 2 {
                    return .text("Busy", status: 503, headers: ["Retry-After": "0"])
                }
                return OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(300)))
            case "/fine.png":
                return OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(200)))
            default:
                return .text("Not found", status: 404)
            }
        }
        let events = PreloadEventLog()

        let report = await rig.cache.preload(["index.html"], events: events.handler)

        #expect(rig.requestCounts["/flaky.png"] == 3)
        #expect(events.retryingPaths == ["/flaky.png", "/flaky.png"])
        #expect(Set(events.fetchedPaths) == ["/index.html", "/flaky.png", "/fine.png"])
        #expect(events.failures == ["/missing.png": "HTTP 404"])
        #expect(report.failures.map(\.reason) == ["HTTP 404"])
        #expect(report.failures.first?.url.hasSuffix("/missing.png") == true)
        #expect(report.completed == 3)
        #expect(try rig.cache.store.entry(url: rig.url("flaky.png")) != nil)

        let status = try rig.cache.store.pageStatus(forPage: rig.url("index.html"))
        // The 404 answer may itself be kept (404 is heuristically cacheable), so the edge's failure is
        // what tells that the page is not whole.
        #expect(status.resourceCount == 4)
        #expect(status.failures.map(\.resourceURL) == [rig.url("missing.png")])
        #expect(status.failures.first?.failure == "HTTP 404")
        await rig.stop()
    }

    @Test(arguments: [404, 410, 500, 501])
    func anErrorPagesReferencesAreNotFetched(status: Int) async throws {
        let rig = try PreloadRig.start { request in
            if request.path == "/gone.html" {
                return .text(#"<link rel="stylesheet" href="error.css"><img src="sad.png"><p>Not here"#,
                             status: status, contentType: "text/html")
            }
            return .text("body {}", contentType: "text/css")
        }
        var options = PreloadOptions()
        options.retries = 0
        let events = PreloadEventLog()

        let report = await rig.cache.preload(["gone.html"], options: options, events: events.handler)

        #expect(rig.server.requests.map(\.path) == ["/gone.html"])
        #expect(report.failures.map(\.reason) == ["HTTP \(status)"])
        #expect(events.discoveredPaths.isEmpty)
        await rig.stop()
    }

    /// A 503 with `Retry-After: 1` is retried after the second it asks for, or after
    /// `maximumRetryDelay` when that is shorter; the backoff delay (a millisecond here) plays no part.
    @Test(arguments: [(cap: Duration.seconds(30), delay: 1.0), (cap: .milliseconds(50), delay: 0.05)])
    func retryAfterSetsTheRetryDelayUpToTheCap(cap: Duration, delay: TimeInterval) async throws {
        let answers = Mutex(0)
        let rig = try PreloadRig.start { _ in
            let answer = answers.withLock { count -> Int in
                count += 1
                return count
            }
            return answer == 1
                ? .text("Busy", status: 503, headers: ["Retry-After": "1"])
                : .text("<p>at last</p>", contentType: "text/html")
        }
        var options = PreloadOptions()
        options.retryDelay = .milliseconds(1)
        options.maximumRetryDelay = cap
        let events = PreloadEventLog()

        let report = await rig.cache.preload(["index.html"], options: options, events: events.handler)

        #expect(report.failures.isEmpty)
        #expect(rig.requestCounts == ["/index.html": 2])
        let retries = events.retries
        #expect(retries.map(\.attempt) == [1])
        let waited = try #require(retries.first?.delay)
        #expect(abs(waited - delay) < 1e-9, "waited \(waited) s")
        await rig.stop()
    }

    /// Without `Retry-After`, each retry waits about twice as long as the one before: attempt n waits
    /// between half and all of `retryDelay` × 2ⁿ⁻¹.
    @Test func retryDelaysGrowWithEachAttemptWithoutRetryAfter() async throws {
        let answers = Mutex(0)
        let rig = try PreloadRig.start { _ in
            let answer = answers.withLock { count -> Int in
                count += 1
                return count
            }
            return answer <= 3 ? .text("Busy", status: 503) : .text("<p>at last</p>", contentType: "text/html")
        }
        var options = PreloadOptions()
        options.retries = 3
        options.retryDelay = .milliseconds(20)
        let events = PreloadEventLog()

        let report = await rig.cache.preload(["index.html"], options: options, events: events.handler)

        #expect(report.failures.isEmpty)
        #expect(rig.requestCounts == ["/index.html": 4])
        let retries = events.retries
        try #require(retries.map(\.attempt) == [1, 2, 3])
        for (attempt, delay) in retries {
            let full = 0.02 * pow(2, Double(attempt - 1))
            #expect(delay >= full / 2 && delay <= full, "attempt \(attempt) waited \(delay) s")
        }
        let delays = retries.map(\.delay)
        #expect(delays[0] <= delays[1] && delays[1] <= delays[2] && delays[0] < delays[2], "delays: \(delays)")
        await rig.stop()
    }

    @Test(arguments: [
        ("0", 0.0), ("7", 7.0), (" 12 ", 12.0), ("Sun, 06 Nov 1994 08:49:37 GMT", 30.0),
        ("Sun, 06 Nov 1994 08:48:37 GMT", 0.0),
    ])
    func retryAfterIsReadAsSecondsOrADate(value: String, seconds: Double) throws {
        let now = try #require(HTTPDate.parse("Sun, 06 Nov 1994 08:49:07 GMT"))
        #expect(Preloader.retryAfter(["Retry-After": value], now: now) == seconds)
    }

    @Test(arguments: ["", "-3", "soon", "1.5"])
    func unusableRetryAfterIsIgnored(value: String) {
        #expect(Preloader.retryAfter(["Retry-After": value]) == nil)
    }

    // MARK: - Redirects

    /// A listed page whose redirects come back to a URL already asked (through another, or to
    /// itself) fails naming the chain, after one request for each URL of the loop; a chain that
    /// ends is followed, and the pages beside them are stored.
    @Test func redirectLoopsFailNamingTheChainAndTheOtherPagesAreStored() async throws {
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/a": OriginResponse(status: 302, headers: ["Location": "/b"])
            case "/b": OriginResponse(status: 302, headers: ["Location": "/a"])
            case "/self": OriginResponse(status: 301, headers: ["Location": "/self"])
            case "/start": OriginResponse(status: 302, headers: ["Location": "/middle"])
            case "/middle": OriginResponse(status: 302, headers: ["Location": "/end"])
            default: .text("page \(request.path)", headers: ["Cache-Control": "max-age=600"])
            }
        }
        let events = PreloadEventLog()

        let report = await rig.cache.preload(["a", "self", "start", "fine"], events: events.handler)

        let failures = events.failures
        #expect(failures.keys.sorted() == ["/a", "/self"])
        #expect(failures["/a"]?.contains("redirect loop") == true)
        #expect(failures["/a"]?.contains("\(rig.url("a")) -> \(rig.url("b")) -> \(rig.url("a"))") == true)
        #expect(failures["/self"]?.contains("\(rig.url("self")) -> \(rig.url("self"))") == true)
        #expect(rig.requestCounts["/a"] == 1)
        #expect(rig.requestCounts["/b"] == 1)
        #expect(rig.requestCounts["/self"] == 1)
        #expect(rig.requestCounts["/end"] == 1)
        #expect(report.failures.count == 2)
        #expect(try rig.cache.store.entry(url: rig.url("end")) != nil)
        #expect(try rig.cache.store.entry(url: rig.url("fine")) != nil)
        await rig.stop()
    }

    // MARK: - Size cap

    @Test func aResourceOverTheSizeCapFailsAndNothingOfItIsStored() async throws {
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/index.html":
                return .text("<img src=\"big.png\"><img src=\"small.png\">", contentType: "text/html")
            case "/big.png":
                return OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(50_000)))
            case "/chunked-big.png":
                return OriginResponse(headers: ["Content-Type": "image/png"], body: .stream { writer in
                    for _ in 0..<10 { try writer.write(preloadFiller(5_000)) }
                })
            case "/small.png":
                return OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(1_000)))
            default:
                return .text("Not found", status: 404)
            }
        }
        var options = PreloadOptions()
        options.maximumResourceSize = 10_000
        let events = PreloadEventLog()

        let report = await rig.cache.preload(["index.html", "chunked-big.png"], options: options,
                                             events: events.handler)

        let reasons = events.failures
        #expect(Set(reasons.keys) == ["/big.png", "/chunked-big.png"])
        for (path, reason) in reasons {
            #expect(!reason.isEmpty, "\(path) failed without a reason")
        }
        #expect(report.failures.count == 2)
        #expect(try rig.cache.store.entry(url: rig.url("big.png")) == nil)
        #expect(try rig.cache.store.entry(url: rig.url("chunked-big.png")) == nil)
        #expect(try rig.cache.store.entry(url: rig.url("small.png")) != nil)
        #expect(try rig.cache.store.pageStatus(forPage: rig.url("index.html")).missing == [rig.url("big.png")])
        await rig.stop()
    }

    /// Audio and video are held to the smaller of the resource cap and the media cap, whichever it is.
    @Test(arguments: [(resource: Int64?(10_000), media: Int64(1 << 20)), (resource: 1 << 20, media: 10_000),
                      (resource: nil, media: 10_000)])
    func mediaIsHeldToTheSmallerOfTheResourceAndMediaCaps(resource: Int64?, media: Int64) async throws {
        let rig = try PreloadRig.start(handler: Self.mediaPage)
        var options = PreloadOptions()
        options.includesMedia = true
        options.maximumResourceSize = resource
        options.maximumMediaSize = media
        let events = PreloadEventLog()

        let report = await rig.cache.preload(["index.html"], options: options, events: events.handler)

        #expect(Set(events.fetchedPaths) == ["/index.html", "/clip.mp4"])
        #expect(Array(events.failures.keys) == ["/movie.mp4"])
        let reason = try #require(events.failures["/movie.mp4"])
        #expect(reason.contains("larger than the limit of 10000 bytes"), "reason: \(reason)")
        #expect(report.failures.map(\.url) == [rig.url("movie.mp4")])
        #expect(try rig.cache.store.entry(url: rig.url("movie.mp4")) == nil)
        #expect(try rig.cache.store.entry(url: rig.url("clip.mp4")) != nil)
        await rig.stop()
    }

    @Test func mediaIsNotFetchedWithoutIncludesMedia() async throws {
        let rig = try PreloadRig.start(handler: Self.mediaPage)
        var options = PreloadOptions()
        options.maximumResourceSize = nil
        let events = PreloadEventLog()

        let report = await rig.cache.preload(["index.html"], options: options, events: events.handler)

        #expect(report.failures.isEmpty)
        #expect(report.completed == 1)
        #expect(events.discoveredPaths.isEmpty)
        #expect(rig.requestCounts == ["/index.html": 1])
        await rig.stop()
    }

    /// A page whose `<video src>` references name a 50 KB video and a 1 KB one.
    private static func mediaPage(_ request: OriginRequest) -> OriginResponse {
        switch request.path {
        case "/index.html":
            .text("<video src=\"movie.mp4\"></video><video src=\"clip.mp4\"></video>", contentType: "text/html")
        case "/movie.mp4":
            OriginResponse(headers: ["Content-Type": "video/mp4"], body: .bytes(preloadFiller(50_000)))
        case "/clip.mp4":
            OriginResponse(headers: ["Content-Type": "video/mp4"], body: .bytes(preloadFiller(1_000)))
        default:
            .text("Not found", status: 404)
        }
    }

    // MARK: - Bad input

    @Test func unusableURLsAreReportedAndTheRestIsPreloaded() async throws {
        let folder = try TemporaryFolder()
        _ = try PreloadSiteFixture.write(pageCount: 2, to: folder)
        let rig = try PreloadRig.serving(folder.url.appending(path: "site"), in: folder)
        let first = await rig.cache.preload(["page-1.html"])
        #expect(first.failures.isEmpty)
        let storedBefore = try rig.cache.store.totals()
        await rig.cache.close()

        // The same store, without an instance URL: relative references cannot be resolved.
        let bare = try PreloadRig.openCache(folder: folder, server: rig.server, instance: false)
        let inputs = ["page-1.html", "ftp://files.example.com/a.txt", "mailto:someone@example.com",
                      "http://[not a host", rig.url("page-2.html")]
        let events = PreloadEventLog()

        let report = await bare.preload(inputs, events: events.handler)

        #expect(report.failures.count == 4)
        for (problem, input) in zip(report.failures, inputs.prefix(4)) {
            #expect(problem.url == input || input.hasPrefix(problem.url), "\(problem.url) does not name \(input)")
            #expect(!problem.reason.isEmpty)
        }
        #expect(report.pages == 1)
        let status = try bare.store.pageStatus(forPage: rig.url("page-2.html"))
        #expect(status.isComplete)
        // Nothing stored before was lost.
        #expect(try bare.store.pageStatus(forPage: rig.url("page-1.html")).isComplete)
        #expect(try bare.store.totals().entryCount > storedBefore.entryCount)
        await bare.close()
        rig.server.stop()
        folder.remove()
    }
}
