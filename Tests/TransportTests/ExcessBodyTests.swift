import Foundation
import HTTPCore
import LocalOrigin
import Testing
@testable import Transport

/// A response that sends more than its `Content-Length` leaves bytes on the kept-alive connection;
/// the next request must not fail because of them.
@Suite struct ExcessBodyTests {
    @Test func bytesBeyondContentLengthDoNotBreakTheNextRequest() async throws {
        let server = OriginServer { request in
            guard request.path == "/long" else { return .text("ok") }
            return OriginResponse(body: .raw { socket in
                try socket.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n")
                try socket.write(Data(repeating: 0x63, count: 10))
                // The excess comes once the client has had time to send its next request here.
                socket.stall(timeout: .milliseconds(100))
                try socket.write(Data(repeating: 0x64, count: 990))
                socket.stall(timeout: .seconds(2))
            })
        }
        try server.start()
        defer { server.stop() }
        let transport = try CurlTransport()
        for _ in 0..<5 {
            let long = try await transport.send(HTTPRequest(url: server.url("long")))
            #expect(try await long.body.collect() == Data(repeating: 0x63, count: 10))
            let next = try await transport.send(HTTPRequest(url: server.url("ok")))
            #expect(next.head.status == 200)
            #expect(String(decoding: try await next.body.collect(), as: UTF8.self) == "ok")
        }
    }
}
