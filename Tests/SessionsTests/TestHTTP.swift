import Dispatch
import Foundation
import HTTPCore
import WebCacheTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A minimal HTTP/1.1 origin on 127.0.0.1 for end-to-end tests: one request per connection.
final class TestOrigin: Sendable {
    struct Request: Sendable {
        var method: String
        var path: String
        var headers: HTTPHeaders
        var body: Data
    }

    struct Response: Sendable {
        var status: Int
        var headers: HTTPHeaders = [:]
        var body: Data = Data()
    }

    var port: UInt16 { listener.port }
    private let listener: LoopbackListener

    init(handler: @escaping @Sendable (Request) -> Response) throws {
        listener = try LoopbackListener(backlog: 64)
        let thread = Thread { [listener] in
            while let connection = listener.accept() {
                Self.serve(connection, handler: handler)
            }
        }
        thread.start()
    }

    /// Stops accepting connections.
    func stop() {
        listener.stop()
    }

    var baseURL: URL { URL(string: "http://127.0.0.1:\(port)/")! }

    private static func serve(_ connection: Int32, handler: @Sendable (Request) -> Response) {
        defer { close(connection) }
        guard let (head, body) = readMessage(from: connection) else { return }
        let lines = head.components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ")
        guard requestLine.count == 3 else { return }
        let request = Request(
            method: String(requestLine[0]),
            path: String(requestLine[1]),
            headers: parseHeaders(lines.dropFirst()),
            body: body
        )
        let response = handler(request)
        var text = "HTTP/1.1 \(response.status) Test\r\nConnection: close\r\nContent-Length: \(response.body.count)\r\n"
        for field in response.headers { text += "\(field.name): \(field.value)\r\n" }
        writeAll(Data((text + "\r\n").utf8) + response.body, to: connection)
    }

    /// Sends `request` to its URL's host and port (a plain-HTTP exchange on 127.0.0.1) without following redirects.
    static func send(_ request: HTTPRequest) async throws -> (HTTPResponseHead, Data) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try sendBlocking(request) })
            }
        }
    }

    private static func sendBlocking(_ request: HTTPRequest) throws -> (HTTPResponseHead, Data) {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw POSIXError(.EMFILE) }
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(request.url.port ?? 80).bigEndian
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
        guard connected else { throw POSIXError(.ECONNREFUSED) }
        var target = request.url.path(percentEncoded: true)
        if let query = request.url.query(percentEncoded: true) { target += "?" + query }
        var text = "\(request.method.rawValue) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for field in request.headers { text += "\(field.name): \(field.value)\r\n" }
        text += "Content-Length: \(request.body?.count ?? 0)\r\n\r\n"
        writeAll(Data(text.utf8) + (request.body ?? Data()), to: socketFD)
        guard let (head, body) = readMessage(from: socketFD) else { throw POSIXError(.EBADMSG) }
        let lines = head.components(separatedBy: "\r\n")
        let status = lines[0].split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (HTTPResponseHead(status: status, headers: parseHeaders(lines.dropFirst())), body)
    }

    // MARK: - Wire helpers

    private static func readMessage(from connection: Int32) -> (String, Data)? {
        var buffer = Data()
        var chunk = [UInt8](repeating: 0, count: 4096)
        let separator = Data("\r\n\r\n".utf8)
        while buffer.range(of: separator) == nil {
            let count = read(connection, &chunk, chunk.count)
            guard count > 0 else { return nil }
            buffer.append(contentsOf: chunk[0..<count])
        }
        let headEnd = buffer.range(of: separator)!
        let head = String(decoding: buffer[..<headEnd.lowerBound], as: UTF8.self)
        var body = Data(buffer[headEnd.upperBound...])
        let headers = parseHeaders(head.components(separatedBy: "\r\n").dropFirst())
        let expected = headers["Content-Length"].flatMap { Int($0) } ?? 0
        while body.count < expected {
            let count = read(connection, &chunk, chunk.count)
            guard count > 0 else { break }
            body.append(contentsOf: chunk[0..<count])
        }
        return (head, body)
    }

    private static func parseHeaders(_ lines: some Sequence<String>) -> HTTPHeaders {
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append(
                name: String(line[..<colon]),
                value: line[line.index(after: colon)...].trimmingHTTPWhitespace()
            )
        }
        return headers
    }

    private static func writeAll(_ data: Data, to connection: Int32) {
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                // Without SIGPIPE: a client that has gone must not end the test process.
                let written = Glibc.send(connection, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}
