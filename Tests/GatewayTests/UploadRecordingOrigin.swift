import Foundation
import Synchronization
import WebCacheTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// An origin on 127.0.0.1 that records a request's bytes as they arrive (``OriginServer`` reads a
/// whole body before it answers). It serves one request with a `Content-Length`: once the body is
/// complete it answers 200 with the number of body bytes as text, and closes the connection.
final class UploadRecordingOrigin: Sendable {
    /// The port it listens on.
    var port: UInt16 { listener.port }
    private let listener: LoopbackListener
    private let received = Mutex(Data())

    init() throws {
        listener = try LoopbackListener(backlog: 4)
        Thread { [self] in serveOne() }.start()
    }

    /// The URL of `path` on this origin.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// The body bytes received so far.
    var body: Data {
        received.withLock { data in
            guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return Data() }
            return Data(data[end.upperBound...])
        }
    }

    /// Waits until at least `count` body bytes have arrived; `false` if they have not within 10 seconds.
    func waitForBody(atLeast count: Int) async -> Bool {
        for _ in 0..<1_000 {
            if body.count >= count { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// Stops listening (the connection being served, if any, goes on).
    func stop() {
        listener.stop()
    }

    private func serveOne() {
        guard let connection = listener.accept() else { return }
        defer { close(connection) }
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = recv(connection, &buffer, buffer.count, 0)
            guard count > 0 else { return }
            received.withLock { $0.append(contentsOf: buffer[..<count]) }
            let (head, body) = received.withLock { data -> (String, Int) in
                guard let end = data.range(of: Data("\r\n\r\n".utf8)) else { return ("", -1) }
                return (String(decoding: data[..<end.lowerBound], as: UTF8.self), data.count - end.upperBound)
            }
            let declared = head.split(separator: "\r\n").lazy
                .compactMap { line -> Int? in
                    let parts = line.split(separator: ":", maxSplits: 1)
                    guard parts.count == 2, parts[0].lowercased() == "content-length" else { return nil }
                    return Int(parts[1].trimmingCharacters(in: .whitespaces))
                }.first
            if let declared, body >= declared {
                let text = "\(body)"
                let reply = "HTTP/1.1 200 OK\r\nContent-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n\(text)"
                let bytes = Array(reply.utf8)
                _ = bytes.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                return
            }
        }
    }
}
