import Foundation
import HTTPCore
import Testing

@testable import HTTPCaching

struct NotModifiedTests {
    // MARK: - Selecting stored responses (RFC 9111 §4.3.4)

    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        /// Each stored response's validators; received one second apart, in order.
        var stored: [[(String, String)]]
        var notModified: [(String, String)]
        var expected: [Int]
    }

    static let lastModified = "Sun, 06 Nov 1994 08:49:37 GMT"

    @Test(arguments: [
        Case(
            testDescription: "§4.3.4 strong ETag selects every response with it",
            stored: [[("ETag", #""a""#)], [("ETag", #""b""#)], [("ETag", #""a""#)]],
            notModified: [("ETag", #""a""#)],
            expected: [0, 2]
        ),
        Case(
            testDescription: "§4.3.4 strong ETag matching nothing updates nothing",
            stored: [[("ETag", #""a""#)], [("ETag", #""b""#)]],
            notModified: [("ETag", #""c""#)],
            expected: []
        ),
        Case(
            testDescription: "§4.3.4 strong ETag never matches a weak stored tag",
            stored: [[("ETag", #"W/"a""#)]],
            notModified: [("ETag", #""a""#)],
            expected: []
        ),
        Case(
            testDescription: "§4.3.4 strong ETag ignores Last-Modified",
            stored: [[("Last-Modified", lastModified)]],
            notModified: [("ETag", #""a""#), ("Last-Modified", lastModified)],
            expected: []
        ),
        Case(
            testDescription: "§4.3.4 weak ETag selects the most recent match",
            stored: [[("ETag", #"W/"a""#)], [("ETag", #""a""#)], [("ETag", #"W/"b""#)]],
            notModified: [("ETag", #"W/"a""#)],
            expected: [1]
        ),
        Case(
            testDescription: "§4.3.4 weak ETag matching nothing updates nothing",
            stored: [[("ETag", #"W/"a""#)]],
            notModified: [("ETag", #"W/"z""#)],
            expected: []
        ),
        Case(
            testDescription: "§4.3.4 Last-Modified selects the most recent match",
            stored: [[("Last-Modified", lastModified)], [("Last-Modified", lastModified)], [("ETag", #""x""#)]],
            notModified: [("Last-Modified", lastModified)],
            expected: [1]
        ),
        Case(
            testDescription: "§4.3.4 Last-Modified matching nothing updates nothing",
            stored: [[("Last-Modified", lastModified)]],
            notModified: [("Last-Modified", "Mon, 07 Nov 1994 08:49:37 GMT")],
            expected: []
        ),
        Case(
            testDescription: "§4.3.4 no validators: the only stored response without validators",
            stored: [[]],
            notModified: [],
            expected: [0]
        ),
        Case(
            testDescription: "§4.3.4 no validators: not a stored response that has one",
            stored: [[("ETag", #""a""#)]],
            notModified: [],
            expected: []
        ),
        Case(
            testDescription: "§4.3.4 no validators: not when several are stored",
            stored: [[], []],
            notModified: [],
            expected: []
        ),
        Case(testDescription: "§4.3.4 nothing stored", stored: [], notModified: [("ETag", #""a""#)], expected: []),
    ])
    func selectsResponsesToFreshen(_ example: Case) {
        let variants = example.stored.enumerated().map { index, pairs in
            stored(pairs, sent: TimeInterval(index), received: TimeInterval(index))
        }
        let notModified = HTTPResponseHead(status: 304, headers: headers(example.notModified))
        #expect(HTTPCachePolicy.variantsToFreshen(variants, notModified: notModified) == example.expected)
    }

    // MARK: - Merging header fields (RFC 9111 §3.2)

    @Test func mergeReplacesUpdatesAndKeepsTheRest() {
        // Given
        let stored = headers([
            ("Content-Type", "text/html"), ("Cache-Control", "max-age=60"), ("Cache-Control", "public"),
            ("Content-Length", "120"), ("X-Kept", "yes"), ("Date", httpDate(0)), ("ETag", #""a""#),
        ])
        let notModified = headers([
            ("Date", httpDate(100)), ("cache-control", "max-age=300"), ("Content-Length", "0"),
            ("Content-Type", "text/plain"), ("X-New", "1"), ("X-New", "2"), ("Connection", "keep-alive, X-Hop"),
            ("X-Hop", "h"), ("Keep-Alive", "timeout=5"), ("Transfer-Encoding", "chunked"),
        ])
        // When
        let merged = HTTPCachePolicy.mergedHeaders(stored: stored, notModified: notModified)
        // Then: replaced in place (Content-Type too, §3.2), Content-Length and hop-by-hop fields kept out,
        // new fields appended.
        #expect(
            merged.fields
                == headers([
                    ("Content-Type", "text/plain"), ("cache-control", "max-age=300"), ("Content-Length", "120"),
                    ("X-Kept", "yes"), ("Date", httpDate(100)), ("ETag", #""a""#), ("X-New", "1"), ("X-New", "2"),
                ]).fields
        )
    }

    @Test(arguments: [
        ("§3.2 Content-Type is updated", "Content-Type", "text/plain", true),
        ("§3.2 Content-Length is never updated", "Content-Length", "7", false),
        ("§3.2 Content-Encoding: the stored body may be decoded", "Content-Encoding", "br", false),
        ("§3.2 Content-Range is processed, not kept", "Content-Range", "bytes 0-1/2", false),
        ("§3.1 Connection", "Connection", "close", false),
        ("§3.1 Keep-Alive", "Keep-Alive", "timeout=5", false),
        ("§3.1 TE", "TE", "trailers", false),
        ("§3.1 Transfer-Encoding", "Transfer-Encoding", "chunked", false),
        ("§3.1 Upgrade", "Upgrade", "h2c", false),
        ("§3.1 Proxy-Authenticate", "Proxy-Authenticate", "Basic", false),
        ("§3.1 Proxy-Authentication-Info", "Proxy-Authentication-Info", "x", false),
        ("§3.1 Proxy-Connection", "Proxy-Connection", "keep-alive", false),
        ("§3.2 Cache-Control is updated", "Cache-Control", "max-age=9", true),
        ("§3.2 Expires is updated", "Expires", "Sun, 06 Nov 1994 08:49:37 GMT", true),
    ])
    func mergeUpdatesAllButTheExcludedFields(rule: String, name: String, value: String, updated: Bool) {
        let stored = headers([(name, "stored-value")])
        let merged = HTTPCachePolicy.mergedHeaders(stored: stored, notModified: headers([(name, value)]))
        #expect(merged[name] == (updated ? value : "stored-value"), "\(rule)")
    }

    @Test func mergeLeavesOutTheFieldsAConnectionHeaderNames() {
        // RFC 9110 §7.6.1: the options of Connection name hop-by-hop fields of that message.
        let merged = HTTPCachePolicy.mergedHeaders(
            stored: headers([("X-Trace", "old")]),
            notModified: headers([("Connection", "X-Trace"), ("X-Trace", "new"), ("X-Other", "1")]))
        #expect(merged.fields == headers([("X-Trace", "old"), ("X-Other", "1")]).fields)
    }

    @Test func messageDatesComeFromThe304Only() {
        // RFC 9111 §5.1, RFC 9110 §6.6.1: Date and Age belong to the message that carried them.
        let stored = headers([("Date", httpDate(0)), ("Age", "1000"), ("Cache-Control", "max-age=60")])
        let withoutDates = HTTPCachePolicy.mergedHeaders(stored: stored, notModified: headers([("ETag", #""a""#)]))
        #expect(withoutDates.fields == headers([("Cache-Control", "max-age=60"), ("ETag", #""a""#)]).fields)
        let withDates = HTTPCachePolicy.mergedHeaders(
            stored: stored,
            notModified: headers([("Age", "3"), ("Date", httpDate(50))])
        )
        #expect(
            withDates.fields
                == headers([("Date", httpDate(50)), ("Age", "3"), ("Cache-Control", "max-age=60")]).fields
        )
    }

    @Test func freshenedResponseRestartsItsAge() {
        // Given: stored at t0 with max-age=60; stale at t0 + 100.
        let original = stored(
            [("Cache-Control", "max-age=60"), ("ETag", #""a""#), ("Content-Length", "5"), ("Vary", "Accept")],
            varyKey: "accept"
        )
        #expect(!original.isFresh(now: t0.addingTimeInterval(100)))
        // When: a 304 arrives at t0 + 100.
        let notModified = HTTPResponseHead(
            status: 304,
            headers: headers([("Date", httpDate(100)), ("ETag", #""a""#), ("Cache-Control", "max-age=90")])
        )
        let freshened = original.freshened(
            with: notModified,
            requestTime: t0.addingTimeInterval(99),
            responseTime: t0.addingTimeInterval(100)
        )
        // Then
        #expect(freshened.status == 200)
        #expect(freshened.varyKey == "accept")
        #expect(freshened.headers["Content-Length"] == "5")
        #expect(freshened.freshnessLifetime == 90)
        #expect(freshened.currentAge(now: t0.addingTimeInterval(150)) == 51)
        #expect(freshened.freshUntil == t0.addingTimeInterval(189))
        #expect(
            HTTPCachePolicy.decide(request: request(), variants: [freshened], now: t0.addingTimeInterval(150))
                == .fresh(variant: 0, age: 51)
        )
    }
}
