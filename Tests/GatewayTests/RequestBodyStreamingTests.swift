import Foundation
import HTTPCore
import LocalOrigin
import Testing
import Transport
import WebCacheTestSupport

@testable import Gateway

#if canImport(Glibc)
import Glibc
#endif

/// Request bodies stream through the gateway: the origin gets an upload while the client is still
/// sending it, and a large one arrives intact.
@Suite(.timeLimit(.minutes(5)))
struct RequestBodyStreamingTests {
    @Test func anUploadReachesTheOriginWhileTheClientIsStillSendingIt() async throws {
        let upload = try UploadRecordingOrigin()
        defer { upload.stop() }
        try await GatewayHarness.run(origin: { _ in .text("not used") }) { harness in
            let half = 256 * 1024
            let first = Data(repeating: 0x61, count: half)
            let second = Data(repeating: 0x62, count: half)
            let socket = try #require(RawClient.connect(port: harness.gateway.port))
            defer { close(socket) }
            let head = "POST \(upload.url("/upload").absoluteString) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Content-Length: \(2 * half)\r\nConnection: close\r\n\r\n"
            try await Self.send(Data(head.utf8) + first, on: socket)

            let arrived = await upload.waitForBody(atLeast: 1)
            #expect(arrived, "The origin received none of the upload before the client sent the rest.")
            try await Self.send(second, on: socket)
            let reply = await Self.readToEnd(socket)

            #expect(reply.hasPrefix("HTTP/1.1 200 "))
            #expect(reply.hasSuffix("\r\n\r\n\(2 * half)"))
            #expect(upload.body == first + second)
        }
    }

    @Test func aTwentyMegabyteUploadArrivesIntact() async throws {
        let handler: OriginServer.Handler = { request in
            .text("\(request.body.count) \(SHA256.hash(request.body).base64EncodedString())", status: 201)
        }
        let body = Data((0..<(20 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31 >> 3) })
        try await GatewayHarness.run(origin: handler) { harness in
            let reply = try await harness.get("/upload", method: .put, body: body)
            #expect(reply.status == 201)
            #expect(String(decoding: reply.body, as: UTF8.self)
                == "\(body.count) \(SHA256.hash(body).base64EncodedString())")
            #expect(harness.origin.requests.map(\.bodyLength) == [body.count])
        }
    }

    @Test func aChunkedUploadReachesTheOriginWhole() async throws {
        let handler: OriginServer.Handler = { request in
            .text("\(request.body.count) \(SHA256.hash(request.body).base64EncodedString())", status: 201)
        }
        try await GatewayHarness.run(origin: handler) { harness in
            // Chunks of several sizes, one larger than a read buffer, with no declared length
            let chunks = [String(repeating: "a", count: 600), String(repeating: "b", count: 70_000), "c"]
            let body = chunks.joined()
            var text = "POST \(harness.origin.url("/upload").absoluteString) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            for chunk in chunks { text += String(chunk.utf8.count, radix: 16) + "\r\n" + chunk + "\r\n" }
            text += "0\r\n\r\n"

            let reply = try await RawClient.exchange(port: harness.gateway.port, text)

            #expect(reply.statusLine.hasPrefix("HTTP/1.1 201"), "\(reply.statusLine)")
            #expect(reply.body == "\(body.utf8.count) \(SHA256.hash(Data(body.utf8)).base64EncodedString())")
            #expect(harness.origin.requests.map(\.bodyLength) == [body.utf8.count])
        }
    }

    /// A request whose length fields disagree has no one framing: a proxy that read one of them and
    /// forwarded the other would let a client smuggle a request past it (RFC 9112 §6.3, §11.2).
    @Test(arguments: ["Content-Length: 3\r\nContent-Length: 4", "Content-Length: 3, 4", "Content-Length: +4"])
    func aRequestWhoseLengthIsNotOneNumberIsRefusedAndNotForwarded(fields: String) async throws {
        try await GatewayHarness.run(origin: { _ in .text("forwarded") }) { harness in
            let reply = try await RawClient.exchange(port: harness.gateway.port, """
                POST \(harness.origin.url("/p").absoluteString) HTTP/1.1\r
                Host: 127.0.0.1\r
                \(fields)\r
                Connection: close\r
                \r
                abcd
                """)
            #expect(reply.statusLine.hasPrefix("HTTP/1.1 400"), "\(reply.statusLine)")
            #expect(harness.origin.requestCount == 0)
        }
    }

    @Test func theDeclaredLengthIsOneDecimalNumber() {
        func declared(_ values: [String]) -> (Int?, Bool) {
            let fields = values.map { HTTPField(name: "Content-Length", value: $0) }
            return GatewayServer.declaredLength(of: HTTPHeaders(fields))
        }
        #expect(declared([]) == (nil, true))
        #expect(declared(["5"]) == (5, true))
        #expect(declared([" 5 "]) == (5, true))
        #expect(declared(["5", "5"]) == (5, true))
        #expect(declared(["5, 5"]) == (5, true))
        for invalid in [["3", "4"], ["3, 4"], ["-1"], ["+3"], ["0x10"], [""], ["1 2"], ["99999999999999999999999"]] {
            #expect(declared(invalid) == (nil, false), "\(invalid)")
        }
    }

    /// Sends all of `data` on `socket`, off the task's thread.
    private static func send(_ data: Data, on socket: Int32) async throws {
        let sent = await blocking {
            data.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        try #require(sent == data.count, "Sending failed.")
    }

    /// Everything `socket` receives until the peer closes it, as text.
    private static func readToEnd(_ socket: Int32) async -> String {
        await blocking {
            var received = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let count = recv(socket, &buffer, buffer.count, 0)
                if count <= 0 { break }
                received += buffer[..<count]
            }
            return String(decoding: received, as: UTF8.self)
        }
    }

    /// Runs blocking socket calls on a thread of their own, so they never hold up the tasks that serve the request.
    private static func blocking<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}
