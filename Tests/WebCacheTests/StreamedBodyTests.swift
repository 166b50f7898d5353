import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

@testable import WebCache

/// A streamed request body is sent once: redirects that would send it again are not followed.
@Suite(.timeLimit(.minutes(5)))
struct StreamedBodyTests {
    @Test(arguments: [307, 308])
    func aRedirectThatWouldSendTheStreamAgainIsReturnedNotFollowed(status: Int) async throws {
        try await withCache(origin: { request in
            request.path == "/old"
                ? OriginResponse(status: status, headers: ["Location": "/new"])
                : .text("\(request.method) \(request.body.count)")
        }) { origin, cache in
            let response = try await cache.data(
                for: WebRequest("old", method: .post, bodyStream: Self.stream("hello")))
            #expect(response.status == status)
            #expect(response.headers["Location"] == "/new")
            #expect(origin.requests.map(\.path) == ["/old"])
            #expect(origin.requests.map(\.bodyLength) == [5])
        }
    }

    @Test func a303AfterAStreamedBodyIsFollowedWithoutContent() async throws {
        try await withCache(origin: { request in
            request.path == "/old"
                ? OriginResponse(status: 303, headers: ["Location": "/new"])
                : .text("\(request.method) \(request.body.count)")
        }) { origin, cache in
            let response = try await cache.data(
                for: WebRequest("old", method: .post, bodyStream: Self.stream("hello")))
            #expect(response.text == "GET 0")
            #expect(origin.requests.map(\.path) == ["/old", "/new"])
        }
    }

    /// A stream already holding all of `text`.
    private static func stream(_ text: String) -> RequestBodyStream {
        let stream = RequestBodyStream(length: Int64(text.utf8.count))
        stream.write(Data(text.utf8))
        stream.finish()
        return stream
    }
}
