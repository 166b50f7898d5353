import Foundation
import HTTPCore
import LocalOrigin
import Testing

@testable import Transport

/// ``CurlTransport`` hands the easy handle of an ended transfer to the next one (``CurlHandles``):
/// nothing of one request's options may reach the next, whichever way the first one ended.
@Suite struct CurlHandleReuseTests {
    /// One transfer at a time, so that each request runs on the handle the one before ended with.
    private func oneAtATime() throws -> CurlTransport {
        var configuration = CurlTransport.Configuration()
        configuration.maxConnections = 1
        configuration.maxConnectionsPerHost = 1
        return try CurlTransport(configuration: configuration)
    }

    @Test func aRequestAfterAnotherOnItsHandleCarriesNothingOfIt() async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try oneAtATime()
        let echo = server.url("echo")
        // A HEAD with a field of its own, a POST with content, a PUT with a method of its own
        _ = try await transport.fetch(HTTPRequest(method: .head, url: echo, headers: ["X-First": "1"]))
        _ = try await transport.fetch(HTTPRequest(method: .post, url: echo, body: Data("posted".utf8)))
        _ = try await transport.fetch(HTTPRequest(method: .put, url: echo, body: Data("put".utf8)))
        // Then a plain GET on the same handle
        let (response, body) = try await transport.fetch(HTTPRequest(url: echo))
        #expect(response.head.status == 200)
        #expect(String(decoding: body, as: UTF8.self) == "GET  -")
        let methods = server.requests.map(\.method)
        #expect(methods == [.head, .post, .put, .get])
        let last = try #require(server.requests.last)
        #expect(last.headers["X-First"] == nil)
        #expect(last.headers["Content-Type"] == nil)
        #expect(last.bodyLength == 0)
    }

    @Test func aRequestRefusedBeforeItWasSentLeavesTheNextOneWhole() async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try oneAtATime()
        // A field with a line break is refused once its handle has some options set
        await #expect(throws: TransportError.self) {
            _ = try await transport.fetch(HTTPRequest(url: server.url("hello"), headers: ["X-Bad": "a\r\nb"]))
        }
        let (response, body) = try await transport.fetch(HTTPRequest(url: server.url("hello")))
        #expect(response.head.status == 200)
        #expect(String(decoding: body, as: UTF8.self) == "hello")
        #expect(server.requests.count == 1)
    }

    @Test func aRequestAfterACancelledOneOnItsHandleComesBackWhole() async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try oneAtATime()
        // A transfer whose body never ends, given up once its head has come
        let stalled = try await transport.send(HTTPRequest(url: server.url("stall-body")))
        let reading = Task { try await stalled.body.collect() }
        reading.cancel()
        _ = await reading.result
        // Then a request on the handle it ended with
        let (response, body) = try await transport.fetch(HTTPRequest(url: server.url("hello")))
        #expect(response.head.status == 200)
        #expect(String(decoding: body, as: UTF8.self) == "hello")
    }
}
