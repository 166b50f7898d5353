import Foundation
import HTTPCore
import LocalOrigin
import Testing
@testable import Transport

/// A request body read from a ``RequestBodyStream`` as it is produced.
@Suite(.timeLimit(.minutes(5)))
struct StreamedUploadTests {
    @Test func aSlowlyProducedUploadArrivesIntact() async throws {
        let server = OriginServer { request in
            .text("\(request.body.count) \(SHA256.hash(request.body).base64EncodedString())")
        }
        try server.start()
        defer { server.stop() }
        let blocks = (0..<8).map { Data(repeating: UInt8($0), count: 100_000) }
        let expected = blocks.reduce(Data(), +)
        // Smaller than a block, so the producer waits for the transfer, and the pauses between
        // blocks leave the transfer waiting for the producer.
        let stream = RequestBodyStream(length: Int64(expected.count), capacity: 64 * 1024)
        Thread {
            for block in blocks {
                Thread.sleep(forTimeInterval: 0.02)
                stream.write(block)
            }
            stream.finish()
        }.start()

        let transport = try CurlTransport()
        let (response, body) = try await transport.fetch(
            HTTPRequest(method: .put, url: server.url("/upload"), bodyStream: stream))

        #expect(response.head.status == 200)
        #expect(String(decoding: body, as: UTF8.self)
            == "\(expected.count) \(SHA256.hash(expected).base64EncodedString())")
        #expect(server.requests.map(\.method) == [.put])
    }

    @Test func aStreamThatBreaksOffAbortsTheRequest() async throws {
        let server = OriginServer { request in .text("got \(request.body.count) bytes") }
        try server.start()
        defer { server.stop() }
        let stream = RequestBodyStream(length: 1_000)
        Thread {
            stream.write(Data(count: 100))
            Thread.sleep(forTimeInterval: 0.02)
            stream.cancel()
        }.start()

        let transport = try CurlTransport()
        await #expect(throws: TransportError.self) {
            _ = try await transport.fetch(HTTPRequest(method: .post, url: server.url("/upload"), bodyStream: stream))
        }
        #expect(server.requestCount == 0)
    }
}
