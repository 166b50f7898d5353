#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP port on 127.0.0.1 that refuses connections for as long as this value lives: a socket is
/// bound to it but never listens, so no other server of the test run can take the port meanwhile
/// (a port that was merely free a moment ago can be, by a test running in parallel).
public final class RefusingPort: Sendable {
    /// The port.
    public let port: UInt16
    private let descriptor: Int32

    /// Binds a socket to a free port of 127.0.0.1.
    public init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(operation: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            let code = errno
            close(descriptor)
            throw SocketError(operation: "bind", code: code)
        }
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit {
        close(descriptor)
    }

    /// A socket call that failed, with its `errno`.
    public struct SocketError: Error {
        public let operation: String
        public let code: Int32
    }
}
