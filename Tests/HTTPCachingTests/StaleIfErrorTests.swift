import Foundation
import HTTPCore
import Testing

@testable import HTTPCaching

struct StaleIfErrorTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var response: String
        var request: [(String, String)] = []
        var callerLimit: TimeInterval?
        /// Seconds after t0; the response has max-age=10, so staleness is `now - 10`.
        var now: TimeInterval
        var expected: Bool
    }

    @Test(arguments: [
        Case(
            testDescription: "RFC 5861 §4 response window covers 50 s of staleness",
            response: "max-age=10, stale-if-error=60",
            now: 60,
            expected: true
        ),
        Case(
            testDescription: "RFC 5861 §4 response window ends",
            response: "max-age=10, stale-if-error=60",
            now: 71,
            expected: false
        ),
        Case(
            testDescription: "RFC 5861 §4 request directive alone",
            response: "max-age=10",
            request: [("Cache-Control", "stale-if-error=100")],
            now: 100,
            expected: true
        ),
        Case(
            testDescription: "RFC 5861 §4 the larger window applies",
            response: "max-age=10, stale-if-error=5",
            request: [("Cache-Control", "stale-if-error=100")],
            now: 100,
            expected: true
        ),
        Case(testDescription: "RFC 5861 §4 no permission", response: "max-age=10", now: 11, expected: false),
        Case(
            testDescription: "RFC 5861 §4 caller limit grants on its own",
            response: "max-age=10",
            callerLimit: .infinity,
            now: 1_000_000,
            expected: true
        ),
        Case(
            testDescription: "RFC 5861 §4 finite caller limit",
            response: "max-age=10",
            callerLimit: 30,
            now: 41,
            expected: false
        ),
        Case(
            testDescription: "§5.2.2.2 must-revalidate forbids it",
            response: "max-age=10, stale-if-error=60, must-revalidate",
            callerLimit: .infinity,
            now: 20,
            expected: false
        ),
        Case(
            testDescription: "§5.2.2.4 no-cache forbids it",
            response: "max-age=10, no-cache, stale-if-error=60",
            now: 20,
            expected: false
        ),
        Case(
            testDescription: "RFC 5861 §4 a fresh response qualifies",
            response: "max-age=10, stale-if-error=1",
            now: 5,
            expected: true
        ),
    ])
    func staleIfError(_ example: Case) {
        let response = stored([("Cache-Control", example.response)])
        let allowed = HTTPCachePolicy.staleIfError(
            request: request(example.request),
            stored: response,
            now: t0.addingTimeInterval(example.now),
            callerLimit: example.callerLimit
        )
        #expect(allowed == example.expected)
    }

    @Test(arguments: [(500, true), (502, true), (503, true), (504, true), (501, false), (404, false), (200, false)])
    func errorStatuses(status: Int, isError: Bool) {
        // RFC 5861 §4: "an error is any situation that would result in a 500, 502, 503, or 504".
        #expect(HTTPCachePolicy.isErrorStatus(status) == isError)
    }
}
