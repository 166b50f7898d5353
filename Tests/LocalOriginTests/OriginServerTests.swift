import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport
@testable import LocalOrigin

@Suite struct OriginServerTests {
    @Test func servesKeepAliveRequestsAndLogsThem() throws {
        let server = OriginServer { request in .text("path=\(request.path) query=\(request.query ?? "-")") }
        try server.start()
        defer { server.stop() }
        #expect(server.port != 0)
        #expect(server.baseURL.absoluteString == "http://127.0.0.1:\(server.port)/")

        let client = try RawClient(port: server.port)
        try client.send("GET /a?x=1 HTTP/1.1\r\nHost: h\r\nIf-None-Match: \"v1\"\r\n\r\n")
        let first = try client.readResponse()
        try client.send("GET /b HTTP/1.1\r\nHost: h\r\n\r\n")
        let second = try client.readResponse()
        #expect(first.status == 200)
        #expect(String(decoding: first.body, as: UTF8.self) == "path=/a query=x=1")
        #expect(String(decoding: second.body, as: UTF8.self) == "path=/b query=-")
        #expect(first.headers["Date"].flatMap(HTTPDate.parse) != nil)

        #expect(server.requestCount == 2)
        #expect(server.requests.map(\.path) == ["/a", "/b"])
        #expect(server.requests.first?.headers["If-None-Match"] == "\"v1\"")
        server.resetLog()
        #expect(server.requestCount == 0)
        #expect(server.requests.isEmpty)
    }

    @Test func readsRequestContentByLength() throws {
        let server = OriginServer { request in
            .text("got \(request.body.count): \(String(decoding: request.body, as: UTF8.self))")
        }
        try server.start()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello")
        let response = try client.readResponse()
        #expect(String(decoding: response.body, as: UTF8.self) == "got 5: hello")
        #expect(server.requests.first?.bodyLength == 5)
    }

    @Test func readsChunkedRequestContentThenServesTheNextRequest() throws {
        let server = OriginServer { request in
            .text("got \(request.body.count): \(String(decoding: request.body, as: UTF8.self))")
        }
        try server.start()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        // Sizes in either case, an extension, a trailer field; then a request on the same connection
        try client.send(
            "POST /p HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\nA\r\n, chunked!\r\n0\r\nX-Trailer: 1\r\n\r\n")
        #expect(String(decoding: try client.readResponse().body, as: UTF8.self) == "got 15: hello, chunked!")
        try client.send("POST /q HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nok")
        #expect(String(decoding: try client.readResponse().body, as: UTF8.self) == "got 2: ok")
        #expect(server.requests.map(\.bodyLength) == [15, 2])
    }

    @Test(arguments: [
        ("Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n5\r\nhello\r\n0\r\n\r\n", 400),
        ("Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501),
        ("Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", 400),
        ("Transfer-Encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n", 400),
        ("Transfer-Encoding: chunked\r\n\r\n400\r\n\(String(repeating: "a", count: 1_024))\r\n0\r\n\r\n", 413),
    ])
    func refusesChunkedContentItCannotTrust(fields: String, status: Int) throws {
        var configuration = OriginServer.Configuration()
        configuration.maxRequestBodyBytes = 1_000
        let server = OriginServer(configuration: configuration) { _ in .text("never") }
        try server.start()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send("POST /p HTTP/1.1\r\nHost: h\r\n" + fields)
        let response = try client.readResponse()
        #expect(response.status == status, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(client.isClosedByPeer())
        #expect(server.requestCount == 0)
    }

    @Test(arguments: [
        "garbage\r\n\r\n",
        "GET /x HTTP/9.9\r\n\r\n",
        "GET /x HTTP/1.1\r\nno colon here\r\n\r\n",
        "GET /x HTTP/1.1\r\nContent-Length: abc\r\n\r\n",
    ])
    func rejectsGarbageWith400(request: String) throws {
        let server = OriginServer { _ in .text("never") }
        try server.start()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send(request)
        let response = try client.readResponse()
        #expect(response.status == 400)
        #expect(response.headers["Connection"] == "close")
        #expect(client.isClosedByPeer())
        #expect(server.requestCount == 0)
    }

    @Test func rejectsAnOversizedHeadWith431() throws {
        let server = OriginServer(configuration: .init()) { _ in .text("never") }
        try server.start()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nX-Big: \(String(repeating: "a", count: 70_000))\r\n\r\n")
        #expect(try client.readResponse().status == 431)
    }

    @Test func streamsChunkedContent() throws {
        let server = OriginServer { _ in
            OriginResponse(body: .stream { writer in
                for index in 0..<5 { try writer.write("part\(index);") }
            })
        }
        try server.start()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send("GET /s HTTP/1.1\r\nHost: h\r\n\r\n")
        let response = try client.readResponse()
        #expect(response.headers["Transfer-Encoding"] == "chunked")
        #expect(String(decoding: response.body, as: UTF8.self) == "part0;part1;part2;part3;part4;")
        // The connection stays usable after a chunked response.
        try client.send("GET /s HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(try client.readResponse().body.count == 30)
    }

    @Test func rawHookWritesFaultyBytesAndCloses() throws {
        let server = OriginServer { _ in
            OriginResponse(body: .raw { socket in
                try socket.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort")
            })
        }
        try server.start()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(throws: RawClient.Failure.self) { try client.readResponse() }
    }

    @Test func stopEndsStalledConnectionsAndIsIdempotent() throws {
        let server = OriginServer { _ in
            OriginResponse(body: .raw { socket in socket.stall() })
        }
        try server.start()
        let client = try RawClient(port: server.port)
        try client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        while server.requestCount == 0 { Thread.sleep(forTimeInterval: 0.005) }
        server.stop()
        server.stop()
        #expect(client.isClosedByPeer())
        #expect(throws: OriginError.self) { try server.start() }
    }

    @Test func headAnswersWithoutContent() throws {
        let server = OriginServer { _ in .text("twelve bytes") }
        try server.start()
        defer { server.stop() }
        let client = try RawClient(port: server.port)
        try client.send("HEAD / HTTP/1.1\r\nHost: h\r\n\r\n")
        let head = try client.readResponse(head: true)
        #expect(head.headers["Content-Length"] == "12")
        try client.send("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(String(decoding: try client.readResponse().body, as: UTF8.self) == "twelve bytes")
    }
}
