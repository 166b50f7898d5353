import Dispatch
import Foundation
import HTTPCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small HTTP/1.1 origin server on 127.0.0.1 for tests, examples and benchmarks.
///
/// One thread accepts connections and one thread serves each connection, with keep-alive. Request
/// content comes with a `Content-Length` or chunked. Every request is recorded in a log that tests
/// can read (``requests``, ``requestCount``).
///
/// ```swift
/// let server = OriginServer { request in .text("hello \(request.path)") }
/// try server.start()
/// defer { server.stop() }
/// let url = server.baseURL.appending(path: "greeting")
/// ```
///
/// Call ``stop()`` when done: it closes the listener and every connection and waits for the threads.
public final class OriginServer: Sendable {
    /// The function that answers each request. It runs on the connection's thread.
    public typealias Handler = @Sendable (OriginRequest) -> OriginResponse

    /// Settings of a server.
    public struct Configuration: Sendable {
        /// The TCP port; 0 lets the system choose a free one (see ``OriginServer/port``).
        public var port: UInt16 = 0
        /// The IPv4 address to listen on, numeric.
        public var address = "127.0.0.1"
        /// Latency added before every response.
        public var latency: Duration = .zero
        /// The largest request head (request line and header fields) accepted; larger gets a 431.
        public var maxRequestHeadBytes: Int = 64 * 1024
        /// The largest request content accepted; larger gets a 413.
        public var maxRequestBodyBytes: Int = 64 * 1024 * 1024

        /// Creates the default settings: an ephemeral port and no added latency.
        public init(port: UInt16 = 0, latency: Duration = .zero) {
            self.port = port
            self.latency = latency
        }
    }

    private struct State {
        var listener: Int32 = -1
        var port: UInt16 = 0
        var started = false
        var stopped = false
        var connections: Set<Int32> = []
        var log: [LoggedRequest] = []
        var count = 0
    }

    /// The settings the server was created with.
    public let configuration: Configuration
    private let handler: Handler
    private let state = Mutex(State())
    private let threads = DispatchGroup()

    /// Creates a stopped server that answers with `handler`.
    public init(configuration: Configuration = Configuration(), handler: @escaping Handler) {
        self.configuration = configuration
        self.handler = handler
    }

    // MARK: - Lifecycle

    /// Binds the configured address and port and starts serving.
    /// - Throws: ``OriginError`` when the socket cannot be bound, or when the server was started before.
    public func start() throws(OriginError) {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard listener >= 0 else { throw OriginError.system("Could not create a socket") }
        var yes: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = configuration.port.bigEndian
        guard inet_pton(AF_INET, configuration.address, &address.sin_addr) == 1 else {
            close(listener)
            throw OriginError(message: "The address '\(configuration.address)' is not a numeric IPv4 address.")
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 1024) == 0 else {
            let error = OriginError.system("Could not listen on \(configuration.address) port \(configuration.port)")
            close(listener)
            throw error
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        let chosenPort = UInt16(bigEndian: address.sin_port)
        let alreadyStarted = state.withLock { state -> Bool in
            if state.started { return true }
            state.started = true
            state.listener = listener
            state.port = chosenPort
            return false
        }
        if alreadyStarted {
            close(listener)
            throw OriginError(message: "The origin server on port \(port) was already started.")
        }
        threads.enter()
        let acceptThread = Thread { [self] in
            acceptLoop(listener: listener)
            threads.leave()
        }
        acceptThread.name = "OriginServer.accept"
        acceptThread.start()
    }

    /// Closes the listener and every connection, and waits until every server thread has ended.
    /// Calling it again, or on a server never started, does nothing.
    public func stop() {
        let listener = state.withLock { state -> Int32? in
            guard state.started, !state.stopped else { return nil }
            state.stopped = true
            // Under the lock: a connection's thread closes its descriptor under the same lock, so
            // each one shut down here is still that connection's and not a number the system has
            // since given to another socket of this process.
            for connection in state.connections { shutdown(connection, Int32(SHUT_RDWR)) }
            return state.listener
        }
        guard let listener else { return }
        shutdown(listener, Int32(SHUT_RDWR))
        threads.wait()
        close(listener)
    }

    // MARK: - Address

    /// The port the server listens on (the chosen one when configured with 0); 0 before ``start()``.
    public var port: UInt16 { state.withLock { $0.port } }

    /// `http://<address>:<port>/`.
    public var baseURL: URL { URL(string: "http://\(configuration.address):\(port)/")! }

    /// The absolute URL of `path` (with or without a leading slash) on this server.
    public func url(_ path: String) -> URL {
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        return URL(string: "http://\(configuration.address):\(port)/\(trimmed)")!
    }

    // MARK: - Request log

    /// Every request received since start or the last ``resetLog()``, in order.
    public var requests: [LoggedRequest] { state.withLock { $0.log } }

    /// How many requests were received since start or the last ``resetLog()``.
    public var requestCount: Int { state.withLock { $0.count } }

    /// Empties the request log and sets the counter to zero.
    public func resetLog() {
        state.withLock {
            $0.log.removeAll()
            $0.count = 0
        }
    }

    // MARK: - Threads

    private func acceptLoop(listener: Int32) {
        while true {
            let connection = accept(listener, nil, nil)
            if connection < 0 {
                if errno == EINTR || errno == ECONNABORTED { continue }
                return
            }
            var yes: Int32 = 1
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &yes, socklen_t(MemoryLayout<Int32>.size))
            let accepted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections.insert(connection)
                return true
            }
            guard accepted else {
                close(connection)
                return
            }
            threads.enter()
            let thread = Thread { [self] in
                OriginConnection(socket: OriginSocket(fd: connection), server: self).serve()
                state.withLock { state in
                    state.connections.remove(connection)
                    close(connection)
                }
                threads.leave()
            }
            thread.name = "OriginServer.connection"
            thread.start()
        }
    }

    // MARK: - Used by connections

    func record(_ request: OriginRequest) {
        let entry = LoggedRequest(
            method: request.method, target: request.target, headers: request.headers,
            bodyLength: request.body.count, time: request.receivedAt
        )
        state.withLock {
            $0.log.append(entry)
            $0.count += 1
        }
    }

    func respond(to request: OriginRequest) -> OriginResponse {
        handler(request)
    }
}

extension OriginError {
    static func system(_ what: String) -> OriginError {
        OriginError(message: "\(what): \(String(cString: strerror(errno))).")
    }
}
