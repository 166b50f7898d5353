#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP socket bound to a free port of 127.0.0.1, for tests that need a port of their own.
public enum LoopbackSocket {
    /// A socket call that failed, with its `errno`.
    public struct Failure: Error {
        public let operation: String
        public let code: Int32
    }

    /// Binds a new socket to a free port of 127.0.0.1, listening with `backlog` when given.
    /// - Returns: the socket, which the caller closes, and its port.
    public static func make(listening backlog: Int32? = nil) throws -> (descriptor: Int32, port: UInt16) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(operation: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let failed = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address -> String? in
                if bind(descriptor, address, length) != 0 { return "bind" }
                if let backlog, listen(descriptor, backlog) != 0 { return "listen" }
                return getsockname(descriptor, address, &length) == 0 ? nil : "getsockname"
            }
        }
        if let failed {
            let code = errno
            close(descriptor)
            throw Failure(operation: failed, code: code)
        }
        return (descriptor, UInt16(bigEndian: address.sin_port))
    }
}
