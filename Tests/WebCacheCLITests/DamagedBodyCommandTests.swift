import Foundation
import LocalOrigin
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// The real `webcache` executable on a store whose bodies were changed in the file: nothing serves
/// the changed bytes as the stored response.
@Suite(.timeLimit(.minutes(5)))
final class DamagedBodyCommandTests: OriginStoreFixture, @unchecked Sendable {
    /// Preloads the page (with its stylesheet and script), then zeroes the bytes of the page's body.
    private func preloadAndDamageThePage() async throws {
        let list = try folder.write(Data("page.html\n".utf8), to: "urls.txt")
        let preload = try await run("preload", list, "--instance", server.baseURL.absoluteString)
        try #require(preload.exitCode == 0, "preload failed: \(preload.stderr)")
        let page = url("/page.html")
        try await withCacheStore(at: store) { store in
            try await store.write("damage the page") { connection in
                try connection.run(
                    """
                    UPDATE body_chunk SET data = zeroblob(length(data)) \
                    WHERE body_id = (SELECT body_id FROM entry WHERE url = ?)
                    """,
                    [.text(page)])
            }
        }
    }

    @Test func getFromTheStoreOnlyRefusesTheDamagedCopyNamingTheURL() async throws {
        try await preloadAndDamageThePage()

        let result = try await run("get", "--policy", "cache-only", url("/page.html"))

        #expect(result.exitCode == 1)
        #expect(result.stdout.isEmpty)
        #expect(
            result.stderr.hasPrefix("Error: The stored copy of \(url("/page.html")) is damaged: "), "\(result.stderr)")
        #expect(result.stderr.contains(
            "'webcache verify --store \(store)' lists the damage, and 'webcache salvage \(store) NEW' copies what is "
                + "still sound into a new store."))
    }

    @Test func getAndPreloadFetchTheDamagedCopyAgain() async throws {
        try await preloadAndDamageThePage()
        let requests = server.requestCount

        let get = try await run("get", url("/page.html"))

        #expect(get.exitCode == 0, "\(get.stderr)")
        #expect(get.stdout == TestOrigin.page)
        #expect(get.stderr.contains("webcache: network 200 \(url("/page.html"))"))
        #expect(server.requestCount == requests + 1)

        // And a preload that reads the page (for another device, so its record does not stand)
        // puts a sound copy back after the next damage
        try await preloadAndDamageThePage()
        let list = try folder.write(Data("page.html\n".utf8), to: "urls.txt")
        let preload = try await run(
            "preload", list, "--instance", server.baseURL.absoluteString, "--device", "phone")
        #expect(preload.exitCode == 0, "\(preload.stderr)")
        let verify = try await run("verify")
        #expect(verify.exitCode == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(try await run("get", "--policy", "cache-only", url("/page.html")).stdout == TestOrigin.page)
    }
}
