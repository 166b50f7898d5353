import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheURLSession
@testable import Transport

/// The transports every shared test runs against.
enum TransportKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case curl
    case urlSession

    var testDescription: String { rawValue }

    func make(
        bodyBufferBytes: Int = 1024 * 1024, maxBodyBytes: Int64? = nil, idleTimeout: Duration = .seconds(30)
    ) throws -> any HTTPTransport {
        switch self {
        case .curl:
            var configuration = CurlTransport.Configuration()
            configuration.bodyBufferBytes = bodyBufferBytes
            configuration.maxBodyBytes = maxBodyBytes
            configuration.idleTimeout = idleTimeout
            return try CurlTransport(configuration: configuration)
        case .urlSession:
            var configuration = URLSessionTransport.Configuration()
            configuration.bodyBufferBytes = bodyBufferBytes
            configuration.maxBodyBytes = maxBodyBytes
            configuration.idleTimeout = idleTimeout
            return URLSessionTransport(configuration: configuration)
        }
    }
}

/// The origin all transport tests talk to: a few routes that each show one behaviour.
enum TestOrigin {
    static let gzipText = String(repeating: "hello gzip ", count: 100)
    static let gzipBytes = Data(base64Encoded: "H4sIAIylDGsC/8tIzcnJV0ivyixQyBhljjJHmaNMcpkATFbXD0wEAAA=")!

    /// The byte at `offset` of a generated body, so a reader can check every byte cheaply.
    static func patternByte(_ offset: Int) -> UInt8 { UInt8(truncatingIfNeeded: offset &* 31 &+ offset >> 16) }

    static func start() throws -> OriginServer {
        let server = OriginServer { request in route(request) }
        try server.start()
        return server
    }

    static func route(_ request: OriginRequest) -> OriginResponse {
        switch request.path {
        case "/hello":
            return .text("hello", headers: ["X-Test": "yes", "Cache-Control": "max-age=60"])
        case "/etag":
            if request.headers["If-None-Match"] == "\"v1\"" {
                return OriginResponse(status: 304, headers: ["ETag": "\"v1\""])
            }
            return .text("versioned", headers: ["ETag": "\"v1\""])
        case "/redirect":
            return OriginResponse(status: 302, headers: ["Location": "/hello"], body: .bytes(Data("moved".utf8)))
        case "/echo":
            let body = String(decoding: request.body, as: UTF8.self)
            return .text("\(request.method) \(body) \(request.headers["Content-Type"] ?? "-")")
        case "/gzip":
            return OriginResponse(
                headers: ["Content-Encoding": "gzip", "Content-Type": "text/plain", "ETag": "\"gz\""],
                body: .bytes(gzipBytes))
        case "/generated":
            let size = Int(request.queryValue("size") ?? "0") ?? 0
            let chunked = request.queryValue("chunked") == "1"
            return OriginResponse(body: .stream(contentLength: chunked ? nil : size) { writer in
                var offset = 0
                var chunk = [UInt8](repeating: 0, count: 64 * 1024)
                while offset < size {
                    let count = min(chunk.count, size - offset)
                    for index in 0..<count { chunk[index] = patternByte(offset + index) }
                    try writer.write(Data(chunk[..<count]))
                    offset += count
                }
            })
        case "/stall-head":
            return OriginResponse(body: .raw { socket in socket.stall() })
        case "/stall-body":
            return OriginResponse(body: .raw { socket in
                try socket.write("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial")
                socket.stall()
            })
        default:
            if request.path.hasPrefix("/n/") { return .text("n=\(request.path.dropFirst(3))") }
            return .text("not found", status: 404)
        }
    }
}

extension HTTPTransport {
    /// Sends `request` and reads the whole body.
    func fetch(_ request: HTTPRequest) async throws -> (TransportResponse, Data) {
        let response = try await send(request)
        return (response, try await response.body.collect())
    }
}

extension TestOrigin {
    /// Routes whose responses break the protocol, built on the origin's raw socket hook.
    static func faulty(_ request: OriginRequest) -> OriginResponse {
        switch request.path {
        case "/reset-mid-body":
            return OriginResponse(body: .raw { socket in
                try socket.write("HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n")
                try socket.write(Data(repeating: 65, count: 5000))
                socket.resetOnClose()
            })
        case "/short-body":
            return OriginResponse(body: .raw { socket in
                try socket.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this")
            })
        case "/enormous-head":
            return OriginResponse(body: .raw { socket in
                try socket.write("HTTP/1.1 200 OK\r\n")
                let filler = String(repeating: "f", count: 200)
                for index in 0..<2000 { try socket.write("X-Filler-\(index): \(filler)\r\n") }
                try socket.write("Content-Length: 0\r\n\r\n")
            })
        case "/not-http":
            return OriginResponse(body: .raw { socket in try socket.write("SSH-2.0-OpenSSH\r\n\r\n") })
        default:
            return route(request)
        }
    }
}
