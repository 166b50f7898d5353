import Dispatch
import Foundation
import HTTPCore
import LocalOrigin
import Testing

@testable import WebCache

/// A body read after ``WebCache/close()`` fails with a message that says the cache was closed,
/// where it said only that the body could not be read, or the response not stored.
@Suite(.timeLimit(.minutes(5)))
struct ClosedCacheTests {
    @Test func aStoredBodyReadAfterCloseSaysTheCacheWasClosed() async throws {
        let body = Data(repeating: UInt8(ascii: "x"), count: 600 * 1024)
        try await withCache(origin: { _ in
            OriginResponse(headers: ["Cache-Control": "max-age=600"], body: .bytes(body))
        }, configure: { $0.memoryCacheSize = 0 }) { (_, cache) async throws in
            _ = try await cache.data(for: WebRequest("big"))
            let response = try await cache.load(WebRequest("big"))
            #expect(response.source == .hit)
            var chunks = response.body.makeAsyncIterator()
            _ = try await chunks.next()
            await cache.close()

            let error = await #expect(throws: WebCacheError.self) { while try await chunks.next() != nil {} }
            #expect(error?.message.hasSuffix("could not be read: the cache was closed.") == true,
                    "\(String(describing: error))")
        }
    }

    @Test func aNetworkBodyStillArrivingAtCloseSaysTheCacheWasClosed() async throws {
        let halfSent = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        try await withCache(origin: { _ in
            OriginResponse(headers: ["Cache-Control": "max-age=600"], body: .stream(contentLength: 10) { writer in
                try writer.write("12345")
                halfSent.signal()
                _ = release.wait(timeout: .now() + 120)
                try writer.write("67890")
            })
        }) { (_, cache) async throws in
            let response = try await cache.load(WebRequest("slow"))
            #expect(await SignOutTests.arrival(halfSent))
            await cache.close()
            release.signal()

            let error = await #expect(throws: WebCacheError.self) { _ = try await response.body.collect(upTo: 100) }
            #expect(error?.message.hasSuffix("the cache was closed before it could be stored.") == true,
                    "\(String(describing: error))")
        }
    }
}
