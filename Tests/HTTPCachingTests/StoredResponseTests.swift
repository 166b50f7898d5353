import Foundation
import HTTPCore
import Testing

@testable import HTTPCaching

struct StoredResponseTests {
    // MARK: - Header values (RFC 9111 §5.1, §5.3)

    @Test(arguments: [
        ("§5.1 valid", ["30"], 30),
        ("§5.1 absent", [], 0),
        ("§5.1 not a number is ignored", ["abc"], 0),
        ("§5.1 negative is ignored", ["-5"], 0),
        ("§5.1 a list: the first member", ["10, 20"], 10),
        ("§5.1 several lines: the first value", ["10", "20"], 10),
        ("§5.1 a list whose first member is invalid is ignored", ["x, 20"], 0),
        ("§5.1 a first line that is invalid is ignored", ["-1", "20"], 0),
        ("§5.1 a fraction is invalid", ["1.5"], 0),
        ("§5.1 an empty first member is invalid", [", 20"], 0),
        ("§5.1 surrounding whitespace is allowed", [" 7 "], 7),
        ("§1.2.2 overflow clamps to 2^31", ["99999999999999"], 2_147_483_648),
    ])
    func ageValue(rule: String, lines: [String], expected: Int) {
        let response = stored(lines.map { ("Age", $0) })
        #expect(response.ageValue == expected, "\(rule)")
    }

    @Test(arguments: [
        ("§5.3 valid", "Sun, 06 Nov 1994 08:49:37 GMT", Date(timeIntervalSince1970: 784_111_777)),
        ("§5.3 zero means already expired", "0", Date.distantPast),
        ("§5.3 -1 means already expired", "-1", Date.distantPast),
        ("§5.3 garbage means already expired", "tomorrow", Date.distantPast),
        ("§5.3 empty means already expired", "", Date.distantPast),
        ("RFC 9110 §5.6.7 rfc850-date", "Sunday, 06-Nov-94 08:49:37 GMT", Date(timeIntervalSince1970: 784_111_777)),
        ("RFC 9110 §5.6.7 asctime-date", "Sun Nov  6 08:49:37 1994", Date(timeIntervalSince1970: 784_111_777)),
        ("RFC 9110 §5.6.7 one-digit hour", "Sun, 06 Nov 1994 8:49:37 GMT", Date.distantPast),
        ("RFC 9110 §5.6.7 one-digit day", "Sun, 6 Nov 1994 08:49:37 GMT", Date.distantPast),
        ("RFC 9110 §5.6.7 dashes in an IMF-fixdate", "Sun, 06-Nov-1994 08:49:37 GMT", Date.distantPast),
        ("RFC 9110 §5.6.7 missing comma", "Sun 06 Nov 1994 08:49:37 GMT", Date.distantPast),
        ("RFC 9110 §5.6.7 extra space", "Sun,  06 Nov 1994 08:49:37 GMT", Date.distantPast),
        ("RFC 9110 §5.6.7 lowercase month", "Sun, 06 nov 1994 08:49:37 GMT", Date.distantPast),
        ("RFC 9110 §5.6.7 another zone", "Sun, 06 Nov 1994 08:49:37 UTC", Date.distantPast),
        ("RFC 9110 §5.6.7 two-digit year in IMF-fixdate", "Sun, 06 Nov 94 08:49:37 GMT", Date.distantPast),
        ("RFC 9110 §5.6.7 asctime with a two-digit day padded by zero", "Sun Nov 06 08:49:37 1994",
         Date(timeIntervalSince1970: 784_111_777)),
        ("RFC 9110 §5.6.7 asctime with one space before a one-digit day", "Sun Nov 6 08:49:37 1994",
         Date.distantPast),
        ("RFC 9110 §5.6.7 no such day", "Mon, 31 Feb 2025 08:49:37 GMT", Date.distantPast),
        ("RFC 9110 §5.6.7 hour 24", "Sun, 06 Nov 1994 24:00:00 GMT", Date.distantPast),
        ("RFC 9110 §5.6.7 short rfc850 day name", "Sun, 06-Nov-94 08:49:37 GMT", Date.distantPast),
    ])
    func expiresValue(rule: String, value: String, expected: Date) {
        #expect(stored([("Expires", value)]).expires == expected, "\(rule)")
    }

    @Test(arguments: [
        ("§5.3 the same date on two lines", ["Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT"],
         Date(timeIntervalSince1970: 784_111_777)),
        ("§5.3 two lines with different dates", ["Sun, 06 Nov 1994 08:49:37 GMT", "Mon, 07 Nov 1994 08:49:37 GMT"],
         Date.distantPast),
        ("§5.3 a date and a zero", ["Sun, 06 Nov 1994 08:49:37 GMT", "0"], Date.distantPast),
    ])
    func expiresOnSeveralLines(rule: String, lines: [String], expected: Date) {
        #expect(stored(lines.map { ("Expires", $0) }).expires == expected, "\(rule)")
    }

    @Test func invalidExpiresMakesTheResponseStaleAtOnce() {
        // §5.3: an invalid Expires means "already expired", so without max-age the lifetime is 0.
        let response = stored([("Expires", "Sun, 06 Nov 1994 8:49:37 GMT")])
        #expect(response.freshnessLifetime == 0)
        #expect(!response.isFresh(now: t0))
        // §5.3: max-age wins over Expires, valid or not.
        #expect(stored([("Expires", "0"), ("Cache-Control", "max-age=60")]).freshnessLifetime == 60)
    }

    @Test func readsValidatorsAndImmutable() {
        let response = stored([
            ("ETag", #"W/"v1""#), ("Last-Modified", "Sun, 06 Nov 1994 08:49:37 GMT"),
            ("Cache-Control", "max-age=60, IMMUTABLE"),
        ])
        #expect(response.etag == EntityTag(opaqueTag: "v1", isWeak: true))
        #expect(response.lastModified == Date(timeIntervalSince1970: 784_111_777))
        #expect(response.isImmutable)
        #expect(response.hasValidator)
        #expect(stored([("ETag", "unquoted")]).etag == nil)
        #expect(stored([("Last-Modified", "yesterday")]).lastModified == nil)
        #expect(!stored([]).hasValidator)
        #expect(stored([]).expires == nil)
    }

    // MARK: - Age (RFC 9111 §4.2.3)

    struct AgeCase: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var date: TimeInterval?
        var age: String?
        var sent: TimeInterval
        var received: TimeInterval
        var now: TimeInterval
        var expected: TimeInterval
    }

    @Test(arguments: [
        AgeCase(testDescription: "§4.2.3 resident time only", date: 0, sent: 0, received: 0, now: 10, expected: 10),
        AgeCase(
            testDescription: "§4.2.3 apparent age when the origin's Date lags receipt",
            date: -60,
            sent: 0,
            received: 0,
            now: 0,
            expected: 60
        ),
        AgeCase(
            testDescription: "§4.2.3 apparent age is never negative (origin clock ahead)",
            date: 60,
            sent: 0,
            received: 0,
            now: 5,
            expected: 5
        ),
        AgeCase(
            testDescription: "§4.2.3 corrected Age adds the response delay",
            date: 0,
            age: "30",
            sent: -2,
            received: 0,
            now: 0,
            expected: 32
        ),
        AgeCase(
            testDescription: "§4.2.3 the larger of apparent and corrected age wins",
            date: -100,
            age: "30",
            sent: 0,
            received: 0,
            now: 0,
            expected: 100
        ),
        AgeCase(
            testDescription: "§4.2.3 Age beats a smaller apparent age",
            date: -10,
            age: "50",
            sent: -1,
            received: 0,
            now: 20,
            expected: 71
        ),
        AgeCase(
            testDescription: "§5.1 invalid Age is ignored",
            date: 0,
            age: "abc",
            sent: 0,
            received: 0,
            now: 3,
            expected: 3
        ),
        AgeCase(
            testDescription: "§4.2.3 missing Date gives apparent age 0",
            date: nil,
            age: nil,
            sent: -4,
            received: 0,
            now: 6,
            expected: 10
        ),
        AgeCase(
            testDescription: "§4.2.3 a clock before receipt adds no resident time",
            date: 0,
            sent: 0,
            received: 0,
            now: -50,
            expected: 0
        ),
    ])
    func currentAge(_ example: AgeCase) {
        var pairs: [(String, String)] = []
        if let date = example.date { pairs.append(("Date", httpDate(date))) }
        if let age = example.age { pairs.append(("Age", age)) }
        let response = stored(pairs, sent: example.sent, received: example.received, addDate: false)
        #expect(response.currentAge(now: t0.addingTimeInterval(example.now)) == example.expected)
    }

    // MARK: - Freshness lifetime (RFC 9111 §4.2.1, §4.2.2)

    @Test(arguments: [
        ("§4.2.1 max-age", 200, [("Cache-Control", "max-age=60")], 60.0),
        ("§4.2.1 max-age wins over Expires", 200, [("Cache-Control", "max-age=60"), ("Expires", httpDate(600))], 60),
        ("§4.2.1 Expires minus Date", 200, [("Expires", httpDate(120))], 120),
        ("§4.2.1 Expires before Date gives 0", 200, [("Expires", httpDate(-120))], 0),
        ("§5.3 Expires 0 gives 0", 200, [("Expires", "0")], 0),
        (
            "§4.2.1 invalid max-age is stale despite Expires", 200,
            [("Cache-Control", "max-age=x"), ("Expires", httpDate(120))], 0
        ),
        (
            "§4.2.1 repeated max-age: first occurrence", 200,
            [("Cache-Control", "max-age=60"), ("Cache-Control", "max-age=10")], 60
        ),
        ("§5.3 Expires lines that differ are invalid: expired", 200,
         [("Expires", httpDate(30)), ("Expires", httpDate(90))], 0),
        ("§1.2.2 huge max-age clamps to 2^31", 200, [("Cache-Control", "max-age=99999999999")], 2_147_483_648),
        ("§4.2.2 heuristic: 10% of Date minus Last-Modified", 200, [("Last-Modified", httpDate(-1000))], 100),
        ("§4.2.2 heuristic capped at 7 days", 200, [("Last-Modified", httpDate(-1000 * 86_400))], 604_800),
        ("§4.2.2 heuristic for 404", 404, [("Last-Modified", httpDate(-1000))], 100),
        ("§4.2.2 no heuristic for 302", 302, [("Last-Modified", httpDate(-1000))], 0),
        (
            "§4.2.2 public allows heuristic for 302", 302,
            [("Last-Modified", httpDate(-1000)), ("Cache-Control", "public")], 100
        ),
        (
            "§4.2.2 no heuristic beside an invalid Expires", 200,
            [("Last-Modified", httpDate(-1000)), ("Expires", "0")], 0
        ),
        ("§4.2.2 no Last-Modified gives 0", 200, [], 0),
        ("§4.2.2 Last-Modified after Date gives 0", 200, [("Last-Modified", httpDate(1000))], 0),
        (
            "§5.2.2.10 s-maxage ignored by a private cache", 200,
            [("Cache-Control", "s-maxage=600"), ("Last-Modified", httpDate(-1000))], 100
        ),
    ])
    func freshnessLifetime(rule: String, status: Int, pairs: [(String, String)], expected: TimeInterval) {
        #expect(stored(pairs, status: status).freshnessLifetime == expected, "\(rule)")
    }

    @Test func expiresWithoutDateUsesReceiptTime() {
        // §4.2.1: "using the time the message was received if it is not present".
        let response = stored([("Expires", httpDate(130))], received: 40, addDate: false)
        #expect(response.freshnessLifetime == 90)
    }

    @Test func heuristicUsesReceiptTimeWithoutDate() {
        let response = stored([("Last-Modified", httpDate(-500))], received: 500, addDate: false)
        #expect(response.freshnessLifetime == 100)
        #expect(response.heuristicFreshnessLifetime == 100)
        #expect(stored([("Cache-Control", "max-age=5")]).heuristicFreshnessLifetime == nil)
    }

    // MARK: - Store columns

    @Test func freshUntilIsWhenCurrentAgeReachesLifetime() {
        // Given: max-age=100, Age: 10, received one second after sending.
        let response = stored([("Cache-Control", "max-age=100"), ("Age", "10")], sent: -1, received: 0)
        // Then: corrected initial age 11, so fresh until t0 + 89 (§4.2.3, §4.2).
        #expect(response.freshUntil == t0.addingTimeInterval(89))
        #expect(response.isFresh(now: t0.addingTimeInterval(88.5)))
        #expect(!response.isFresh(now: t0.addingTimeInterval(89)))
        #expect(response.staleness(now: t0.addingTimeInterval(99)) == 10)
        #expect(response.staleness(now: t0) == 0)
    }

    @Test func noCacheResponseIsNeverFreshForTheStore() {
        // §5.2.2.4: every reuse needs validation, so freshUntil is the receipt instant minus the initial age.
        let response = stored([("Cache-Control", "max-age=100, no-cache"), ("Age", "5")])
        #expect(response.freshUntil == t0.addingTimeInterval(-5))
        #expect(response.freshnessLifetime == 100)
        #expect(response.staleUntil == nil)
    }

    @Test(arguments: [
        ("RFC 5861 §3 stale-while-revalidate", "max-age=100, stale-while-revalidate=30", 130.0 as TimeInterval?),
        ("RFC 5861 §4 stale-if-error", "max-age=100, stale-if-error=60", 160),
        ("RFC 5861 the larger window", "max-age=100, stale-while-revalidate=30, stale-if-error=60", 160),
        ("§5.2.2.2 must-revalidate forbids stale use", "max-age=100, stale-if-error=60, must-revalidate", nil),
        ("§5.2.2.4 no-cache forbids stale use", "max-age=100, stale-while-revalidate=60, no-cache", nil),
        ("no stale directive", "max-age=100", nil),
    ])
    func staleUntil(rule: String, cacheControl: String, expectedOffset: TimeInterval?) {
        let response = stored([("Cache-Control", cacheControl)])
        #expect(response.staleUntil == expectedOffset.map { t0.addingTimeInterval($0) }, "\(rule)")
    }

    @Test func initComputesSecondaryKeyAndRefusesVaryAsterisk() throws {
        let get = request([("Accept-Encoding", "gzip")])
        let made = try #require(
            StoredResponse(
                request: get,
                response: HTTPResponseHead(status: 200, headers: ["Vary": "Accept-Encoding"]),
                requestTime: t0,
                responseTime: t0
            )
        )
        #expect(made.varyKey == "accept-encoding: gzip")
        #expect(
            StoredResponse(
                request: get,
                response: HTTPResponseHead(status: 200, headers: ["Vary": "*"]),
                requestTime: t0,
                responseTime: t0
            ) == nil
        )
    }
}
