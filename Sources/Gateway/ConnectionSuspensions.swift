import CMicroHTTPD
import Synchronization

/// The connections whose callbacks wait for something (the head of a response the loader is still
/// producing, more of its body, room for more of an upload, the removal of a damaged stored body),
/// suspended so that the HTTP server's few event-loop threads never block, and resumed from
/// whichever thread has what they wait for.
///
/// A callback registers its wake-up with the thing it waits for, then calls ``suspend(_:)``; the
/// other side calls ``resume(_:)``. Either order works: a resume that comes first is remembered, and
/// the suspension that follows is undone at once. A callback must never return without an answer
/// and without being suspended: the server would then not call it again until the client sent
/// something, which it does not. A resume is only ever a hint: every callback checks again what it
/// waits for and waits again if it is still not there, so a late resume of a connection that has
/// moved on costs one call. The server may resume only a connection it suspended, so the suspended
/// ones are kept here, keyed by their address, under one lock taken on misses only: a stored hit
/// never waits.
final class ConnectionSuspensions: Sendable {
    private struct State {
        /// The suspended connections.
        var suspended: Set<UInt> = []
        /// Connections resumed before they were suspended: their next suspension is undone at once.
        var resumedEarly: Set<UInt> = []
        /// Once set, nothing is suspended any more: the server is stopping and may not stop while
        /// a connection is suspended.
        var stopping = false
    }

    private let state = Mutex(State())
    /// Suspends and resumes the connection at an address: the HTTP server's functions, or a record
    /// of the calls in unit tests.
    private let suspendConnection: @Sendable (UInt) -> Void
    private let resumeConnection: @Sendable (UInt) -> Void

    /// Suspends and resumes connections of the HTTP server.
    convenience init() {
        self.init(suspend: { MHD_suspend_connection(OpaquePointer(bitPattern: $0)) },
                  resume: { MHD_resume_connection(OpaquePointer(bitPattern: $0)) })
    }

    /// Suspends and resumes connections with `suspend` and `resume`, given a connection's key.
    init(suspend: @escaping @Sendable (UInt) -> Void, resume: @escaping @Sendable (UInt) -> Void) {
        suspendConnection = suspend
        resumeConnection = resume
    }

    /// The key of `connection` for ``suspend(_:)`` and ``resume(_:)``: its address, which a closure
    /// may carry.
    static func key(of connection: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: connection))
    }

    /// Suspends the connection at `key` (from one of its callbacks), and resumes it again at once
    /// when it was resumed since it began to wait. Once the server stops, nothing is suspended: the
    /// server closes every connection.
    func suspend(_ key: UInt) {
        state.withLock { state in
            guard !state.stopping else { return }
            suspendConnection(key)
            if state.resumedEarly.remove(key) != nil {
                resumeConnection(key)
            } else {
                state.suspended.insert(key)
            }
        }
    }

    /// Resumes the connection at `key` if it is suspended, or has its next suspension undone at
    /// once; from any thread.
    func resume(_ key: UInt) {
        state.withLock { state in
            if state.suspended.remove(key) != nil {
                resumeConnection(key)
            } else {
                state.resumedEarly.insert(key)
            }
        }
    }

    /// The connection at `key` closed: a resume meant for it must not undo a suspension of a later
    /// connection at the same address.
    func closed(_ key: UInt) {
        _ = state.withLock { $0.resumedEarly.remove(key) }
    }

    /// Resumes every suspended connection and suspends none from now on, before the server stops.
    func resumeAll() {
        state.withLock { state in
            state.stopping = true
            for key in state.suspended { resumeConnection(key) }
            state.suspended = []
        }
    }
}
