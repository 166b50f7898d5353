import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import WebCacheTestSupport
@testable import Transport

@Suite struct TransportTests {
    // MARK: - Basics

    @Test(arguments: TransportKind.allCases)
    func getReturnsStatusHeadersAndBody(kind: TransportKind) async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try kind.make()
        let before = Date()
        let (response, body) = try await transport.fetch(HTTPRequest(url: server.url("hello")))
        #expect(response.head.status == 200)
        #expect(response.head.headers["X-Test"] == "yes")
        #expect(response.head.headers["Cache-Control"] == "max-age=60")
        #expect(String(decoding: body, as: UTF8.self) == "hello")
        #expect(response.requestTime >= before.addingTimeInterval(-1))
        #expect(response.responseTime >= response.requestTime)
    }

    @Test(arguments: TransportKind.allCases)
    func sendsRequestHeaders(kind: TransportKind) async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try kind.make()
        let request = HTTPRequest(url: server.url("hello"), headers: ["X-Custom": "one", "Accept-Language": "fr"])
        _ = try await transport.fetch(request)
        let logged = try #require(server.requests.last)
        #expect(logged.headers["X-Custom"] == "one")
        #expect(logged.headers["Accept-Language"] == "fr")
    }

    @Test(arguments: TransportKind.allCases)
    func notModifiedIsReturnedAsIs(kind: TransportKind) async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try kind.make()
        let (response, body) = try await transport.fetch(
            HTTPRequest(url: server.url("etag"), headers: ["If-None-Match": "\"v1\""]))
        #expect(response.head.status == 304)
        #expect(response.head.headers["ETag"] == "\"v1\"")
        #expect(body.isEmpty)
        #expect(server.requests.last?.headers["If-None-Match"] == "\"v1\"")
    }

    @Test(arguments: TransportKind.allCases)
    func redirectsAreNotFollowed(kind: TransportKind) async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try kind.make()
        let (response, body) = try await transport.fetch(HTTPRequest(url: server.url("redirect")))
        #expect(response.head.status == 302)
        #expect(response.head.headers["Location"] == "/hello")
        #expect(String(decoding: body, as: UTF8.self) == "moved")
        #expect(server.requests.map(\.path) == ["/redirect"])
    }

    @Test(arguments: TransportKind.allCases)
    func postAndPutSendTheirContent(kind: TransportKind) async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try kind.make()
        let post = HTTPRequest(
            method: .post, url: server.url("echo"), headers: ["Content-Type": "application/json"],
            body: Data("{\"a\":1}".utf8))
        let (_, postBody) = try await transport.fetch(post)
        #expect(String(decoding: postBody, as: UTF8.self) == "POST {\"a\":1} application/json")
        let put = HTTPRequest(method: .put, url: server.url("echo"), body: Data("data".utf8))
        let (_, putBody) = try await transport.fetch(put)
        #expect(String(decoding: putBody, as: UTF8.self).hasPrefix("PUT data"))
        #expect(server.requests.map(\.bodyLength) == [7, 4])
    }

    @Test(arguments: TransportKind.allCases)
    func headReturnsTheHeadOnly(kind: TransportKind) async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try kind.make()
        let (response, body) = try await transport.fetch(HTTPRequest(method: .head, url: server.url("hello")))
        #expect(response.head.status == 200)
        #expect(response.head.headers["Content-Length"] == "5")
        #expect(body.isEmpty)
        #expect(server.requests.last?.method == .head)
    }

    @Test(arguments: TransportKind.allCases)
    func gzipContentIsDecodedAndTheHeadSaysSo(kind: TransportKind) async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try kind.make()
        let (response, body) = try await transport.fetch(HTTPRequest(url: server.url("gzip")))
        #expect(String(decoding: body, as: UTF8.self) == TestOrigin.gzipText)
        #expect(response.head.headers["Content-Encoding"] == nil)
        #expect(response.head.headers["Content-Length"] == nil)
        #expect(response.head.headers["Content-Type"] == "text/plain")
        // The head keeps the origin's tag; the response says what was decoded, so that the tag can be
        // weakened where these bytes are served.
        #expect(response.head.headers["ETag"] == #""gz""#)
        #expect(response.decodedContentCoding == "gzip")
    }

    @Test func aRequestThatDoesNotDecodeGetsTheContentAsCoded() async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try TransportKind.curl.make()
        var request = HTTPRequest(url: server.url("gzip"))
        request.decodesContent = false
        let (response, body) = try await transport.fetch(request)
        #expect(body == TestOrigin.gzipBytes)
        #expect(response.head.headers["Content-Encoding"] == "gzip")
        #expect(response.head.headers["Content-Length"] == String(TestOrigin.gzipBytes.count))
        #expect(response.head.headers["ETag"] == #""gz""#)
        #expect(response.decodedContentCoding == nil)
        #expect(server.requests.last?.headers["Accept-Encoding"] == nil)
    }

    // MARK: - Streaming and load

    @Test(arguments: TransportKind.allCases)
    func largeBodyStreamsWithBoundedBuffering(kind: TransportKind) async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let limit = 256 * 1024
        let transport = try kind.make(bodyBufferBytes: limit)
        let size = 50 * 1024 * 1024
        let response = try await transport.send(HTTPRequest(url: server.url("generated?size=\(size)")))
        // Let the buffer fill up before reading, so the producer has to pause.
        while response.body.maxBufferedBytes < limit {
            try await Task.sleep(for: .milliseconds(5))
        }
        var received = 0
        var mismatches = 0
        for try await chunk in response.body {
            chunk.withUnsafeBytes { bytes in
                for index in stride(from: 0, to: bytes.count, by: 4093)
                where bytes[index] != TestOrigin.patternByte(received + index) {
                    mismatches += 1
                }
            }
            received += chunk.count
        }
        #expect(received == size)
        #expect(mismatches == 0)
        if kind == .curl {
            // One network read may land on top of a full buffer; nothing more.
            #expect(response.body.maxBufferedBytes <= limit + 256 * 1024)
        }
    }

    @Test(arguments: TransportKind.allCases)
    func manyConcurrentRequestsAllComeBackRight(kind: TransportKind) async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try kind.make()
        let total = 200
        let inFlight = 16
        let wrong = try await withThrowingTaskGroup(of: Bool.self) { group in
            var next = 0
            func add() {
                let index = next
                next += 1
                group.addTask {
                    let (response, body) = try await transport.fetch(HTTPRequest(url: server.url("n/\(index)")))
                    return response.head.status == 200 && String(decoding: body, as: UTF8.self) == "n=\(index)"
                }
            }
            while next < inFlight { add() }
            var wrong = 0
            while let correct = try await group.next() {
                if !correct { wrong += 1 }
                if next < total { add() }
            }
            return wrong
        }
        #expect(wrong == 0)
        #expect(server.requestCount == total)
    }

    // MARK: - Cancellation

    /// The origin stalls; the transports' idle limit is far away, because the cancelled task may
    /// wait its turn among the whole suite's tasks for longer than the default 30 seconds.
    @Test(.timeLimit(.minutes(5)), arguments: TransportKind.allCases)
    func cancellingWhileWaitingForTheHeadEndsWithCancellationError(kind: TransportKind) async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try kind.make(idleTimeout: .seconds(600))
        let task = Task { try await transport.send(HTTPRequest(url: server.url("stall-head"))) }
        while server.requestCount == 0 { try await Task.sleep(for: .milliseconds(5)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }

    @Test(.timeLimit(.minutes(5)), arguments: TransportKind.allCases)
    func cancellingWhileReadingTheBodyEndsWithCancellationError(kind: TransportKind) async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try kind.make(idleTimeout: .seconds(600))
        let response = try await transport.send(HTTPRequest(url: server.url("stall-body")))
        #expect(response.head.status == 200)
        let task = Task {
            var received = 0
            for try await chunk in response.body { received += chunk.count }
            return received
        }
        task.cancel()
        await #expect(throws: CancellationError.self) { _ = try await task.value }
    }

    @Test(arguments: TransportKind.allCases)
    func droppingTheBodyCancelsTheTransfer(kind: TransportKind) async throws {
        // The origin stalls after part of the body and counts the connections the client closes.
        let closedByClient = Mutex(0)
        let server = OriginServer { _ in
            OriginResponse(body: .raw { socket in
                try socket.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial")
                // Generous: the stall ends as soon as the client closes; the bound only matters on a failure.
                if socket.stall(timeout: .seconds(60)) { closedByClient.withLock { $0 += 1 } }
            })
        }
        try server.start()
        defer { server.stop() }
        let transport = try kind.make()
        do {
            let response = try await transport.send(HTTPRequest(url: server.url("stall")))
            #expect(response.head.status == 200)
        }
        // Dropping the response must close the connection; the origin sees that while still running.
        let deadline = ContinuousClock.now + .seconds(60)
        while closedByClient.withLock({ $0 }) == 0 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(closedByClient.withLock { $0 } == 1)
    }

    // MARK: - Failures

    @Test(arguments: TransportKind.allCases)
    func connectFailureNamesTheURL(kind: TransportKind) async throws {
        let refusing = try RefusingPort()
        let url = try #require(URL(string: "http://127.0.0.1:\(refusing.port)/nothing-here"))
        let transport = try kind.make()
        do {
            _ = try await transport.send(HTTPRequest(url: url))
            Issue.record("A request to a closed port succeeded.")
        } catch let error as TransportError {
            #expect(error.code == .connectFailed)
            #expect(error.message.contains(url.absoluteString))
            #expect(error.url == url)
        }
        withExtendedLifetime(refusing) {}
    }

    @Test(arguments: TransportKind.allCases, [false, true])
    func bodyOverTheLimitFailsClearly(kind: TransportKind, chunked: Bool) async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try kind.make(maxBodyBytes: 100_000)
        let url = server.url("generated?size=500000&chunked=\(chunked ? 1 : 0)")
        do {
            _ = try await transport.fetch(HTTPRequest(url: url))
            Issue.record("A body over the limit was accepted.")
        } catch let error as TransportError {
            #expect(error.code == .bodyTooLarge)
            #expect(error.message.contains(url.absoluteString))
            #expect(error.message.contains("100000"))
        }
    }
}
