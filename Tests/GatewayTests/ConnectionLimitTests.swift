import Foundation
import HTTPCore
import LocalOrigin
import Testing

@testable import Gateway

#if canImport(Glibc)
import Glibc
#endif

/// The gateway accepts connections itself and hands them to its event-loop threads; at its
/// connection limit a new client waits in the listen queue until a connection closes, as it did
/// when the HTTP server accepted by itself, instead of being accepted and closed at once.
@Suite(.timeLimit(.minutes(5)))
struct ConnectionLimitTests {
    @Test func aClientOverTheConnectionLimitWaitsUntilAConnectionClosesAndIsThenServed() async throws {
        let origin: OriginServer.Handler = { request in
            .text("origin \(request.path)", headers: ["Cache-Control": "max-age=3600"])
        }
        try await GatewayHarness.run(origin: origin, configure: { configuration, upstream in
            configuration.upstream = upstream
            configuration.connectionLimit = 2
            configuration.idleTimeout = 600
            configuration.admission.headTimeout = .seconds(600)
        }) { harness in
            let port = harness.gateway.port
            let stored = try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: port,
                                                       "GET /page HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(stored.hasPrefix("HTTP/1.1 200"), "\(stored)")
            // Given: two connections that each had an answer and stay open, the gateway's limit
            let first = try Self.openWithOneAnswer(port: port)
            let second = try Self.openWithOneAnswer(port: port)
            defer { close(second) }

            // When: a third client connects (the kernel completes the handshake and queues it) and
            // sends a request, and then one of the two closes
            let third = try TestSocket.connect(from: "127.0.0.1", to: "127.0.0.1", port: port)
            defer { close(third) }
            let request = Array("GET /page HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
            #expect(send(third, request, request.count, Int32(MSG_NOSIGNAL)) == request.count)
            close(first)

            // Then: the third is served
            let reply = await Self.readUntilClosed(third)
            #expect(reply.hasPrefix("HTTP/1.1 200"), "\(reply)")
            #expect(reply.hasSuffix("\r\n\r\norigin /page"), "\(reply)")
        }
    }

    /// Everything received on `socket` until the gateway closes it, read on a thread of its own.
    static func readUntilClosed(_ socket: Int32) async -> String {
        await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = recv(socket, &buffer, buffer.count, 0)
                    if count <= 0 { break }
                    received += buffer[..<count]
                }
                continuation.resume(returning: String(decoding: received, as: UTF8.self))
            }
        }
    }

    /// Connects, sends a `HEAD /page` and reads the answer's head; the connection stays open.
    static func openWithOneAnswer(port: UInt16) throws -> Int32 {
        let socket = try TestSocket.connect(from: "127.0.0.1", to: "127.0.0.1", port: port)
        let request = Array("HEAD /page HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
        guard send(socket, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
            close(socket)
            throw TestSocket.Failure(description: "sending on port \(port) failed")
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !String(decoding: received, as: UTF8.self).contains("\r\n\r\n") {
            let count = recv(socket, &buffer, buffer.count, 0)
            guard count > 0 else {
                close(socket)
                throw TestSocket.Failure(description: "the gateway closed before answering")
            }
            received += buffer[..<count]
        }
        guard String(decoding: received, as: UTF8.self).hasPrefix("HTTP/1.1 200") else {
            close(socket)
            throw TestSocket.Failure(description: "not answered 200: \(String(decoding: received, as: UTF8.self))")
        }
        return socket
    }
}
