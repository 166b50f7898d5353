import Foundation
import HTTPCore
import LocalOrigin
import Testing

@testable import WebCache

/// Redirects, coalescing, cancellation, size limits and large bodies through the loader, against a
/// real origin on 127.0.0.1 and a real store file.
@Suite(.timeLimit(.minutes(5)))
struct TransferTests {
    // MARK: - Redirects

    @Test func redirectChainIsFollowedAndEveryHopStored() async throws {
        try await withCache(origin: { request in
            switch request.path {
            case "/a": OriginResponse(status: 301, headers: ["Location": "/b", "Cache-Control": "max-age=600"])
            case "/b": OriginResponse(status: 301, headers: ["Location": "/c", "Cache-Control": "max-age=600"])
            default: .text("end of chain", headers: ["Cache-Control": "max-age=600"])
            }
        }) { (origin, cache) async throws in
            let first = try await cache.data(for: WebRequest("a"))
            #expect(first.text == "end of chain")
            #expect(first.url == origin.url("c"))
            #expect(first.redirects == [origin.url("a"), origin.url("b")])
            #expect(origin.requests.map(\.path) == ["/a", "/b", "/c"])
            for path in ["a", "b", "c"] {
                #expect(try cache.storedVariants(origin.url(path)).count == 1)
            }

            let second = try await cache.data(for: WebRequest("a"))
            #expect(second.text == "end of chain")
            #expect(second.source == .hit)
            #expect(second.redirects == [origin.url("a"), origin.url("b")])
            #expect(origin.requestCount == 3)
        }
    }

    @Test func redirectLoopFailsNamingTheLoop() async throws {
        try await withCache(origin: { request in
            OriginResponse(status: 302, headers: ["Location": request.path == "/x" ? "/y" : "/x"])
        }) { (origin, cache) async throws in
            let error = await #expect(throws: WebCacheError.self) { try await cache.data(for: WebRequest("x")) }
            #expect(error?.code == .redirects)
            #expect(error?.message.contains("loop") == true)
            #expect(error?.message.contains(origin.url("y").absoluteString) == true)
            #expect(origin.requestCount == 2)
        }
    }

    @Test func moreThanTwentyRedirectsFail() async throws {
        try await withCache(origin: { request in
            let step = Int(request.path.dropFirst("/step/".count)) ?? 0
            return OriginResponse(status: 302, headers: ["Location": "/step/\(step + 1)"])
        }) { (origin, cache) async throws in
            let error = await #expect(throws: WebCacheError.self) { try await cache.data(for: WebRequest("step/0")) }
            #expect(error?.code == .redirects)
            #expect(error?.message.contains("20") == true)
            #expect(error?.message.contains(origin.url("step/0").absoluteString) == true)
            #expect(origin.requestCount == 21)
        }
    }

    @Test func seeOtherAfterPOSTBecomesGET() async throws {
        try await withCache(origin: { request in
            if request.method == .post { return OriginResponse(status: 303, headers: ["Location": "/done"]) }
            return .text("\(request.method.rawValue) \(request.path) \(request.body.count)")
        }) { (origin, cache) async throws in
            let response = try await cache.data(for: WebRequest(
                "form", method: .post, headers: ["Content-Type": "application/x-www-form-urlencoded"],
                body: Data("a=1".utf8)))
            #expect(response.text == "GET /done 0")
            #expect(origin.requests.map { "\($0.method.rawValue) \($0.path)" } == ["POST /form", "GET /done"])
            #expect(origin.requests.first?.headers["Content-Type"] == "application/x-www-form-urlencoded")
            #expect(origin.requests.last?.headers["Content-Type"] == nil)
        }
    }

    @Test func redirectToAnotherOriginDropsTheCallersCredentials() async throws {
        let other = OriginServer { request in
            .text("elsewhere \(request.headers["Authorization"] ?? "-") \(request.headers["Cookie"] ?? "-")")
        }
        try other.start()
        defer { other.stop() }
        let target = other.url("landing").absoluteString
        try await withCache(origin: { request in
            if request.path == "/same" { return OriginResponse(status: 302, headers: ["Location": "/away"]) }
            return OriginResponse(status: 302, headers: ["Location": target])
        }) { (origin, cache) async throws in
            let request = WebRequest("same", headers: ["Authorization": "Bearer caller", "Cookie": "a=b"])
            let response = try await cache.data(for: request)
            #expect(response.text == "elsewhere - -")
            #expect(origin.requests.map { $0.headers["Authorization"] } == ["Bearer caller", "Bearer caller"])
            #expect(other.requestCount == 1)
        }
    }

    // MARK: - Coalescing

    /// An origin's answer, "shared body" kept for ten minutes, held until the test sets `released`.
    private static func sharedBody(releasedBy released: Shared<Bool>) -> OriginServer.Handler {
        { _ in
            released.waitUntilSet()
            return .text("shared body", headers: ["Cache-Control": "max-age=600"])
        }
    }

    @Test func concurrentLoadsOfOneURLMakeOneRequest() async throws {
        // The answer waits until both loads have started.
        let released = Shared(false)
        try await withCache(origin: Self.sharedBody(releasedBy: released)) { (origin, cache) async throws in
            let bodies = try await withThrowingTaskGroup(of: Data.self) { group in
                for _ in 0..<2 {
                    group.addTask { try await cache.data(for: WebRequest("slow")).body }
                }
                #expect(try await eventually { origin.requestCount == 1 })
                try await Task.sleep(for: .milliseconds(200))
                released.value = true
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(origin.requestCount == 1)
            #expect(bodies.count == 2)
            #expect(bodies.allSatisfy { $0 == Data("shared body".utf8) })
        }
    }

    @Test func loadsWithTheSameFieldsInAnotherOrderAndCaseShareATransferAndOtherValuesDoNot() async throws {
        let released = Shared(false)
        try await withCache(origin: Self.sharedBody(releasedBy: released)) { (origin, cache) async throws in
            let requests = [
                WebRequest("fields", headers: ["Accept": "text/html", "X-Trace": "1"]),
                WebRequest("fields", headers: ["x-trace": "1", "ACCEPT": "text/html"]),
                WebRequest("fields", headers: ["Accept": "text/html", "X-Trace": "2"]),
            ]
            let bodies = try await withThrowingTaskGroup(of: Data.self) { group in
                for request in requests {
                    group.addTask { try await cache.data(for: request).body }
                }
                // The third asks with another value: a transfer of its own. Nothing is stored
                // before the answers are let go, so a load that did not join one makes a third.
                #expect(try await eventually { origin.requestCount == 2 })
                try await Task.sleep(for: .milliseconds(200))
                #expect(origin.requestCount == 2)
                released.value = true
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(origin.requestCount == 2)
            #expect(bodies.allSatisfy { $0 == Data("shared body".utf8) })
        }
    }

    @Test func concurrentRevalidationsOfOneEntryMakeOneRequest() async throws {
        let released = Shared(false)
        try await withCache(origin: { request in
            if request.headers["If-None-Match"] == "\"r\"" {
                // The 304 waits until both loads have started.
                released.waitUntilSet()
                return OriginResponse(status: 304, headers: ["ETag": "\"r\"", "Cache-Control": "max-age=0"])
            }
            return .text("kept", headers: ["Cache-Control": "max-age=0", "ETag": "\"r\""])
        }) { (origin, cache) async throws in
            _ = try await cache.data(for: WebRequest("twice"))
            let responses = try await withThrowingTaskGroup(of: LoadedResponse.self) { group in
                for _ in 0..<2 {
                    group.addTask { try await cache.data(for: WebRequest("twice")) }
                }
                #expect(try await eventually { origin.requestCount == 2 })
                try await Task.sleep(for: .milliseconds(200))
                released.value = true
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(origin.requestCount == 2)
            #expect(responses.map(\.text) == ["kept", "kept"])
            #expect(responses.map(\.source) == [.revalidated, .revalidated])
        }
    }

    @Test func aCancelledLeaderDoesNotFailTheLoadsThatJoinedIt() async throws {
        let released = Shared(false)
        try await withCache(origin: { _ in
            // The first answer waits until the test has cancelled its caller.
            released.waitUntilSet()
            return .text("survivor", headers: ["Cache-Control": "max-age=600"])
        }) { (origin, cache) async throws in
            let leader = Task { try await cache.data(for: WebRequest("joined")) }
            #expect(try await eventually { origin.requestCount == 1 })
            let follower = Task { try await cache.data(for: WebRequest("joined")) }
            try await Task.sleep(for: .milliseconds(50))
            leader.cancel()
            released.value = true
            let leaderResult = await leader.result
            #expect(throws: CancellationError.self) { try leaderResult.get() }
            let response = try await follower.value
            #expect(response.text == "survivor")
        }
    }

    // MARK: - Cancellation and limits

    @Test func cancellingAStalledBodyEndsAndStoresNothing() async throws {
        try await withCache(origin: { _ in
            OriginResponse(
                headers: ["Cache-Control": "max-age=600"],
                body: .stream(contentLength: 1_000_000) { writer in
                    try writer.write(Data(repeating: 1, count: 1000))
                    // Stall until the client goes away (or the server stops).
                    for _ in 0..<6000 {
                        Thread.sleep(forTimeInterval: 0.02)
                        try writer.write(Data([1]))
                    }
                })
        }) { (origin, cache) async throws in
            let task = Task { try await cache.data(for: WebRequest("stall")) }
            #expect(try await eventually { origin.requestCount == 1 })
            try await Task.sleep(for: .milliseconds(100))
            task.cancel()
            let result = await task.result
            // The stall outlasts the test's time limit: only the cancellation can end the load.
            #expect(throws: CancellationError.self) { try result.get() }
            #expect(try cache.storedVariants(origin.url("stall")).isEmpty)
        }
    }

    @Test func bodyOverTheLimitFailsAndStoresNothing() async throws {
        try await withCache(origin: { _ in
            OriginResponse(headers: ["Cache-Control": "max-age=600"], body: .bytes(Data(repeating: 7, count: 100_000)))
        }) { (origin, cache) async throws in
            let error = await #expect(throws: WebCacheError.self) {
                try await cache.data(for: WebRequest("big", maximumBodySize: 10_000))
            }
            #expect(error?.code == .tooLarge)
            #expect(error?.message.contains(origin.url("big").absoluteString) == true)
            #expect(try cache.storedVariants(origin.url("big")).isEmpty)
            // Without the limit it loads and stores.
            #expect(try await cache.data(for: WebRequest("big")).body.count == 100_000)
            #expect(try cache.storedVariants(origin.url("big")).count == 1)
            // A stored body over the limit is refused too, before any of it is read.
            let stored = await #expect(throws: WebCacheError.self) {
                try await cache.data(for: WebRequest("big", maximumBodySize: 10_000))
            }
            #expect(stored?.code == .tooLarge)
            #expect(stored?.message.contains(origin.url("big").absoluteString) == true)
            #expect(origin.requestCount == 2)
        }
    }

    @Test func aMissStreamsToTheCallerBeforeTheBodyEnds() async throws {
        let released = Shared(false)
        try await withCache(origin: { _ in
            OriginResponse(headers: ["Cache-Control": "max-age=600"], body: .stream { writer in
                try writer.write("first part;")
                released.waitUntilSet()
                try writer.write("second part")
            })
        }) { (origin, cache) async throws in
            let response = try await cache.load(WebRequest("streamed"))
            var iterator = response.body.makeAsyncIterator()
            // The first part arrives while the origin still holds the rest back.
            let first = try await iterator.next()
            #expect(first.map { String(decoding: $0, as: UTF8.self) } == "first part;")
            #expect(try cache.storedVariants(origin.url("streamed")).isEmpty)
            released.value = true
            var rest = Data()
            while let chunk = try await iterator.next() { rest.append(chunk) }
            #expect(String(decoding: rest, as: UTF8.self) == "second part")
            let stored = try cache.storedVariants(origin.url("streamed"))
            #expect(stored.map(\.body) == [Data("first part;second part".utf8)])
        }
    }

    // MARK: - Large bodies

    @Test func largeBodyStreamsThroughAMissIntoTheStore() async throws {
        let blockSize = 64 * 1024
        let blockCount = 320  // 20 MiB
        let expected = Self.pattern(blockSize: blockSize, blockCount: blockCount)
        try await withCache(origin: { _ in
            OriginResponse(
                headers: ["Cache-Control": "max-age=600", "Content-Type": "application/octet-stream"],
                body: .stream(contentLength: expected.count) { writer in
                    for block in 0..<blockCount {
                        try writer.write(expected[(block * blockSize)..<((block + 1) * blockSize)])
                    }
                })
        }) { (origin, cache) async throws in
            let miss = try await cache.load(WebRequest("large"))
            #expect(miss.source == .network)
            #expect(try await Self.matches(miss.body, expected))

            let hit = try await cache.load(WebRequest("large"))
            #expect(hit.source == .hit)
            #expect(try await Self.matches(hit.body, expected))
            #expect(origin.requestCount == 1)
        }
    }

    /// A deterministic pattern whose blocks all differ.
    private static func pattern(blockSize: Int, blockCount: Int) -> Data {
        var base = Data(count: blockSize)
        for index in 0..<blockSize { base[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 8) }
        var data = Data(capacity: blockSize * blockCount)
        for block in 0..<blockCount {
            var copy = base
            withUnsafeBytes(of: UInt64(block).bigEndian) { copy.replaceSubrange(0..<8, with: $0) }
            data.append(copy)
        }
        return data
    }

    /// Whether the streamed body equals `expected`, comparing chunk by chunk without collecting it.
    private static func matches(_ body: WebResponse.Body, _ expected: Data) async throws -> Bool {
        var offset = 0
        for try await chunk in body {
            guard offset + chunk.count <= expected.count,
                chunk == expected[(expected.startIndex + offset)..<(expected.startIndex + offset + chunk.count)]
            else { return false }
            offset += chunk.count
        }
        return offset == expected.count
    }
}
