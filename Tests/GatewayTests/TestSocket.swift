import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Raw IPv4 TCP clients that choose their own source address, so that a gateway on this machine sees
/// a client that is not loopback (this machine's own non-loopback address), and clients that send a
/// request head slowly.
enum TestSocket {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// This machine's first IPv4 address that is not loopback, if it has one.
    static func firstNonLoopbackIPv4() -> String? {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return nil }
        defer { freeifaddrs(list) }
        var cursor = list
        while let entry = cursor {
            defer { cursor = entry.pointee.ifa_next }
            guard let address = entry.pointee.ifa_addr, Int32(address.pointee.sa_family) == AF_INET else { continue }
            let ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard UInt32(bigEndian: ipv4.s_addr) >> 24 != 127 else { continue }
            return String(cString: inet_ntoa(ipv4))
        }
        return nil
    }

    /// A socket bound to `source` and connected to `destination`:`port`.
    static func connect(from source: String, to destination: String, port: UInt16) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket() failed") }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        remote.sin_addr.s_addr = inet_addr(destination)
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        let connected = bound == 0 && withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        } == 0
        guard connected else {
            close(socket)
            throw Failure(description: "connecting from \(source) to \(destination):\(port) failed")
        }
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return socket
    }

    /// Sends `text` from `source` and returns everything received until the server closes (empty when
    /// it closes without answering), on a thread outside the shared pool.
    static func exchange(from source: String, to destination: String, port: UInt16, _ text: String) async throws
        -> String
    {
        try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result {
                    let socket = try connect(from: source, to: destination, port: port)
                    defer { close(socket) }
                    let bytes = Array(text.utf8)
                    var sent = 0
                    while sent < bytes.count {
                        let count = bytes[sent...].withUnsafeBytes {
                            send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                        }
                        // A server that refuses a request part-way may close before all of it is sent.
                        guard count > 0 else { break }
                        sent += count
                    }
                    var received: [UInt8] = []
                    var buffer = [UInt8](repeating: 0, count: 65536)
                    while true {
                        let count = recv(socket, &buffer, buffer.count, 0)
                        if count <= 0 { break }
                        received += buffer[0..<count]
                    }
                    return String(decoding: received, as: UTF8.self)
                })
            }
        }
    }

    /// A client that sends a request head one byte at a time, 50 ms apart, and never finishes it.
    final class SlowSender: Sendable {
        enum Outcome: Sendable, Equatable {
            /// The gateway closed (or reset) the connection while the head was still being sent.
            case closedByGateway
            /// ``stop()`` was called first.
            case stoppedByTest
            /// The safety net passed with the connection still open.
            case stillOpen
        }

        private let socket: Int32
        private let stopped = Atomic<Bool>(false)

        init(from source: String, to destination: String, port: UInt16) throws {
            socket = try TestSocket.connect(from: source, to: destination, port: port)
        }

        deinit { close(socket) }

        func stop() {
            stopped.store(true, ordering: .relaxed)
        }

        /// Sends until the gateway closes the connection, ``stop()`` is called, or `safetyNet` passes.
        func sendUntilClosed(safetyNet: Duration) async -> Outcome {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread { [self] in
                    continuation.resume(returning: send(until: ContinuousClock.now + safetyNet))
                }
            }
        }

        private func send(until deadline: ContinuousClock.Instant) -> Outcome {
            let head = Array("GET /slow HTTP/1.1\r\nHost: x\r\nX-Slow: ".utf8)
            var index = 0
            while ContinuousClock.now < deadline {
                if stopped.load(ordering: .relaxed) { return .stoppedByTest }
                var byte = index < head.count ? head[index] : UInt8(ascii: "a")
                index += 1
                if Glibc.send(socket, &byte, 1, Int32(MSG_NOSIGNAL)) != 1 { return .closedByGateway }
                // A closed connection shows as readable with nothing to read.
                var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
                if poll(&poller, 1, 50) > 0 {
                    var scratch = [UInt8](repeating: 0, count: 4096)
                    if recv(socket, &scratch, scratch.count, Int32(MSG_DONTWAIT)) <= 0 { return .closedByGateway }
                }
            }
            return .stillOpen
        }
    }
}
