import Foundation
import HTTPCore
import Testing

@testable import HTTPCaching

struct InvalidationTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var testDescription: String
        var method: HTTPMethod = .post
        var status: Int = 200
        var response: [(String, String)] = []
        var expected: [String]
    }

    static let target = "https://example.com/a/page.html"

    @Test(arguments: [
        Case(testDescription: "§4.4 unsafe method invalidates the target", expected: [target]),
        Case(testDescription: "§4.4 3xx invalidates", method: .delete, status: 303, expected: [target]),
        Case(testDescription: "§4.4 error status does not invalidate", status: 500, expected: []),
        Case(testDescription: "§4.4 4xx does not invalidate", method: .put, status: 404, expected: []),
        Case(testDescription: "§4.4 safe GET does not invalidate", method: .get, expected: []),
        Case(testDescription: "§4.4 safe HEAD does not invalidate", method: .head, expected: []),
        Case(
            testDescription: "§4.4 unknown methods are unsafe",
            method: HTTPMethod(rawValue: "PURGE"),
            expected: [target]
        ),
        Case(
            testDescription: "§4.4 relative Location and Content-Location resolve against the target",
            response: [("Location", "/b/next.html"), ("Content-Location", "other.html")],
            expected: [target, "https://example.com/b/next.html", "https://example.com/a/other.html"]
        ),
        Case(
            testDescription: "§4.4 same origin despite case and an explicit default port (normalised)",
            response: [("Location", "HTTPS://EXAMPLE.com:443/x")],
            expected: [target, "https://example.com/x"]
        ),
        Case(
            testDescription: "§4.4 the target is normalised too",
            method: .put,
            response: [("Content-Location", "https://example.com/a/page.html")],
            expected: [target]
        ),
        Case(
            testDescription: "§4.4 other host is not invalidated",
            response: [("Location", "https://evil.example/x"), ("Content-Location", "//evil.example/y")],
            expected: [target]
        ),
        Case(
            testDescription: "§4.4 other scheme is not invalidated",
            response: [("Location", "http://example.com/x")],
            expected: [target]
        ),
        Case(
            testDescription: "§4.4 other port is not invalidated",
            response: [("Location", "https://example.com:8443/x")],
            expected: [target]
        ),
        Case(
            testDescription: "§4.4 fragments dropped and duplicates removed",
            response: [("Location", "page.html#top"), ("Content-Location", "/c")],
            expected: [target, "https://example.com/c"]
        ),
    ])
    func invalidates(_ example: Case) {
        let urls = HTTPCachePolicy.invalidatedURLs(
            request: request(method: example.method),
            response: HTTPResponseHead(status: example.status, headers: headers(example.response))
        )
        #expect(urls.map(\.absoluteString) == example.expected)
    }
}
