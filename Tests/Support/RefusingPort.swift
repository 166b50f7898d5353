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
        (descriptor, port) = try LoopbackSocket.make()
    }

    deinit {
        close(descriptor)
    }
}
