import Foundation
import HTTPCore
import LocalOrigin
import Testing

@testable import Gateway

/// A response head that does not fit in the connection's buffer beside the request's head is
/// answered 502 naming the sizes, whichever way it is answered (from the origin, from the store,
/// from memory); one that fits is sent whole. The HTTP server alone would close the connection
/// without a word.
@Suite struct ResponseHeadRoomTests {
    /// The origin's answer to `/fields/N`: N bytes of fields (of 100 bytes each and one shorter,
    /// each with its line end) besides `Cache-Control`, then `origin`.
    static func origin(_ request: OriginRequest) -> OriginResponse {
        let bytes = Int(request.path.split(separator: "/").last ?? "") ?? 0
        var fields: HTTPHeaders = ["Cache-Control": "max-age=600"]
        for index in 0..<(bytes / 100) {
            // 13 + 85 + 2 bytes: `X-Field-NNNN: vvv…` and its line end.
            fields.append(name: String(format: "X-Field-%04d", index), value: String(repeating: "v", count: 85))
        }
        // `X-Pad: ppp…` and its line end, then `X-Last: end` and its: 9 + 13 bytes.
        fields.append(name: "X-Pad", value: String(repeating: "p", count: max(0, bytes % 100 - 22)))
        fields.append(name: "X-Last", value: "end")
        return .text("origin", headers: fields)
    }

    /// A request head of exactly `bytes`, with `extra` field lines, for `target`.
    static func head(_ target: String, bytes: Int, extra: String = "") -> String {
        let start = "GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\(extra)X-Filler: "
        return start + String(repeating: "a", count: bytes - start.utf8.count - 4) + "\r\n\r\n"
    }

    /// Over response heads around the room a request at the limit leaves, with plain fields, with
    /// cookies and with query arguments: every reply is the whole response or the gateway's 502,
    /// never nothing; the room is not cut short by more than a kilobyte; and the requests after
    /// are served.
    @Test(arguments: [
        ("/fields/", ""),
        ("/fields/", "Cookie: " + (0..<40).map { "c\($0)=v" }.joined(separator: "; ") + "\r\n"),
        ("/q/fields/", ""),
    ])
    func aResponseHeadIsSentWholeOrAnswered502(path: String, extra: String) async throws {
        try await GatewayHarness.run(origin: Self.origin, configure: { configuration, upstream in
            configuration.upstream = upstream
        }) { harness in
            let limit = GatewayServer.Admission().maximumHeaderBytes
            var largestSent = 0
            var refused = 0
            for bytes in stride(from: 12_000, through: 17_000, by: 47) {
                let target = path.hasPrefix("/q/") ? "/fields/\(bytes)?a=1&b=2&c=3&d=4&e=5&f=6" : path + "\(bytes)"
                let reply = try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: harness.gateway.port,
                                                          Self.head(target, bytes: limit, extra: extra))
                if reply.hasPrefix("HTTP/1.1 200") {
                    #expect(reply.contains("X-Last: end\r\n") && reply.hasSuffix("\r\n\r\norigin"), "\(reply.suffix(200))")
                    largestSent = max(largestSent, reply.utf8.count)
                } else {
                    #expect(reply.hasPrefix("HTTP/1.1 502"), "\(bytes): \(reply.prefix(300))")
                    #expect(reply.contains("The response head for http://127.0.0.1:"), "\(reply.suffix(400))")
                    #expect(reply.contains("more than the"), "\(reply.suffix(400))")
                    refused += 1
                }
            }
            #expect(refused > 0)
            let room = ConnectionBuffer.size(maximumHeaderBytes: limit) - limit
            let cookies = extra.utf8.count * 2 + 64 * 40
            #expect(largestSent >= room - cookies - 1024, "largest head sent: \(largestSent) of \(room)")
            let after = try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: harness.gateway.port,
                                                      Self.head("/fields/100", bytes: 200))
            #expect(after.hasPrefix("HTTP/1.1 200"), "\(after.prefix(200))")
        }
    }

    /// An answer stored with a large head, sent to small requests, then asked for with a request
    /// head at the limit: 502 from the store and from the gateway's memory alike, logged as such;
    /// a small request is served after it.
    @Test(arguments: [0, 1 << 20])
    func aStoredAnswerWhoseHeadDoesNotFitIsAnswered502(memoryCacheSize: Int) async throws {
        try await GatewayHarness.run(origin: Self.origin, configure: { configuration, upstream in
            configuration.upstream = upstream
            configuration.memoryCacheSize = memoryCacheSize
        }) { harness in
            let port = harness.gateway.port
            let limit = GatewayServer.Admission().maximumHeaderBytes
            let small = Self.head("/fields/16500", bytes: 200)
            let first = try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: port, small)
            let second = try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: port, small)
            let large = try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: port,
                                                      Self.head("/fields/16500", bytes: limit))
            let third = try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: port, small)
            #expect(first.hasPrefix("HTTP/1.1 200") && first.contains("X-WebCache: network"), "\(first.prefix(300))")
            #expect(second.hasPrefix("HTTP/1.1 200") && second.contains("X-WebCache: hit"), "\(second.prefix(300))")
            #expect(large.hasPrefix("HTTP/1.1 502"), "\(large.prefix(300))")
            #expect(large.contains("The response head for \(harness.origin.url("fields/16500").absoluteString) is about"),
                    "\(large.suffix(400))")
            #expect(third.hasPrefix("HTTP/1.1 200") && third.hasSuffix("\r\n\r\norigin"), "\(third.suffix(200))")
            #expect(harness.origin.requests.count == 1)
            await harness.accessLog.waitForCount(4)
            #expect(harness.accessLog.all.map(\.status) == [200, 200, 502, 200])
        }
    }
}
