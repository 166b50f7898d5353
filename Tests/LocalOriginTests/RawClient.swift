import Foundation
import HTTPCore
#if canImport(Glibc)
import Glibc
#endif

/// A blocking HTTP/1.1 client on one TCP connection, to look at the bytes the origin sends.
final class RawClient {
    struct Response {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    private let fd: Int32
    private var buffer: [UInt8] = []

    init(port: UInt16) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else { throw Failure(description: "connect to port \(port) failed") }
    }

    deinit { close(fd) }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.send(fd, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw Failure(description: "send failed")
        }
    }

    /// Reads one response; `head` skips the content (for HEAD requests and 304s).
    func readResponse(head: Bool = false) throws -> Response {
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
    func isClosedByPeer() -> Bool {
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
}
