import CMicroHTTPD
import FoundationEssentials
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
/// never waits. The server's resume is called after the lock is released: it takes a lock of the
/// server's own and wakes its thread through a pipe, and under this lock it held up the connections'
/// threads, which suspend under it.
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
    /// Resumes taken out of the suspended set whose call to the server has not returned: the server
    /// may not stop, freeing its connections, before they have.
    private let resumesInFlight = Atomic<Int>(0)
    /// Suspends and resumes the connection at an address: the HTTP server's functions, or a record
    /// of the calls in unit tests.
    private let suspendConnection: @Sendable (UInt) -> Void
    private let resumeConnection: @Sendable (UInt) -> Void

    /// Suspends and resumes connections of the HTTP server.
    convenience init() {
        self.init(suspend: { cmhd_suspend_connection(OpaquePointer(bitPattern: $0)) },
                  resume: { cmhd_resume_connection(OpaquePointer(bitPattern: $0)) })
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
        let wasSuspended = state.withLock { state in
            guard state.suspended.remove(key) != nil else {
                state.resumedEarly.insert(key)
                return false
            }
            resumesInFlight.add(1, ordering: .relaxed)
            return true
        }
        guard wasSuspended else { return }
        // The connection stays suspended until this call returns, so nothing else can close it.
        resumeConnection(key)
        resumesInFlight.subtract(1, ordering: .releasing)
    }

    /// The connection at `key` closed: a resume meant for it must not undo a suspension of a later
    /// connection at the same address.
    func closed(_ key: UInt) {
        _ = state.withLock { $0.resumedEarly.remove(key) }
    }

    /// Resumes every suspended connection and suspends none from now on, before the server stops;
    /// returns once the resumes of other threads that were under way have returned too.
    func resumeAll() {
        let suspended = state.withLock { state in
            state.stopping = true
            defer { state.suspended = [] }
            return state.suspended
        }
        for key in suspended { resumeConnection(key) }
        // A resume under way was counted under the lock taken above, so none is missed here.
        while resumesInFlight.load(ordering: .acquiring) > 0 { sched_yield() }
    }
}
