import Foundation
import HTTPCore
import LocalOrigin
import Testing

@testable import CacheStore
@testable import WebCache

/// A warm run over fresh entries: each listed page answered by one lookup in the store, no request,
/// no read of its body, nothing written for a page recorded as it already is, and exact counts;
/// whatever the stored columns do not settle goes the full way.
@Suite(.timeLimit(.minutes(5)))
struct PreloadWarmRunTests {
    /// More pages than the engine reads from a list at once (256 without requisites).
    private static let pageCount = 700

    private static var alone: PreloadOptions {
        var options = PreloadOptions.allCandidates
        options.includesRequisites = false
        return options
    }

    /// A cold run into an empty store fetches its pages without reading the store first, except a
    /// page that an earlier one was redirected to, which the run stored on the way.
    @Test func aColdRunAnswersAListedRedirectTargetFromWhatItStored() async throws {
        // Given a page that redirects to another, and pages kept fresh for an hour
        let rig = try PreloadRig.start { request in
            request.path == "/moved"
                ? OriginResponse(status: 301, headers: ["Location": "/target", "Cache-Control": "max-age=3600"])
                : .text("page \(request.path)", headers: ["Cache-Control": "max-age=3600"])
        }
        var options = Self.alone
        options.concurrency = 1
        options.perHostConcurrency = 1

        // When the redirected page, the others and then its target are preloaded one at a time
        let pages = ["moved", "p/1", "p/2", "target", "p/3"]
        let cold = await rig.cache.preload(pages, options: options)

        // Then the target is answered from the store, and every other page is fetched once
        #expect(cold.succeeded, "\(cold.failures)")
        #expect(rig.server.requests.map(\.path) == ["/moved", "/target", "/p/1", "/p/2", "/p/3"])
        #expect(cold.requests == 5)
        #expect(cold.sources[.hit] == 1)
    }

    @Test func aWarmRunOfFreshPagesSendsNothingAndCountsEveryPage() async throws {
        // Given pages kept fresh for an hour, preloaded once
        let rig = try PreloadRig.start { request in
            .text("page \(request.path)", headers: ["Cache-Control": "max-age=3600"])
        }
        let pages = (0..<Self.pageCount).map { "t/\($0)" }
        let cold = await rig.cache.preload(pages, options: Self.alone)
        #expect(cold.succeeded, "\(cold.failures)")
        #expect(cold.requests == Self.pageCount)
        try await rig.cache.store.flushAccessLog()
        let totals = try rig.cache.store.totals()
        let warmStart = Date()
        let asked = rig.server.requests.count

        // When the same list is preloaded again, each page listed twice
        let log = PreloadEventLog()
        let warm = await rig.cache.preload(pages + pages, options: Self.alone, events: log.handler)

        // Then nothing is sent and every page is counted once, as a hit
        #expect(warm.succeeded, "\(warm.failures)")
        #expect(rig.server.requests.count == asked)
        #expect(warm.requests == 0)
        #expect(warm.pages == Self.pageCount)
        #expect(warm.sources == [.hit: Self.pageCount])
        #expect(warm.completed == Self.pageCount)
        #expect(warm.failedPages == 0 && warm.unfinishedPages == 0 && warm.pagesMissingRequisites == 0)
        #expect(log.fetchedPaths == pages.map { "/" + $0 })
        #expect(log.all.allSatisfy { if case .fetched(_, 200, 0, .hit) = $0 { true } else { false } })
        // And nothing stored was lost: every entry and page is there as before, bodies sound
        try await rig.cache.store.flushAccessLog()
        #expect(try rig.cache.store.totals() == totals)
        #expect(try await rig.cache.store.verify().isSound)
        #expect(try rig.cache.store.pages().count == Self.pageCount)
        for page in pages {
            let url = rig.url(page)
            #expect(try rig.cache.store.edges(forPage: url) == [PageEdge(resourceURL: url, kind: "page")], "\(page)")
            // Eviction sees each page used by the warm run: one more hit, at the run's time
            let entry = try #require(try rig.cache.store.entry(url: url))
            #expect(entry.hitCount == 1, "\(page)")
            #expect(entry.lastAccess >= warmStart.addingTimeInterval(-1), "\(page)")
        }
        #expect(try String(decoding: rig.cache.store.bodyData(
            bodyID: #require(rig.cache.store.entry(url: rig.url("t/5"))?.bodyID)), as: UTF8.self) == "page /t/5")
        await rig.stop()
    }

    @Test func whatTheStoredColumnsDoNotSettleGoesTheFullWay() async throws {
        // Given a fresh page; a stale one and a stored no-cache one, each with a validator; a page
        // with two variants whose plain one is stale while the other is fresh; a page of which
        // only a range is stored; and a page never stored
        let content = preloadFiller(64)
        let rig = try PreloadRig.start { request in
            let path = request.path
            let tag = "\"\(path)\""
            switch path {
            case "/fresh":
                return .text("fresh", headers: ["Cache-Control": "max-age=3600"])
            case "/stale", "/no-cache", "/varied":
                let french = path == "/varied" && request.headers["Accept-Language"] == "fr"
                let control = french ? "max-age=3600" : path == "/no-cache" ? "no-cache" : "max-age=0"
                var headers: HTTPHeaders = ["Cache-Control": control, "ETag": tag]
                if path == "/varied" { headers.append(name: "Vary", value: "Accept-Language") }
                if request.headers["If-None-Match"] == tag { return OriginResponse(status: 304, headers: headers) }
                return .text(french ? "bonjour" : "hello", headers: headers)
            default:
                return .ranged(content, headers: ["Cache-Control": "max-age=3600", "ETag": tag], request: request)
            }
        }
        let full = ["fresh", "stale", "no-cache", "varied"]
        #expect(await rig.cache.preload(full, options: Self.alone).succeeded)
        _ = try await rig.cache.data(for: WebRequest("varied", headers: ["Accept-Language": "fr"]))
        let part = try await rig.cache.data(for: WebRequest("ranged", headers: ["Range": "bytes=0-9"]))
        #expect(part.status == 206)
        #expect(try rig.cache.store.entry(url: rig.url("ranged")) == nil)
        #expect(try rig.cache.store.variants(url: rig.url("varied")).count == 2)
        let asked = rig.server.requests.count

        // When they are preloaded again
        let log = PreloadEventLog()
        let warm = await rig.cache.preload(full + ["ranged", "new"], options: Self.alone, events: log.handler)

        // Then only the fresh page is answered from the store; the others are asked for, the ones
        // with a validator conditionally, and the range's page and the new page as a whole
        #expect(warm.succeeded, "\(warm.failures)")
        let sources = log.all.reduce(into: [String: ResponseSource]()) {
            if case .fetched(let url, _, _, let source) = $1 { $0[url.path] = source }
        }
        #expect(sources == ["/fresh": .hit, "/stale": .revalidated, "/no-cache": .revalidated,
                            "/varied": .revalidated, "/ranged": .network, "/new": .network])
        let sent = rig.server.requests.dropFirst(asked)
        #expect(sent.map(\.path).sorted() == ["/new", "/no-cache", "/ranged", "/stale", "/varied"])
        let whole = ["/ranged", "/new"]
        #expect(sent.filter { !whole.contains($0.path) }.allSatisfy { $0.headers["If-None-Match"] != nil })
        #expect(sent.filter { whole.contains($0.path) }.allSatisfy { $0.headers["If-None-Match"] == nil })
        #expect(try rig.cache.store.entry(url: rig.url("ranged"))?.bodySize == Int64(content.count))
        #expect(try rig.cache.store.entry(url: rig.url("new"))?.bodySize == Int64(content.count))
        let newPage = rig.url("new")
        #expect(try rig.cache.store.edges(forPage: newPage) == [PageEdge(resourceURL: newPage, kind: "page")])
        await rig.stop()
    }

    @Test func everySpellingOfAListedPageIsOnePageWhicheverWayItIsRead() async throws {
        // Given pages listed as plain absolute URLs, read from their bytes, and the same pages spelled
        // in ways that only the full parse puts in key form; and a line with a user name
        let rig = try PreloadRig.start { request in
            .text("page \(request.path)", headers: ["Cache-Control": "max-age=3600"])
        }
        let plain = ["a", "b", "c"].map { rig.url($0) }
        let authority = try #require(URL(string: plain[0])?.host).appending(":\(rig.server.port)")
        let spelled = ["HTTP://\(authority)/a", "Http://\(authority)/b", "http://\(authority)/c#top",
                       " http://\(authority)/a\t", "http://user@\(authority)/b"]
        for line in plain {
            #expect(try rig.cache.preloadPage(for: line).url.absoluteString == line)
        }

        // When the list is preloaded, the spelled lines first, then again
        let cold = await rig.cache.preload(spelled + plain, options: Self.alone)
        let asked = rig.server.requests.count
        let warm = await rig.cache.preload(plain + spelled, options: Self.alone)

        // Then each page is fetched once, under the one key, and answered from the store the second
        // time however it is spelled; the line with a user name is refused both times
        #expect(cold.pages == 3 && warm.pages == 3)
        #expect(rig.requestCounts == ["/a": 1, "/b": 1, "/c": 1])
        #expect(warm.sources == [.hit: 3])
        #expect(rig.server.requests.count == asked)
        for report in [cold, warm] {
            #expect(report.failures.map(\.url) == ["http://***@\(authority)/b"])
            #expect(report.failures.first?.reason.contains("user name or password") == true)
        }
        #expect(try Set(rig.cache.store.pages().map(\.url)) == Set(plain))
        await rig.stop()
    }

    @Test func aFreshEntrysBodyIsLeftToTheReadsThatServeIt() async throws {
        // Given a fresh page whose stored bytes were damaged after a preload
        let rig = try PreloadRig.start { _ in .text("sound", headers: ["Cache-Control": "max-age=3600"]) }
        #expect(await rig.cache.preload(["page"], options: Self.alone).succeeded)
        try await rig.cache.store.write("damage the page") { connection in
            try connection.run("UPDATE body_chunk SET data = zeroblob(length(data))")
        }
        let asked = rig.server.requests.count

        // When it is preloaded again, the store answers from its columns without reading the body
        let warm = await rig.cache.preload(["page"], options: Self.alone)
        #expect(warm.sources == [.hit: 1])
        #expect(rig.server.requests.count == asked)

        // Then the store's check finds the damage, and the next read of the page fetches it again
        #expect(try await !rig.cache.store.verify().isSound)
        let loaded = try await rig.cache.data(for: WebRequest("page"))
        #expect(loaded.body == Data("sound".utf8))
        #expect(rig.server.requests.count == asked + 1)
        #expect(try await rig.cache.store.verify().isSound)
        await rig.stop()
    }
}
