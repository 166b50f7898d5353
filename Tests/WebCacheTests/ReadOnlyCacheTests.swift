import Foundation
import HTTPCore
import LocalOrigin
import Testing

@testable import WebCache

/// A cache whose store is opened for reading only: it serves what is stored with the cache-only
/// policy, and refuses every load that could store or remove something before sending it.
@Suite(.timeLimit(.minutes(5)))
struct ReadOnlyCacheTests {
    @Test func servesFromTheStoreOnlyAndSendsNothingElse() async throws {
        try await withCache(origin: { _ in
            .text("stored", headers: ["Cache-Control": "max-age=600"])
        }) { (origin, writer) async throws in
            // Given: a stored page, and a second cache that opens the same store for reading only
            _ = try await writer.data(for: WebRequest("page"))
            var configuration = writer.configuration
            configuration.readOnly = true
            let reader = try WebCache(configuration: configuration)

            // When / Then
            let stored = try await reader.data(for: WebRequest("page"), policy: .returnCacheDataDontLoad)
            #expect(stored.text == "stored")
            for policy in [CachePolicy.useProtocolCachePolicy, .reloadIgnoringCacheData] {
                let error = await #expect(throws: WebCacheError.self) {
                    try await reader.data(for: WebRequest("page"), policy: policy)
                }
                #expect(error?.code == .store)
                #expect(error?.message.contains("was opened for reading only") == true)
            }
            let post = await #expect(throws: WebCacheError.self) {
                try await reader.data(for: WebRequest("page", method: .post), policy: .returnCacheDataDontLoad)
            }
            #expect(post?.code == .store)
            #expect(await !reader.preload(["page"]).succeeded)
            #expect(origin.requestCount == 1)
            await reader.close()
        }
    }
}
