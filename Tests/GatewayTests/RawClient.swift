import Foundation
import HTTPCore
#if canImport(Glibc)
import Glibc
#endif

/// A bare TCP client for requests a URL library cannot send as such (absolute-form with chosen
/// hop-by-hop fields, `CONNECT`). It sends the text, reads until the server closes, and splits the reply.
enum RawClient {
    struct Reply {
        var statusLine: String
        var headers: HTTPHeaders
        var body: String
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func connect(port: UInt16) -> Int32? {
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

    static func canConnect(port: UInt16) -> Bool {
        guard let socket = connect(port: port) else { return false }
        close(socket)
        return true
    }

    /// Sends `text` and reads the reply until the server closes the connection, on a thread of
    /// its own so that the blocking socket calls never hold up the tasks that serve the request.
    static func exchange(port: UInt16, _ text: String) async throws -> Reply {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try blockingExchange(port: port, text) })
            }
        }
    }

    private static func blockingExchange(port: UInt16, _ text: String) throws -> Reply {
        guard let socket = connect(port: port) else { throw Failure(description: "Cannot connect to port \(port).") }
        defer { close(socket) }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let bytes = Array(text.utf8)
        guard send(socket, bytes, bytes.count, 0) == bytes.count else { throw Failure(description: "Sending failed.") }
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
