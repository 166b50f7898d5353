#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A socket listening on a free port of 127.0.0.1, for test servers that accept on a thread of
/// their own while another thread may stop them.
///
/// ``stop()`` only shuts the socket down, which ends a waiting ``accept()``; the descriptor is
/// closed when the last reference goes away. So neither the accepting thread nor a late stop can
/// reach a descriptor number the system has since given to another socket of this process.
public final class LoopbackListener: Sendable {
    /// The port it listens on.
    public let port: UInt16
    private let descriptor: Int32

    /// Listens on a free port with room for `backlog` waiting connections.
    public init(backlog: Int32) throws {
        (descriptor, port) = try LoopbackSocket.make(listening: backlog)
    }

    deinit { close(descriptor) }

    /// Waits for the next connection and returns its descriptor, which the caller closes;
    /// `nil` once stopped.
    public func accept() -> Int32? {
        while true {
            #if canImport(Glibc)
                let connection = Glibc.accept(descriptor, nil, nil)
            #else
                let connection = Darwin.accept(descriptor, nil, nil)
            #endif
            if connection >= 0 { return connection }
            if errno != EINTR { return nil }
        }
    }

    /// Stops accepting: a waiting ``accept()`` returns `nil`, and so does every later one.
    public func stop() {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }
}
