import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Testing

@testable import WebCache

/// The loader against a real origin on 127.0.0.1, a real store file and libcurl: freshness,
/// revalidation, variants, policies, fallbacks and invalidation (RFC 9111, RFC 5861).
@Suite(.timeLimit(.minutes(5)))
struct LoaderTests {
    // MARK: - Freshness

    @Test func freshHitMakesNoRequest() async throws {
        try await withCache(origin: { _ in
            .text("hello", headers: ["Cache-Control": "max-age=600", "Age": "5"])
        }) { (origin, cache) async throws in
            let first = try await cache.data(for: WebRequest("page"))
            #expect(first.source == .network)
            #expect(first.text == "hello")
            #expect(origin.requestCount == 1)

            let second = try await cache.data(for: WebRequest("page"))
            #expect(second.source == .hit)
            #expect(second.text == "hello")
            #expect(second.age >= 5)
            #expect(second.headers["Age"].flatMap { Int($0) }.map { $0 >= 5 } == true)
            #expect(origin.requestCount == 1)
        }
    }

    /// RFC 9110 §6.6.1: a response without a Date is stored with the time it was received, which it
    /// is served with from the store, as its age is reckoned from it.
    @Test func aResponseWithoutADateIsStoredWithTheTimeItWasReceived() async throws {
        try await withCache(origin: { _ in
            OriginResponse(body: .raw { socket in
                try socket.write("HTTP/1.1 200 OK\r\nCache-Control: max-age=600\r\nContent-Length: 5\r\n\r\nhello")
            })
        }) { (origin, cache) async throws in
            let before = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
            let first = try await cache.data(for: WebRequest("page"))
            let after = Date()
            #expect(first.source == .network)
            let stored = try #require(try cache.storedVariants(origin.url("page")).first)
            let date = try #require(stored.headers["Date"].flatMap { HTTPDate.parse($0) })
            #expect(date >= before && date <= after)
            let second = try await cache.data(for: WebRequest("page"))
            #expect(second.source == .hit)
            #expect(second.headers["Date"] == stored.headers["Date"])
            #expect(origin.requestCount == 1)
        }
    }

    /// RFC 3986 §6.2.2: `/key/%61` and `/key/a` are one resource, as are `%c3%a9` and `%C3%A9`: a
    /// spelling stored under one is a hit under the others, where it was a second fetch and entry.
    @Test func spellingsThatDifferInEscapesShareAnEntry() async throws {
        try await withCache(origin: { _ in .text("hello", headers: ["Cache-Control": "max-age=600"]) }) {
            (origin, cache) async throws in
            #expect(try await cache.data(for: WebRequest("key/a?q=%c3%a9")).source == .network)
            #expect(try await cache.data(for: WebRequest("key/%61?q=%C3%A9")).source == .hit)
            #expect(try await cache.data(for: WebRequest("key/%61?q=%c3%a9")).source == .hit)
            #expect(origin.requestCount == 1)
            #expect(try cache.store.totals().entryCount == 1)
        }
    }

    // MARK: - Revalidation

    @Test func staleEntryIsRevalidatedWithItsETagAnd304MergesHeaders() async throws {
        try await withCache(origin: { request in
            if request.headers["If-None-Match"] == "\"v1\"" {
                return OriginResponse(status: 304, headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\"",
                                                             "X-Version": "checked"])
            }
            return .text("one", headers: ["Cache-Control": "max-age=0", "ETag": "\"v1\"", "X-Version": "first"])
        }) { (origin, cache) async throws in
            #expect(try await cache.data(for: WebRequest("doc")).source == .network)
            let second = try await cache.data(for: WebRequest("doc"))
            #expect(second.source == .revalidated)
            #expect(second.status == 200)
            #expect(second.text == "one")
            #expect(second.headers["X-Version"] == "checked")
            #expect(second.headers["ETag"] == "\"v1\"")
            #expect(origin.requestCount == 2)
            #expect(origin.requests.last?.headers["If-None-Match"] == "\"v1\"")
            // The merged head is what the store keeps.
            let stored = try cache.storedVariants(origin.url("doc"))
            #expect(stored.map { $0.headers["X-Version"] } == ["checked"])
            #expect(stored.map(\.body) == [Data("one".utf8)])
        }
    }

    @Test func lastModifiedAloneIsRevalidatedWithIfModifiedSince() async throws {
        let lastModified = HTTPDate.format(Date(timeIntervalSince1970: 1_700_000_000))
        try await withCache(origin: { request in
            if request.headers["If-Modified-Since"] == lastModified {
                return OriginResponse(status: 304, headers: ["Cache-Control": "no-cache"])
            }
            return .text("dated", headers: ["Cache-Control": "no-cache", "Last-Modified": lastModified])
        }) { (origin, cache) async throws in
            #expect(try await cache.data(for: WebRequest("dated")).source == .network)
            let second = try await cache.data(for: WebRequest("dated"))
            #expect(second.source == .revalidated)
            #expect(second.text == "dated")
            let sent = try #require(origin.requests.last)
            #expect(sent.headers["If-Modified-Since"] == lastModified)
            #expect(sent.headers["If-None-Match"] == nil)
        }
    }

    @Test func a200OnRevalidationReplacesTheEntry() async throws {
        let version = Shared(1)
        try await withCache(origin: { request in
            let current = version.value
            if request.headers["If-None-Match"] == "\"v\(current)\"" {
                return OriginResponse(status: 304, headers: ["Cache-Control": "max-age=0"])
            }
            return .text("version \(current)", headers: ["Cache-Control": "max-age=0", "ETag": "\"v\(current)\""])
        }) { (origin, cache) async throws in
            #expect(try await cache.data(for: WebRequest("item")).text == "version 1")
            version.value = 2
            let changed = try await cache.data(for: WebRequest("item"))
            #expect(changed.source == .network)
            #expect(changed.text == "version 2")
            #expect(origin.requests.last?.headers["If-None-Match"] == "\"v1\"")
            let stored = try cache.storedVariants(origin.url("item"))
            #expect(stored.map(\.body) == [Data("version 2".utf8)])

            let confirmed = try await cache.data(for: WebRequest("item"))
            #expect(confirmed.source == .revalidated)
            #expect(confirmed.text == "version 2")
            #expect(origin.requestCount == 3)
        }
    }

    @Test func noCacheResponseIsAlwaysRevalidated() async throws {
        try await withCache(origin: { request in
            if request.headers["If-None-Match"] == "\"n\"" {
                return OriginResponse(status: 304, headers: ["Cache-Control": "no-cache, max-age=600"])
            }
            return .text("checked", headers: ["Cache-Control": "no-cache, max-age=600", "ETag": "\"n\""])
        }) { (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("nc"))
            for expected in 2...3 {
                let response = try await cache.data(for: WebRequest("nc"))
                #expect(response.source == .revalidated)
                #expect(response.text == "checked")
                #expect(origin.requestCount == expected)
            }
        }
    }

    @Test func noStoreIsNeverStored() async throws {
        try await withCache(origin: { _ in
            .text("secret", headers: ["Cache-Control": "no-store, max-age=600"])
        }) { (origin, cache) async throws in
            #expect(try await cache.data(for: WebRequest("ns")).source == .network)
            #expect(try await cache.data(for: WebRequest("ns")).source == .network)
            #expect(origin.requestCount == 2)
            #expect(try cache.storedVariants(origin.url("ns")).isEmpty)
        }
    }

    // MARK: - Variants

    @Test func variantsAreStoredApartAndServedToTheMatchingRequest() async throws {
        try await withCache(origin: { request in
            let language = request.headers["Accept-Language"] ?? "none"
            return .text("text in \(language)", headers: ["Cache-Control": "max-age=600", "Vary": "Accept-Language"])
        }) { (origin, cache) async throws in
            let english = WebRequest("greeting", headers: ["Accept-Language": "en"])
            let french = WebRequest("greeting", headers: ["Accept-Language": "fr"])
            #expect(try await cache.data(for: english).text == "text in en")
            #expect(try await cache.data(for: french).text == "text in fr")
            #expect(origin.requestCount == 2)
            let englishAgain = try await cache.data(for: english)
            let frenchAgain = try await cache.data(for: french)
            #expect(englishAgain.source == .hit)
            #expect(englishAgain.text == "text in en")
            #expect(frenchAgain.source == .hit)
            #expect(frenchAgain.text == "text in fr")
            #expect(origin.requestCount == 2)
            #expect(try cache.storedVariants(origin.url("greeting")).count == 2)
        }
    }

    @Test func varyStarIsNeverServedFromTheStore() async throws {
        try await withCache(origin: { _ in
            .text("anything", headers: ["Cache-Control": "max-age=600", "Vary": "*"])
        }) { (origin, cache) async throws in
            #expect(try await cache.data(for: WebRequest("star")).source == .network)
            #expect(try await cache.data(for: WebRequest("star")).source == .network)
            #expect(origin.requestCount == 2)
        }
    }

    // MARK: - Policies

    @Test func reloadAlwaysGoesToTheNetworkAndStillStores() async throws {
        let version = Shared(1)
        try await withCache(origin: { _ in
            .text("v\(version.value)", headers: ["Cache-Control": "max-age=600"])
        }) { (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("r"))
            version.value = 2
            let reloaded = try await cache.data(for: WebRequest("r"), policy: .reloadIgnoringCacheData)
            #expect(reloaded.source == .network)
            #expect(reloaded.text == "v2")
            #expect(origin.requestCount == 2)
            let hit = try await cache.data(for: WebRequest("r"))
            #expect(hit.source == .hit)
            #expect(hit.text == "v2")
            #expect(origin.requestCount == 2)
        }
    }

    @Test func returnCacheElseLoadServesStaleEntriesAndLoadsMisses() async throws {
        try await withCache(origin: { request in
            .text("at \(request.path)", headers: ["Cache-Control": "max-age=0", "Age": "100", "ETag": "\"e\""])
        }) { (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("old"))
            let stale = try await cache.data(for: WebRequest("old"), policy: .returnCacheDataElseLoad)
            #expect(stale.source == .stale)
            #expect(stale.text == "at /old")
            #expect(origin.requestCount == 1)
            let miss = try await cache.data(for: WebRequest("new"), policy: .returnCacheDataElseLoad)
            #expect(miss.source == .network)
            #expect(miss.text == "at /new")
            #expect(origin.requestCount == 2)
        }
    }

    @Test func returnCacheDontLoadFailsOnAMissNamingTheURL() async throws {
        try await withCache(origin: { _ in .text("x", headers: ["Cache-Control": "max-age=0"]) }) {
            (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("kept"))
            let kept = try await cache.data(for: WebRequest("kept"), policy: .returnCacheDataDontLoad)
            #expect(kept.source == .stale)
            let error = await #expect(throws: WebCacheError.self) {
                try await cache.data(for: WebRequest("absent"), policy: .returnCacheDataDontLoad)
            }
            #expect(error?.code == .notCached)
            #expect(error?.message.contains(origin.url("absent").absoluteString) == true)
            #expect(origin.requestCount == 1)
        }
    }

    @Test(arguments: [true, false])
    func offlineFallbackServesStaleEntriesWithinMaxStale(withValidator: Bool) async throws {
        var headers: HTTPHeaders = ["Cache-Control": "max-age=0", "Age": "100"]
        if withValidator { headers["ETag"] = "\"o\"" }
        let responseHeaders = headers
        try await withCache(origin: { _ in .text("offline copy", headers: responseHeaders) }) {
            (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("page"))
            let url = origin.url("page")
            origin.stop()

            let stale = try await cache.data(for: WebRequest("page"), policy: .offlineFallback(maxStale: 3600))
            #expect(stale.source == .stale)
            #expect(stale.text == "offline copy")
            #expect(stale.age >= 100)

            let error = await #expect(throws: WebCacheError.self) {
                try await cache.data(for: WebRequest("page"), policy: .offlineFallback(maxStale: 10))
            }
            #expect(error?.code == .network)
            #expect(error?.message.contains(url.absoluteString) == true)
            #expect(error?.message.contains("seconds stale") == true)

            let plain = await #expect(throws: WebCacheError.self) {
                try await cache.data(for: WebRequest("page"))
            }
            #expect(plain?.code == .network)
        }
    }

    @Test func staleIfErrorServesTheStoredResponseWhenTheOriginAnswers503() async throws {
        let failing = Shared(false)
        try await withCache(origin: { _ in
            if failing.value { return .text("unavailable", status: 503) }
            return .text("good", headers: ["Cache-Control": "max-age=0, stale-if-error=3600", "ETag": "\"g\""])
        }) { (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("s"))
            failing.value = true
            let response = try await cache.data(for: WebRequest("s"))
            #expect(response.source == .stale)
            #expect(response.status == 200)
            #expect(response.text == "good")
            #expect(origin.requestCount == 2)
        }
    }

    /// A server error the origin marks cacheable reaches the caller, but the stored response stays:
    /// with nothing stored, the same answer is stored as RFC 9111 allows.
    @Test func aServerErrorNeverReplacesAStoredResponse() async throws {
        let failing = Shared(false)
        try await withCache(origin: { _ in
            let headers: HTTPHeaders = ["Cache-Control": "max-age=0", "ETag": failing.value ? "\"e\"" : "\"g\""]
            return failing.value ? .text("boom", status: 500, headers: headers) : .text("good", headers: headers)
        }) { (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("page"))
            failing.value = true
            let answer = try await cache.data(for: WebRequest("page"))
            #expect(answer.status == 500)
            #expect(answer.text == "boom")
            #expect(try cache.storedVariants(origin.url("page")).map(\.status) == [200])
            let offline = try await cache.data(for: WebRequest("page"), policy: .returnCacheDataDontLoad)
            #expect(offline.text == "good")

            _ = try await cache.data(for: WebRequest("never-stored"))
            #expect(try cache.storedVariants(origin.url("never-stored")).map(\.status) == [500])
        }
    }

    /// When the network fails and the stored response may not stand in, the error says why.
    @Test(arguments: [("no-cache", "has no-cache"), ("max-age=0", "seconds stale")])
    func aFailedFetchSaysWhyTheStoredResponseCannotStandIn(cacheControl: String, reason: String) async throws {
        try await withCache(origin: { _ in
            .text("page", headers: ["Cache-Control": cacheControl, "ETag": "\"p\""])
        }) { (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("p"))
            origin.stop()
            let error = await #expect(throws: WebCacheError.self) {
                try await cache.data(for: WebRequest("p"))
            }
            #expect(error?.code == .network)
            #expect(error?.message.contains(reason) == true, "\(String(describing: error))")
        }
    }

    @Test func staleWhileRevalidateServesAtOnceAndRevalidatesInTheBackground() async throws {
        try await withCache(origin: { request in
            if request.headers["If-None-Match"] == "\"w\"" {
                return OriginResponse(status: 304, headers: ["Cache-Control": "max-age=600"])
            }
            return .text("swr", headers: ["Cache-Control": "max-age=0, stale-while-revalidate=600", "ETag": "\"w\""])
        }) { (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("swr"))
            let stale = try await cache.data(for: WebRequest("swr"))
            #expect(stale.source == .stale)
            #expect(stale.text == "swr")
            #expect(try await eventually { origin.requestCount == 2 })
            #expect(origin.requests.last?.headers["If-None-Match"] == "\"w\"")
            // Once the background revalidation has freshened the entry, it is a hit.
            #expect(try await eventually {
                (try? cache.storedVariants(origin.url("swr")).first?.headers["Cache-Control"]) == "max-age=600"
            })
            #expect(try await cache.data(for: WebRequest("swr")).source == .hit)
            #expect(origin.requestCount == 2)
        }
    }

    // MARK: - Methods

    @Test func unsafeMethodInvalidatesTheStoredGETAndItsLocations() async throws {
        try await withCache(origin: { request in
            if request.method == .post {
                return .text("changed", headers: ["Location": "/other", "Content-Location": "/third"])
            }
            return .text("get \(request.path)", headers: ["Cache-Control": "max-age=600"])
        }) { (origin, cache) async throws in
            for path in ["item", "other", "third"] {
                _ = try await cache.data(for: WebRequest(path))
                #expect(try cache.storedVariants(origin.url(path)).count == 1)
            }
            let posted = try await cache.data(for: WebRequest("item", method: .post, body: Data("x=1".utf8),
                                                              followsRedirects: false))
            #expect(posted.text == "changed")
            for path in ["item", "other", "third"] {
                #expect(try cache.storedVariants(origin.url(path)).isEmpty)
            }
            #expect(origin.requestCount == 4)
            #expect(try await cache.data(for: WebRequest("item")).source == .network)
            #expect(origin.requestCount == 5)
        }
    }

    /// Served from the store as it is (cache-only, as offline), a `no-cache` response is said to be
    /// stale, whatever its lifetime: it may not be used without a request (RFC 9111 §5.2.2.4).
    @Test func aNoCacheResponseServedWithoutARequestIsStale() async throws {
        try await withCache(origin: { _ in
            .text("page", headers: ["Cache-Control": "no-cache, max-age=600", "ETag": "\"p\""])
        }) { (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("p"))
            let kept = try await cache.data(for: WebRequest("p"), policy: .returnCacheDataDontLoad)
            #expect(kept.source == .stale)
            #expect(kept.text == "page")
            #expect(origin.requestCount == 1)
        }
    }

    @Test func headIsAnsweredFromAStoredGET() async throws {
        try await withCache(origin: { _ in .text("body", headers: ["Cache-Control": "max-age=600"]) }) {
            (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("h"))
            let head = try await cache.data(for: WebRequest("h", method: .head))
            #expect(head.source == .hit)
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.headers["Content-Length"] == "4")
            #expect(origin.requestCount == 1)
        }
    }

    @Test(arguments: [HTTPMethod.options, HTTPMethod(rawValue: "TRACE")])
    func otherSafeMethodsGoToTheOriginAndLeaveTheStoredGET(method: HTTPMethod) async throws {
        try await withCache(origin: { request in
            if request.method == method { return OriginResponse(status: 405, headers: ["Allow": "GET"]) }
            return .text("body", headers: ["Cache-Control": "max-age=600"])
        }) { (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("m"))
            let answer = try await cache.data(for: WebRequest("m", method: method))
            #expect(answer.source == .network)
            #expect(answer.status == 405)
            #expect(origin.requests.last?.method == method)
            #expect(origin.requestCount == 2)
            // Neither stored nor invalidating: the GET is still a hit.
            #expect(try await cache.data(for: WebRequest("m")).source == .hit)
            #expect(origin.requestCount == 2)
            // Cache-only: the store does not answer it and the network is not asked.
            let error = await #expect(throws: WebCacheError.self) {
                _ = try await cache.data(for: WebRequest("m", method: method), policy: .returnCacheDataDontLoad)
            }
            #expect(error?.code == .notCached)
            #expect(origin.requestCount == 2)
        }
    }

    // MARK: - Bad input

    @Test(arguments: ["ftp://example.com/file", "mailto:someone@example.com"])
    func nonHTTPURLIsRefusedNamingIt(url: String) async throws {
        try await withCache(origin: { _ in .text("unused") }) { (origin, cache) async throws in
            let error = await #expect(throws: WebCacheError.self) { try await cache.data(for: WebRequest(url)) }
            #expect(error?.code == .invalidURL)
            #expect(error?.message.contains(url) == true)
            #expect(origin.requestCount == 0)
        }
    }

    @Test func relativeURLWithoutAnInstanceIsRefusedNamingIt() async throws {
        try await withCache(origin: { _ in .text("unused") }, configure: { $0.instanceURL = nil }) {
            (origin, cache) async throws in
            let error = await #expect(throws: WebCacheError.self) { try await cache.data(for: WebRequest("nav/home")) }
            #expect(error?.code == .invalidURL)
            #expect(error?.message.contains("'nav/home'") == true)
            #expect(origin.requestCount == 0)
        }
    }

    // MARK: - Completion handlers

    @Test func completionHandlerFormDeliversTheResponse() async throws {
        try await withCache(origin: { _ in .text("called back", headers: ["Cache-Control": "max-age=600"]) }) {
            (origin, cache) async throws in
            await confirmation { delivered in
                let result = await withCheckedContinuation { continuation in
                    cache.data(for: WebRequest("cb")) { continuation.resume(returning: $0) }
                }
                if case .success(let response) = result, response.text == "called back" {
                    delivered()
                }
            }
            #expect(origin.requestCount == 1)
        }
    }

    @Test func completionHandlerFormsOfLoadRefreshAndLogout() async throws {
        try await withCache(origin: { _ in .text("streamed", headers: ["Cache-Control": "max-age=600"]) }) {
            (origin, cache) async throws in
            // load(completion:) hands over a response whose body still streams
            let loaded = await withCheckedContinuation { continuation in
                cache.load(WebRequest("page")) { continuation.resume(returning: $0) }
            }
            let body = try await loaded.get().body.collect()
            #expect(String(decoding: body, as: UTF8.self) == "streamed")
            // refresh(completion:) with no preloaded pages has nothing to do and succeeds
            let refreshed = await withCheckedContinuation { continuation in
                cache.refresh(events: { _ in }) { continuation.resume(returning: $0) }
            }
            #expect(try refreshed.get().pages == 0)
            // refresh(_:completion:) of the pages it is given, here none
            let refreshedNone = await withCheckedContinuation { continuation in
                cache.refresh([], events: { _ in }) { continuation.resume(returning: $0) }
            }
            #expect(refreshedNone.pages == 0)
            // logout(completion:) for a guest removes nothing and reports no error
            let loggedOut = await withCheckedContinuation { continuation in
                cache.logout { continuation.resume(returning: $0 == nil) }
            }
            #expect(loggedOut)
            #expect(origin.requestCount == 1)
        }
    }
}
