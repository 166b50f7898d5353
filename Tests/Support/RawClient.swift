import Foundation
import HTTPCore

#if canImport(Glibc)
import Glibc
#endif

/// A bare HTTP/1.1 client on one TCP connection to 127.0.0.1, for looking at the exact bytes a
/// server sends and for requests a URL library cannot send as such (absolute-form with chosen
/// hop-by-hop fields, `CONNECT`).
///
/// An instance keeps one connection and reads responses one by one with blocking calls;
/// ``exchange(port:_:)`` sends one text on a connection of its own and reads until the server closes.
public final class RawClient {
    /// A response read by ``readResponse(head:)``.
    public struct Response: Sendable {
        /// The status code.
        public var status: Int
        /// The header fields, in the order received.
        public var headers: HTTPHeaders
        /// The content, de-chunked.
        public var body: Data
    }

    /// A reply read by ``exchange(port:_:)``.
    public struct Reply: Sendable {
        /// The status line, as received.
        public var statusLine: String
        /// The header fields, in the order received.
        public var headers: HTTPHeaders
        /// Everything after the head, as text.
        public var body: String
    }

    /// The connection failed or the server sent something that is not a response.
    public struct Failure: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    private let fd: Int32
    private var buffer: [UInt8] = []

    // MARK: - One connection

    /// Connects to `port` on 127.0.0.1.
    public init(port: UInt16) throws {
        guard let fd = Self.connect(port: port) else { throw Failure(description: "connect to port \(port) failed") }
        self.fd = fd
    }

    deinit { close(fd) }

    /// Sends `text` as it is.
    public func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw Failure(description: "send failed")
        }
    }

    /// Reads one response; `head` skips the content (for HEAD requests and 304s).
    public func readResponse(head: Bool = false) throws -> Response {
        let end = try readUntil([13, 10, 13, 10])
        let text = String(decoding: buffer[..<end], as: UTF8.self)
        buffer.removeFirst(end + 4)
        var lines = text.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw Failure(description: "bad status line")
        }
        var headers = HTTPHeaders()
        for line in lines {
            let parts = line.split(separator: ":", maxSplits: 1)
            headers.append(name: String(parts[0]), value: parts.count > 1 ? parts[1].trimmingHTTPWhitespace() : "")
        }
        var body = Data()
        if head || status == 304 || status == 204 {
            return Response(status: status, headers: headers, body: body)
        }
        if headers["Transfer-Encoding"] == "chunked" {
            while true {
                let lineEnd = try readUntil([13, 10])
                let size = Int(String(decoding: buffer[..<lineEnd], as: UTF8.self), radix: 16) ?? -1
                buffer.removeFirst(lineEnd + 2)
                guard size >= 0 else { throw Failure(description: "bad chunk size") }
                try fill(size + 2)
                body.append(contentsOf: buffer[..<size])
                buffer.removeFirst(size + 2)
                if size == 0 { break }
            }
        } else if let length = headers["Content-Length"].flatMap({ Int($0) }) {
            try fill(length)
            body.append(contentsOf: buffer[..<length])
            buffer.removeFirst(length)
        } else {
            while readMore() {}
            body.append(contentsOf: buffer)
            buffer.removeAll()
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Whether the server has closed the connection (reads until end of stream).
    public func isClosedByPeer() -> Bool {
        var scratch = [UInt8](repeating: 0, count: 1024)
        return recv(fd, &scratch, scratch.count, 0) == 0
    }

    private func readMore() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &chunk, chunk.count, 0)
        guard count > 0 else { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }

    private func fill(_ count: Int) throws {
        while buffer.count < count {
            guard readMore() else { throw Failure(description: "connection closed early") }
        }
    }

    private func readUntil(_ marker: [UInt8]) throws -> Int {
        var from = 0
        while true {
            if buffer.count >= marker.count {
                for index in from...(buffer.count - marker.count)
                where buffer[index..<index + marker.count].elementsEqual(marker) {
                    return index
                }
                from = buffer.count - marker.count + 1
            }
            guard readMore() else { throw Failure(description: "connection closed before the marker") }
        }
    }

    // MARK: - Single exchanges

    /// A socket connected to `port` on 127.0.0.1, or `nil` when nothing accepts there; the caller closes it.
    public static func connect(port: UInt16) -> Int32? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(socket)
            return nil
        }
        return socket
    }

    /// Whether something accepts connections on `port` on 127.0.0.1.
    public static func canConnect(port: UInt16) -> Bool {
        guard let socket = connect(port: port) else { return false }
        close(socket)
        return true
    }

    /// Sends `text` and reads the reply until the server closes the connection, on a thread of
    /// its own so that the blocking socket calls never hold up the tasks that serve the request.
    public static func exchange(port: UInt16, _ text: String) async throws -> Reply {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try blockingExchange(port: port, text) })
            }
        }
    }

    private static func blockingExchange(port: UInt16, _ text: String) throws -> Reply {
        guard let socket = connect(port: port) else { throw Failure(description: "Cannot connect to port \(port).") }
        defer { close(socket) }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(text.utf8)
        guard Glibc.send(socket, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw Failure(description: "Sending failed.")
        }
        var received = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        let reply = String(decoding: received, as: UTF8.self)
        guard let split = reply.range(of: "\r\n\r\n") else {
            throw Failure(description: "No complete head in: \(reply)")
        }
        var lines = reply[..<split.lowerBound].components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let value = String(line[line.index(after: colon)...]).trimmingHTTPWhitespace()
            headers.append(name: String(line[..<colon]), value: value)
        }
        return Reply(statusLine: statusLine, headers: headers, body: String(reply[split.upperBound...]))
    }
}
