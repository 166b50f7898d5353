import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One accepted connection's socket, as raw misbehaviour hooks and streamed bodies see it.
///
/// Writes block until the bytes are in the kernel's buffer. Every blocking call returns or throws
/// when the server stops, because stopping shuts the socket down.
public final class OriginSocket: Sendable {
    /// The file descriptor; the server owns it and closes it after the response.
    let fd: Int32

    init(fd: Int32) {
        self.fd = fd
    }

    // MARK: - Writing

    /// Writes every byte of `data`, or throws ``OriginError`` when the peer has gone.
    public func write(_ data: Data) throws(OriginError) {
        let failure: Int32? = data.withUnsafeBytes { buffer -> Int32? in
            guard var pointer = buffer.baseAddress else { return nil }
            var remaining = buffer.count
            while remaining > 0 {
                let sent = send(fd, pointer, remaining, Int32(MSG_NOSIGNAL))
                if sent < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                pointer += sent
                remaining -= sent
            }
            return nil
        }
        if let failure {
            throw OriginError(message: "Could not write to the client socket: \(String(cString: strerror(failure))).")
        }
    }

    /// Writes `text` in UTF-8.
    public func write(_ text: String) throws(OriginError) {
        try write(Data(text.utf8))
    }

    // MARK: - Misbehaving

    /// Makes the coming close send a TCP reset instead of an orderly end (`SO_LINGER` with a zero timeout).
    /// Call it, then return from the hook: the client sees "connection reset by peer".
    public func resetOnClose() {
        var option = linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_LINGER, &option, socklen_t(MemoryLayout<linger>.size))
    }

    /// Blocks without sending anything until the client closes the connection, the server stops,
    /// or `timeout` passes (when given). Returns whether the peer or the server ended the connection.
    @discardableResult
    public func stall(timeout: Duration? = nil) -> Bool {
        let deadline = timeout.map { ContinuousClock.now + $0 }
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            var waitMilliseconds: Int32 = 200
            if let deadline {
                let left = ContinuousClock.now.duration(to: deadline)
                if left <= .zero { return false }
                let millis = left.components.seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000
                waitMilliseconds = Int32(clamping: max(1, min(200, millis)))
            }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, waitMilliseconds)
            if ready > 0 {
                if descriptor.revents & Int16(POLLHUP | POLLERR | POLLNVAL) != 0 { return true }
                // Readable: drain what the client sends; zero bytes means it closed.
                let count = recv(fd, &scratch, scratch.count, Int32(MSG_DONTWAIT))
                if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return true }
            } else if ready < 0 && errno != EINTR {
                return true
            }
        }
    }
}
