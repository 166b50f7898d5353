import Foundation
import HTTPCore
import Testing

@testable import HTTPCaching

struct CacheDecisionTests {
    /// One stored response (received at t0 with `Date: t0`), one request at `t0 + now`, one expected decision.
    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var response: [(String, String)]
        var request: [(String, String)] = []
        var now: TimeInterval
        var expected: CacheDecision
    }

    static let etag: (String, String) = ("ETag", #""v1""#)
    static let inm: HTTPHeaders = ["If-None-Match": #""v1""#]

    @Test(arguments: [
        // §4.2 freshness
        Case(
            testDescription: "§4.2 fresh max-age is served",
            response: [("Cache-Control", "max-age=100")],
            now: 50,
            expected: .fresh(variant: 0, age: 50)
        ),
        Case(
            testDescription: "§4.2.3 Age counts towards the current age",
            response: [("Cache-Control", "max-age=100"), ("Age", "30")],
            now: 50,
            expected: .fresh(variant: 0, age: 80)
        ),
        Case(
            testDescription: "§4.2.3 Age can make a response stale on arrival",
            response: [("Cache-Control", "max-age=100"), ("Age", "120"), etag],
            now: 0,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§4.2 fresh means lifetime strictly greater than age",
            response: [("Cache-Control", "max-age=100"), etag],
            now: 100,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§4.2.1 Expires gives freshness",
            response: [("Expires", httpDate(100))],
            now: 99,
            expected: .fresh(variant: 0, age: 99)
        ),
        Case(
            testDescription: "§5.3 Expires: 0 is already expired",
            response: [("Expires", "0"), etag],
            now: 1,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§4.2.2 heuristic freshness (10% of 10 days = 1 day)",
            response: [("Last-Modified", httpDate(-864_000))],
            now: 86_000,
            expected: .fresh(variant: 0, age: 86_000)
        ),
        Case(
            testDescription: "§4.2.2 heuristic expiry leads to If-Modified-Since",
            response: [("Last-Modified", httpDate(-864_000))],
            now: 86_401,
            expected: .validate(variant: 0, conditionalHeaders: ["If-Modified-Since": httpDate(-864_000)])
        ),
        Case(
            testDescription: "§4.2.1 invalid max-age is stale",
            response: [("Cache-Control", "max-age=ten"), etag],
            now: 1,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§4.3.1 stale without a validator is a miss",
            response: [("Cache-Control", "max-age=10")],
            now: 20,
            expected: .miss
        ),
        Case(
            testDescription: "§4.3.1 both validators are sent",
            response: [("Cache-Control", "max-age=10"), etag, ("Last-Modified", httpDate(-60))],
            now: 20,
            expected: .validate(
                variant: 0,
                conditionalHeaders: headers([("If-None-Match", #""v1""#), ("If-Modified-Since", httpDate(-60))])
            )
        ),
        Case(
            testDescription: "§4.3.1 an unparsable Last-Modified is not sent",
            response: [("Cache-Control", "max-age=10"), ("Last-Modified", "last week")],
            now: 20,
            expected: .miss
        ),
        // Response directives
        Case(
            testDescription: "§5.2.2.4 response no-cache validates even when fresh",
            response: [("Cache-Control", "max-age=100, no-cache"), etag],
            now: 1,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§5.2.2.4 qualified no-cache is treated as unqualified",
            response: [("Cache-Control", #"max-age=100, no-cache="Set-Cookie""#), etag],
            now: 1,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§5.2.2.7 private is served by a private cache",
            response: [("Cache-Control", "private, max-age=100")],
            now: 1,
            expected: .fresh(variant: 0, age: 1)
        ),
        Case(
            testDescription: "§5.2.2.2 must-revalidate refuses max-stale",
            response: [("Cache-Control", "max-age=10, must-revalidate"), etag],
            request: [("Cache-Control", "max-stale")],
            now: 20,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§5.2.2.2 must-revalidate refuses stale-while-revalidate",
            response: [("Cache-Control", "max-age=10, must-revalidate, stale-while-revalidate=60"), etag],
            now: 20,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§5.2.2.2 must-revalidate does not affect a fresh response",
            response: [("Cache-Control", "max-age=10, must-revalidate")],
            now: 5,
            expected: .fresh(variant: 0, age: 5)
        ),
        // Request directives
        Case(
            testDescription: "§5.2.1.4 request no-cache validates a fresh response",
            response: [("Cache-Control", "max-age=100"), etag],
            request: [("Cache-Control", "no-cache")],
            now: 1,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§5.4 Pragma: no-cache validates without Cache-Control",
            response: [("Cache-Control", "max-age=100"), etag],
            request: [("Pragma", "no-cache")],
            now: 1,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§5.4 Pragma: no-cache is ignored beside Cache-Control",
            response: [("Cache-Control", "max-age=100"), etag],
            request: [("Pragma", "no-cache"), ("Cache-Control", "max-stale=0")],
            now: 1,
            expected: .fresh(variant: 0, age: 1)
        ),
        Case(
            testDescription: "§5.2.1.1 request max-age above the age serves",
            response: [("Cache-Control", "max-age=100")],
            request: [("Cache-Control", "max-age=60")],
            now: 50,
            expected: .fresh(variant: 0, age: 50)
        ),
        Case(
            testDescription: "§5.2.1.1 request max-age below the age validates",
            response: [("Cache-Control", "max-age=100"), etag],
            request: [("Cache-Control", "max-age=30")],
            now: 50,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§5.2.1.1 request max-age=0 validates",
            response: [("Cache-Control", "max-age=100"), etag],
            request: [("Cache-Control", "max-age=0")],
            now: 1,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§5.2.1.3 min-fresh satisfied serves",
            response: [("Cache-Control", "max-age=100")],
            request: [("Cache-Control", "min-fresh=40")],
            now: 50,
            expected: .fresh(variant: 0, age: 50)
        ),
        Case(
            testDescription: "§5.2.1.3 min-fresh not satisfied validates",
            response: [("Cache-Control", "max-age=100"), etag],
            request: [("Cache-Control", "min-fresh=60")],
            now: 50,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§5.2.1.2 max-stale without value serves any staleness",
            response: [("Cache-Control", "max-age=10")],
            request: [("Cache-Control", "max-stale")],
            now: 100_000,
            expected: .stale(variant: 0, age: 100_000, revalidate: false)
        ),
        Case(
            testDescription: "§5.2.1.2 max-stale=60 serves 50 seconds of staleness",
            response: [("Cache-Control", "max-age=10")],
            request: [("Cache-Control", "max-stale=60")],
            now: 60,
            expected: .stale(variant: 0, age: 60, revalidate: false)
        ),
        Case(
            testDescription: "§5.2.1.2 max-stale=60 refuses 70 seconds of staleness",
            response: [("Cache-Control", "max-age=10"), etag],
            request: [("Cache-Control", "max-stale=60")],
            now: 80,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§5.2.1.2 max-stale with an invalid value grants nothing",
            response: [("Cache-Control", "max-age=10"), etag],
            request: [("Cache-Control", "max-stale=lots")],
            now: 20,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§5.2.1.1 request max-age still bounds max-stale",
            response: [("Cache-Control", "max-age=10"), etag],
            request: [("Cache-Control", "max-stale, max-age=15")],
            now: 20,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§5.2.1.2 max-stale does not override response no-cache",
            response: [("Cache-Control", "max-age=10, no-cache"), etag],
            request: [("Cache-Control", "max-stale")],
            now: 20,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "§5.2.1.5 request no-store still reuses a stored response",
            response: [("Cache-Control", "max-age=100")],
            request: [("Cache-Control", "no-store")],
            now: 1,
            expected: .fresh(variant: 0, age: 1)
        ),
        // RFC 8246 immutable
        Case(
            testDescription: "RFC 8246 §2 a reload (max-age=0) of a fresh immutable response is a hit",
            response: [("Cache-Control", "max-age=100, immutable"), etag],
            request: [("Cache-Control", "max-age=0")],
            now: 50,
            expected: .fresh(variant: 0, age: 50)
        ),
        Case(
            testDescription: "RFC 8246 §2 immutable does not cover a stale response",
            response: [("Cache-Control", "max-age=100, immutable"), etag],
            request: [("Cache-Control", "max-age=0")],
            now: 150,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "RFC 8246 §2 immutable does not override request no-cache",
            response: [("Cache-Control", "max-age=100, immutable"), etag],
            request: [("Cache-Control", "no-cache")],
            now: 50,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "RFC 8246 §2 immutable only exempts max-age=0 reloads",
            response: [("Cache-Control", "max-age=100, immutable"), etag],
            request: [("Cache-Control", "max-age=10")],
            now: 50,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        // RFC 5861 stale-while-revalidate
        Case(
            testDescription: "RFC 5861 §3 within stale-while-revalidate serves stale and revalidates",
            response: [("Cache-Control", "max-age=10, stale-while-revalidate=60"), etag],
            now: 70,
            expected: .stale(variant: 0, age: 70, revalidate: true)
        ),
        Case(
            testDescription: "RFC 5861 §3 beyond stale-while-revalidate validates",
            response: [("Cache-Control", "max-age=10, stale-while-revalidate=60"), etag],
            now: 71,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "RFC 5861 §3 a fresh response needs no revalidation",
            response: [("Cache-Control", "max-age=10, stale-while-revalidate=60")],
            now: 5,
            expected: .fresh(variant: 0, age: 5)
        ),
        Case(
            testDescription: "RFC 5861 §3 request max-age excludes stale-while-revalidate",
            response: [("Cache-Control", "max-age=10, stale-while-revalidate=60"), etag],
            request: [("Cache-Control", "max-age=15")],
            now: 20,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "RFC 5861 §3 request min-fresh excludes stale-while-revalidate",
            response: [("Cache-Control", "max-age=10, stale-while-revalidate=60"), etag],
            request: [("Cache-Control", "min-fresh=1")],
            now: 20,
            expected: .validate(variant: 0, conditionalHeaders: inm)
        ),
        Case(
            testDescription: "RFC 5861 §3 stale-while-revalidate is preferred to max-stale",
            response: [("Cache-Control", "max-age=10, stale-while-revalidate=60")],
            request: [("Cache-Control", "max-stale")],
            now: 20,
            expected: .stale(variant: 0, age: 20, revalidate: true)
        ),
        // only-if-cached
        Case(
            testDescription: "§5.2.1.7 only-if-cached serves a fresh response",
            response: [("Cache-Control", "max-age=100")],
            request: [("Cache-Control", "only-if-cached")],
            now: 50,
            expected: .fresh(variant: 0, age: 50)
        ),
        Case(
            testDescription: "§5.2.1.7 only-if-cached with a stale response is unsatisfiable",
            response: [("Cache-Control", "max-age=10"), etag],
            request: [("Cache-Control", "only-if-cached")],
            now: 50,
            expected: .unsatisfiable
        ),
        Case(
            testDescription: "§5.2.1.7 only-if-cached with max-stale serves stale",
            response: [("Cache-Control", "max-age=10")],
            request: [("Cache-Control", "only-if-cached, max-stale")],
            now: 50,
            expected: .stale(variant: 0, age: 50, revalidate: false)
        ),
        Case(
            testDescription: "§5.2.1.7 only-if-cached with no-cache is unsatisfiable",
            response: [("Cache-Control", "max-age=100"), etag],
            request: [("Cache-Control", "only-if-cached, no-cache")],
            now: 1,
            expected: .unsatisfiable
        ),
    ])
    func decides(_ example: Case) {
        let decision = HTTPCachePolicy.decide(
            request: request(example.request),
            variants: [stored(example.response)],
            now: t0.addingTimeInterval(example.now)
        )
        #expect(decision == example.expected)
    }

    // MARK: - Methods and empty caches

    @Test func emptyCacheIsAMissOrUnsatisfiable() {
        #expect(HTTPCachePolicy.decide(request: request(), variants: [], now: t0) == .miss)
        let onlyIfCached = request([("Cache-Control", "only-if-cached")])
        #expect(HTTPCachePolicy.decide(request: onlyIfCached, variants: [], now: t0) == .unsatisfiable)
    }

    @Test(arguments: [HTTPMethod.post, .put, .delete, .patch, .options, HTTPMethod(rawValue: "PURGE")])
    func onlyGetAndHeadUseTheCache(method: HTTPMethod) {
        let fresh = stored([("Cache-Control", "max-age=100")])
        #expect(HTTPCachePolicy.decide(request: request(method: method), variants: [fresh], now: t0) == .miss)
    }

    @Test func headIsAnsweredFromAStoredGet() {
        // RFC 9110 §9.3.2: HEAD gets the header fields a GET would.
        let fresh = stored([("Cache-Control", "max-age=100")])
        let decision = HTTPCachePolicy.decide(request: request(method: .head), variants: [fresh], now: t0)
        #expect(decision == .fresh(variant: 0, age: 0))
    }

    // MARK: - Variants (RFC 9111 §4.1)

    @Test func selectsTheVariantMatchingTheRequest() {
        // Given: a gzip and a br variant of one URL.
        let gzip = stored(
            [("Vary", "Accept-Encoding"), ("Cache-Control", "max-age=100")],
            varyKey: "accept-encoding: gzip"
        )
        let brotli = stored(
            [("Vary", "Accept-Encoding"), ("Cache-Control", "max-age=100")],
            varyKey: "accept-encoding: br"
        )
        // Then
        let wantsBrotli = request([("Accept-Encoding", "br")])
        #expect(
            HTTPCachePolicy.decide(request: wantsBrotli, variants: [gzip, brotli], now: t0)
                == .fresh(variant: 1, age: 0)
        )
        let wantsNothing = request()
        #expect(HTTPCachePolicy.decide(request: wantsNothing, variants: [gzip, brotli], now: t0) == .miss)
    }

    @Test func storedVaryAsteriskNeverMatches() {
        // §4.1: "A stored response with a Vary header field value containing a member "*" always fails to match."
        let any = stored([("Vary", "*"), ("Cache-Control", "max-age=100")], varyKey: "")
        #expect(HTTPCachePolicy.decide(request: request(), variants: [any], now: t0) == .miss)
    }

    @Test func mostRecentMatchingVariantIsSelected() {
        // §4.1: several matching responses: use the most recent, by Date.
        let older = stored([("Cache-Control", "max-age=1000"), ("ETag", #""old""#)], received: 0)
        let newer = stored([("Cache-Control", "max-age=1000"), ("ETag", #""new""#)], sent: 10, received: 10)
        let newerByDateOnly = stored(
            [("Cache-Control", "max-age=1000"), ("Date", httpDate(20))],
            received: 5,
            addDate: false
        )
        #expect(HTTPCachePolicy.matchingVariants([older, newer], request: HTTPHeaders()) == [1, 0])
        #expect(
            HTTPCachePolicy.matchingVariants([newer, newerByDateOnly, older], request: HTTPHeaders()) == [1, 0, 2]
        )
        #expect(
            HTTPCachePolicy.decide(request: request(), variants: [older, newer], now: t0.addingTimeInterval(10))
                == .fresh(variant: 1, age: 0)
        )
    }

    @Test func validationOffersTheEntityTagsOfEveryMatchingVariant() {
        // §4.3.1: a cache validating several stored responses may list all their entity tags.
        let first = stored([("Cache-Control", "max-age=10"), ("ETag", #""a""#)], received: 0)
        let second = stored(
            [("Cache-Control", "max-age=10"), ("ETag", #"W/"b""#), ("Last-Modified", httpDate(-100))],
            received: 5
        )
        let duplicate = stored([("Cache-Control", "max-age=10"), ("ETag", #""a""#)], received: 1)
        let decision = HTTPCachePolicy.decide(
            request: request(),
            variants: [first, second, duplicate],
            now: t0.addingTimeInterval(100)
        )
        #expect(
            decision
                == .validate(
                    variant: 1,
                    conditionalHeaders: headers([
                        ("If-None-Match", #"W/"b", "a""#), ("If-Modified-Since", httpDate(-100)),
                    ])
                )
        )
    }
}
