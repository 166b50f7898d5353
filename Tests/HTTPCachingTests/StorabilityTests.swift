import HTTPCore
import Testing

@testable import HTTPCaching

struct StorabilityTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var method: HTTPMethod = .get
        var request: [(String, String)] = []
        var status: Int = 200
        var response: [(String, String)] = []
        var expected: CacheStorability
    }

    static let maxAge: (String, String) = ("Cache-Control", "max-age=60")

    @Test(arguments: [
        Case(testDescription: "§3 GET 200 with max-age", response: [maxAge], expected: .storable),
        Case(
            testDescription: "§3 HEAD is not stored",
            method: .head,
            response: [maxAge],
            expected: .notStorable(.methodNotCacheable)
        ),
        Case(
            testDescription: "§3 POST is not stored",
            method: .post,
            response: [maxAge],
            expected: .notStorable(.methodNotCacheable)
        ),
        Case(
            testDescription: "§3 1xx is not final",
            status: 103,
            response: [maxAge],
            expected: .notStorable(.nonFinalStatus)
        ),
        Case(
            testDescription: "§3.3 206 without Content-Range is not stored",
            status: 206,
            response: [maxAge, ("ETag", #""p""#)],
            expected: .notStorable(.partialContent)
        ),
        Case(
            testDescription: "§3.3 206 with one range of a known length and a strong ETag is stored as a part",
            status: 206,
            response: [maxAge, ("ETag", #""p""#), ("Content-Range", "bytes 0-9/100")],
            expected: .storable
        ),
        Case(
            testDescription: "§3.4 206 with a weak ETag cannot be combined, so is not stored",
            status: 206,
            response: [maxAge, ("ETag", #"W/"p""#), ("Content-Range", "bytes 0-9/100")],
            expected: .notStorable(.partialContent)
        ),
        Case(
            testDescription: "§3.4 206 without ETag is not stored",
            status: 206,
            response: [maxAge, ("Content-Range", "bytes 0-9/100")],
            expected: .notStorable(.partialContent)
        ),
        Case(
            testDescription: "§3.3 206 of an unknown complete length is not stored",
            status: 206,
            response: [maxAge, ("ETag", #""p""#), ("Content-Range", "bytes 0-9/*")],
            expected: .notStorable(.partialContent)
        ),
        Case(
            testDescription: "§3.3 206 multipart/byteranges is not stored",
            status: 206,
            response: [maxAge, ("ETag", #""p""#), ("Content-Type", "multipart/byteranges; boundary=B")],
            expected: .notStorable(.partialContent)
        ),
        Case(
            testDescription: "§3.3 206 of coded content is not stored",
            status: 206,
            response: [maxAge, ("ETag", #""p""#), ("Content-Range", "bytes 0-9/100"), ("Content-Encoding", "gzip")],
            expected: .notStorable(.partialContent)
        ),
        Case(
            testDescription: "§3.3 a part follows the other rules: no-store",
            status: 206,
            response: [("Cache-Control", "no-store"), ("ETag", #""p""#), ("Content-Range", "bytes 0-9/100")],
            expected: .notStorable(.responseNoStore)
        ),
        Case(
            testDescription: "§4.3.4 304 is not stored",
            status: 304,
            response: [maxAge],
            expected: .notStorable(.notModified)
        ),
        Case(
            testDescription: "§5.2.1.5 request no-store",
            request: [("Cache-Control", "no-store")],
            response: [maxAge],
            expected: .notStorable(.requestNoStore)
        ),
        Case(
            testDescription: "§5.2.2.5 response no-store",
            response: [("Cache-Control", "max-age=60, NO-STORE")],
            expected: .notStorable(.responseNoStore)
        ),
        Case(
            testDescription: "§5.2.2.3 must-understand with an understood status overrides no-store",
            response: [("Cache-Control", "max-age=60, no-store, must-understand")],
            expected: .storable
        ),
        Case(
            testDescription: "§5.2.2.3 must-understand with an unknown status",
            status: 299,
            response: [("Cache-Control", "max-age=60, no-store, must-understand")],
            expected: .notStorable(.statusNotUnderstood)
        ),
        Case(
            testDescription: "§5.2.2.7 private is storable in a private cache",
            response: [("Cache-Control", "private")],
            expected: .storable
        ),
        Case(
            testDescription: "§3 public alone permits storing",
            status: 302,
            response: [("Cache-Control", "public")],
            expected: .storable
        ),
        Case(
            testDescription: "§3 Expires permits storing",
            status: 302,
            response: [("Expires", "0")],
            expected: .storable
        ),
        Case(testDescription: "§3 max-age permits storing", status: 302, response: [maxAge], expected: .storable),
        Case(testDescription: "§3 heuristically cacheable 200 without freshness", response: [], expected: .storable),
        Case(testDescription: "§3 heuristically cacheable 404", status: 404, expected: .storable),
        Case(testDescription: "§3 heuristically cacheable 301", status: 301, expected: .storable),
        Case(testDescription: "§3 heuristically cacheable 410", status: 410, expected: .storable),
        Case(
            testDescription: "§3 302 without freshness",
            status: 302,
            response: [("ETag", #""a""#)],
            expected: .notStorable(.noCachingPermission)
        ),
        Case(testDescription: "§3 500 without freshness", status: 500, expected: .notStorable(.noCachingPermission)),
        Case(
            testDescription: "§3 s-maxage alone does not permit a private cache",
            status: 302,
            response: [("Cache-Control", "s-maxage=60")],
            expected: .notStorable(.noCachingPermission)
        ),
        Case(
            testDescription: "§5.2.2.4 no-cache responses are stored (and validated)",
            response: [("Cache-Control", "no-cache")],
            expected: .storable
        ),
        Case(
            testDescription: "§3.5 Authorization without permission",
            request: [("Authorization", "Bearer t")],
            response: [maxAge],
            expected: .notStorable(.authorizationWithoutPermission)
        ),
        Case(
            testDescription: "§3.5 Authorization with public",
            request: [("Authorization", "Bearer t")],
            response: [("Cache-Control", "public, max-age=60")],
            expected: .storable
        ),
        Case(
            testDescription: "§3.5 Authorization with must-revalidate",
            request: [("Authorization", "Bearer t")],
            response: [("Cache-Control", "must-revalidate, max-age=60")],
            expected: .storable
        ),
        Case(
            testDescription: "§3.5 Authorization with s-maxage",
            request: [("authorization", "Bearer t")],
            response: [("Cache-Control", "s-maxage=60")],
            expected: .storable
        ),
        Case(
            testDescription: "§4.1 Vary: * can never be reused",
            response: [maxAge, ("Vary", "Accept, *")],
            expected: .notStorable(.varyAsterisk)
        ),
        Case(
            testDescription: "§4.1 ordinary Vary is storable",
            response: [maxAge, ("Vary", "Accept-Encoding")],
            expected: .storable
        ),
    ])
    func storability(_ example: Case) {
        let response = HTTPResponseHead(status: example.status, headers: headers(example.response))
        let decision = HTTPCachePolicy.storability(
            request: request(example.request, method: example.method), response: response)
        #expect(decision == example.expected)
        // The same with the directives read by the caller, as a stored response holds them.
        let given = HTTPCachePolicy.storability(
            request: request(example.request, method: example.method), response: response,
            directives: ResponseCacheControl(headers: response.headers))
        #expect(given == example.expected)
    }

    @Test func directivesGivenByTheCallerAreTheOnesRead() {
        let response = HTTPResponseHead(status: 200, headers: headers([Self.maxAge]))
        let noStore = ResponseCacheControl(headers: headers([("Cache-Control", "no-store")]))
        #expect(HTTPCachePolicy.storability(request: request([], method: .get), response: response, directives: noStore)
            == .notStorable(.responseNoStore))
        let isPublic = ResponseCacheControl(headers: headers([("Cache-Control", "public")]))
        let unpermitted = HTTPResponseHead(status: 299, headers: headers([]))
        #expect(HTTPCachePolicy.storability(request: request([], method: .get), response: unpermitted)
            == .notStorable(.noCachingPermission))
        #expect(HTTPCachePolicy.storability(request: request([], method: .get), response: unpermitted,
                                            directives: isPublic) == .storable)
    }

    @Test func partitionedCredentialsLiftTheSharedCacheAuthorizationRule() {
        // §3.5 is written for shared caches: a response kept in its identity's own partition may be stored.
        let decision = HTTPCachePolicy.storability(
            request: request([("Authorization", "Bearer t")], method: .get),
            response: HTTPResponseHead(status: 200, headers: headers([("Cache-Control", "private, max-age=60")])),
            credentialsArePartitioned: true
        )
        #expect(decision == .storable)
    }

    @Test func reasonsReadAsPhrasesForLogs() {
        for reason in CacheStorability.Reason.allCases {
            #expect(!reason.rawValue.isEmpty)
            #expect(reason.rawValue.first?.isLowercase == true)
        }
        #expect(Set(CacheStorability.Reason.allCases.map(\.rawValue)).count == CacheStorability.Reason.allCases.count)
    }
}
