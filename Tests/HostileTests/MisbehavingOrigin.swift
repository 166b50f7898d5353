import Foundation
import HTTPCore
import LocalOrigin

/// An origin whose paths each misbehave in one way, next to a few well-behaved ones.
///
/// Good paths: `/good.html` (links `/good.css`), `/good.css`, `/plain.txt`. Every other path
/// listed in ``badPaths`` breaks the protocol, stalls, or sends too much.
enum MisbehavingOrigin {
    /// The paths that misbehave, with what each does.
    static let badPaths: [String] = [
        "reset-mid-body", "short-body", "stall-after-head", "stall-silent", "storm/one", "storm/two",
        "loop-a", "chain/0", "enormous-head", "endless", "bomb", "bad-chunk",
    ]

    /// The paths that behave: a page and its stylesheet, and a text file.
    static let goodPaths = ["good.html", "good.css", "plain.txt"]

    /// The size limit tests configure for resources (1 MiB).
    static let sizeLimit: Int64 = 1 << 20

    static func respond(_ request: OriginRequest) -> OriginResponse {
        let path = String(request.path.dropFirst())
        switch path {
        case "good.html":
            return cacheablePage("<html><head><link rel=stylesheet href=/good.css></head><body>fine</body></html>")
        case "good.css":
            return .text("body { color: green }", contentType: "text/css", headers: ["Cache-Control": "max-age=3600"])
        case "plain.txt":
            return .text("plain and simple", headers: ["Cache-Control": "max-age=3600"])
        case "reset-mid-body":
            return raw { socket in
                try socket.write(head(["Content-Length: 100000", "Cache-Control: max-age=3600"]))
                try socket.write(Data(repeating: 0x61, count: 5000))
                socket.resetOnClose()
            }
        case "short-body":
            return raw { socket in
                try socket.write(head(["Content-Length: 1000", "Cache-Control: max-age=3600"]))
                try socket.write(Data(repeating: 0x62, count: 10))
            }
        case "long-body":
            return raw { socket in
                try socket.write(head(["Content-Length: 10", "Cache-Control: max-age=3600"]))
                try socket.write(Data(repeating: 0x63, count: 10))
                // The excess comes once the client has had time to send its next request here.
                socket.stall(timeout: .milliseconds(100))
                try socket.write(Data(repeating: 0x64, count: 990))
                socket.stall(timeout: .seconds(2))
            }
        case "stall-after-head":
            return raw { socket in
                try socket.write(head(["Content-Length: 100", "Cache-Control: max-age=3600"]))
                socket.stall(timeout: .seconds(30))
            }
        case "bad-chunk":
            return raw { socket in
                try socket.write(head(["Transfer-Encoding: chunked", "Cache-Control: max-age=3600"]))
                try socket.write("5\r\nhello\r\nzz-not-a-size\r\nmore\r\n0\r\n\r\n")
            }
        case "stall-silent":
            return raw { socket in socket.stall(timeout: .seconds(30)) }
        case _ where path.hasPrefix("storm/"):
            // Retry-After far beyond any sensible wait: the client must cap it.
            return OriginResponse(status: 503, headers: ["Retry-After": "86400"], body: .bytes(Data("busy".utf8)))
        case "loop-a":
            return OriginResponse(status: 302, headers: ["Location": "/loop-b"])
        case "loop-b":
            return OriginResponse(status: 302, headers: ["Location": "/loop-a"])
        case _ where path.hasPrefix("chain/"):
            let hop = Int(path.dropFirst("chain/".count)) ?? 0
            if hop >= 30 { return .text("the end of a long chain") }
            return OriginResponse(status: 302, headers: ["Location": "/chain/\(hop + 1)"])
        case "enormous-head":
            return raw { socket in
                var lines = ["Content-Length: 2", "Cache-Control: max-age=3600"]
                let filler = String(repeating: "x", count: 1000)
                for index in 0..<1024 { lines.append("X-Filler-\(index): \(filler)") }
                try socket.write(head(lines))
                try socket.write("ok")
            }
        case "endless":
            return OriginResponse(headers: ["Cache-Control": "max-age=3600", "Content-Type": "text/plain"],
                                  body: .stream { writer in
                                      let chunk = Data(repeating: 0x65, count: 64 * 1024)
                                      while true { try writer.write(chunk) }
                                  })
        case "bomb":
            guard let bomb = CompressionBomb.gzip else { return OriginResponse(status: 500) }
            return OriginResponse(
                headers: ["Content-Encoding": "gzip", "Content-Type": "text/plain", "Cache-Control": "max-age=3600"],
                body: .bytes(bomb))
        default:
            return OriginResponse(status: 404)
        }
    }

    private static func raw(_ hook: @escaping @Sendable (OriginSocket) throws -> Void) -> OriginResponse {
        OriginResponse(body: .raw(hook))
    }

    private static func head(_ lines: [String]) -> Data {
        let all = ["HTTP/1.1 200 OK", "Content-Type: text/plain"] + lines
        return Data((all.map { $0 + "\r\n" }.joined() + "\r\n").utf8)
    }
}
