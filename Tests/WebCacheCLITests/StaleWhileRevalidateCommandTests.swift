import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

/// `get` of a response stale within its `stale-while-revalidate` window (RFC 5861 §3): the stale
/// response is written at once, and the command ends once the revalidation it started has, so that
/// the next run finds the entry revalidated (closing the cache cancelled it, and no run ever did).
@Suite(.timeLimit(.minutes(5)))
struct StaleWhileRevalidateCommandTests {
    @Test func getEndsOnceTheRevalidationItStartedHas() async throws {
        let folder = try TemporaryFolder()
        let server = OriginServer { request in
            .text("body", headers: ["Cache-Control": "max-age=0, stale-while-revalidate=600", "ETag": "\"v1\""])
        }
        try server.start()
        defer { server.stop() }
        let webcache = WebcacheRunner(home: folder)
        let arguments = ["get", server.url("page").absoluteString, "--store", folder.path("store.sqlite")]

        let first = try await webcache.run(arguments)
        #expect(first.stderr.hasPrefix("webcache: network 200"), "\(first.stderr)")
        let second = try await webcache.run(arguments)
        #expect(second.exitCode == 0)
        #expect(second.stdout == "body")
        #expect(second.stderr.hasPrefix("webcache: stale 200"), "\(second.stderr)")
        // The revalidation reached the origin before the command ended.
        #expect(server.requestCount == 2)
        #expect(server.requests.last?.headers["If-None-Match"] == "\"v1\"")
    }
}
