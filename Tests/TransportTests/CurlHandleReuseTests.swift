import Foundation
import HTTPCore
import LocalOrigin
import Testing

@testable import Transport

/// Easy handles are kept for the next transfers (``CurlHandles``): a handle comes back reset, so no
/// transfer sees an option, a header list or a callback of the one before it.
@Suite struct CurlHandleReuseTests {
    @Test
    func aHandleGivenBackIsTakenAgainUpToTheLimit() {
        let handles = CurlHandles(limit: 2)
        let first = handles.take()
        let second = handles.take()
        let third = handles.take()
        #expect(Set([first, second, third]).count == 3)
        handles.giveBack(first)
        handles.giveBack(second)
        handles.giveBack(third)
        // The third was freed: two are kept, the last given back taken first.
        #expect(handles.idleCount == 2)
        #expect(handles.take() == second)
        #expect(handles.take() == first)
        #expect(handles.idleCount == 0)
        // One not reusable is freed, whatever the room.
        handles.giveBack(handles.take(), reusable: false)
        #expect(handles.idleCount == 0)
    }

    /// Each request in turn on one transport, so that each takes the handle the one before gave back:
    /// the origin sees every request as sent, with nothing of the one before it.
    @Test
    func aTransferKeepsNothingOfTheOneBeforeOnItsHandle() async throws {
        let server = OriginServer { request in
            let shown = [
                request.method.rawValue, request.headers["X-One"] ?? "-", request.headers["X-Two"] ?? "-",
                request.headers["Accept-Encoding"] ?? "-", String(decoding: request.body, as: UTF8.self),
            ]
            return .text(shown.joined(separator: " "))
        }
        try server.start()
        defer { server.stop() }
        let transport = try CurlTransport(configuration: CurlTransport.Configuration())
        func sent(_ request: HTTPRequest) async throws -> String {
            let response = try await transport.send(request)
            return String(decoding: try await response.body.collect(), as: UTF8.self)
        }
        for round in 0..<3 {
            var delete = HTTPRequest(method: .delete, url: server.url("show"), headers: ["X-One": "\(round)"])
            delete.body = Data("gone".utf8)
            #expect(try await sent(delete).hasPrefix("DELETE \(round) - "))
            var plain = HTTPRequest(url: server.url("show"), headers: ["X-Two": "2"])
            plain.decodesContent = false
            #expect(try await sent(plain) == "GET - 2 - ")
            var post = HTTPRequest(method: .post, url: server.url("show"), headers: ["X-Two": "3"])
            post.body = Data("posted".utf8)
            #expect(try await sent(post).hasSuffix(" posted"))
            #expect(try await sent(post).hasPrefix("POST - 3 "))
        }
    }
}
