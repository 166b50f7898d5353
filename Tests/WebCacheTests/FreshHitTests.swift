import CacheStore
import Foundation
import HTTPCaching
import HTTPCore
import Testing

@testable import WebCache

/// The hit path decides a lone variant's freshness from the instant stored with it
/// (`Loader.freshAlone`); wherever it answers, the rules (`HTTPCachePolicy.decide`) must answer the
/// same, with the same age, and where the rules find a lone variant fresh for a request without
/// directives (and the clock has not gone back), it must answer too. Checked over every pairing of stored responses and requests below.
struct FreshHitTests {
    static let received = Date(timeIntervalSince1970: 1_800_000_000.25)
    static let url = URL(string: "https://example.test/a")!

    /// Response fields, each with the Date it was sent (seconds before receipt).
    static let responses: [[(String, String)]] = [
        [("Cache-Control", "max-age=600")],
        [("Cache-Control", "max-age=600"), ("Age", "550")],
        [("Cache-Control", "max-age=600"), ("Age", "30, 90")],
        [("Cache-Control", "no-cache, max-age=600")],
        [("Cache-Control", "max-age=600, must-revalidate")],
        [("Cache-Control", "max-age=0")],
        [("Cache-Control", "s-maxage=600")],
        [("Cache-Control", "max-age=600, immutable")],
        [("Expires", HTTPDate.format(received.addingTimeInterval(120)))],
        [("Expires", "0")],
        [("Last-Modified", HTTPDate.format(received.addingTimeInterval(-86_400)))],
        [("Cache-Control", "max-age=600"), ("Vary", "Accept-Language")],
        [("Cache-Control", "max-age=600"), ("Vary", "*")],
        [("Cache-Control", "max-age=60, stale-while-revalidate=600")],
    ]
    static let dateOffsets: [TimeInterval] = [0, 200, -50]
    static let requests: [[(String, String)]] = [
        [], [("Accept-Language", "fr")], [("Cache-Control", "max-age=0")], [("Cache-Control", "min-fresh=500")],
        [("Cache-Control", "only-if-cached")], [("Pragma", "no-cache")], [("Range", "bytes=0-1")],
    ]
    static let waits: [TimeInterval] = [-5, 0, 1, 59, 100, 119, 599.75, 600, 700, 10_000]

    /// Shared by every entry of a test: each is stored under the same id, so a head worked out for
    /// one must not be served for the next (``ServedHeadCache`` compares what it was worked out from).
    let heads = ServedHeadCache()

    @Test(arguments: 0..<responses.count)
    func decidesALoneVariantAsTheRulesDo(response index: Int) {
        for offset in Self.dateOffsets {
            var fields = HTTPHeaders(Self.responses[index].map { HTTPField(name: $0.0, value: $0.1) })
            fields.append(name: "Date", value: HTTPDate.format(Self.received.addingTimeInterval(-offset)))
            // Stored as a load stores it: its Vary key from the request that fetched it, its
            // freshness instants from the rules.
            let fetchedBy = HTTPRequest(url: Self.url, headers: ["Accept-Language": "en"])
            guard let stored = StoredResponse(
                request: fetchedBy, response: HTTPResponseHead(status: 200, headers: fields),
                requestTime: Self.received.addingTimeInterval(-0.5), responseTime: Self.received)
            else { continue }
            var entry = CacheEntry(
                url: Self.url.absoluteString, varyKey: stored.varyKey, status: 200, headers: fields,
                requestTime: stored.requestTime, responseTime: stored.responseTime, freshUntil: stored.freshUntil,
                staleUntil: stored.staleUntil)
            entry.id = 1
            for requestFields in Self.requests {
                var headers = HTTPHeaders(requestFields.map { HTTPField(name: $0.0, value: $0.1) })
                if !headers.contains("Accept-Language") { headers.append(name: "Accept-Language", value: "en") }
                let request = HTTPRequest(url: Self.url, headers: headers)
                for wait in Self.waits {
                    let now = Self.received.addingTimeInterval(wait)
                    let decision = HTTPCachePolicy.decide(request: request, variants: [entry.storedResponse], now: now)
                    let fast = Loader.freshAlone([entry], request: request, now: now, heads: heads)
                    let context = "\(fields) \(headers) after \(wait) s"
                    if let (age, head) = fast {
                        #expect(decision == .fresh(variant: 0, age: age), "\(context)")
                        #expect(head.isHead(of: entry), "\(context)")
                    } else if case .fresh = decision, wait >= 0, !headers.contains("Cache-Control"),
                        !headers.contains("Pragma")
                    {
                        Issue.record("the rules found \(context) fresh, the hit path did not decide it")
                    }
                }
            }
        }
    }

    @Test func leavesSeveralVariantsAndDecodedCopiesToTheRules() {
        let fields: HTTPHeaders = ["Cache-Control": "max-age=600", "Date": HTTPDate.format(Self.received)]
        let entry = CacheEntry(
            url: Self.url.absoluteString, status: 200, headers: fields, requestTime: Self.received,
            responseTime: Self.received, freshUntil: Self.received.addingTimeInterval(600))
        var request = HTTPRequest(url: Self.url)
        let now = Self.received.addingTimeInterval(10)
        #expect(Loader.freshAlone([entry], request: request, now: now, heads: heads) != nil)
        #expect(Loader.freshAlone([entry, entry], request: request, now: now, heads: heads) == nil)
        var decoded = entry
        decoded.decodedFrom = "gzip"
        #expect(Loader.freshAlone([decoded], request: request, now: now, heads: heads) != nil)
        request.decodesContent = false
        #expect(Loader.freshAlone([decoded], request: request, now: now, heads: heads) == nil)
    }
}
