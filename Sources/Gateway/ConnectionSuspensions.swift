import CMicroHTTPD
import Synchronization

/// The connections whose callbacks wait for something (the head of a response the loader is still
/// producing, more of its body, room for more of an upload, the removal of a damaged stored body),
/// suspended so that the HTTP server's few event-loop threads never block, and resumed from
/// whichever thread has what they wait for.
///
/// A callback registers its wake-up with the thing it waits for, then calls ``suspend(_:)``; the
/// other side calls ``resume(_:)``. Either order works: a resume that comes before the suspension
/// makes the suspension a no-op, and the callback, called again at once, finds what it waited for.
/// A resume is only ever a hint: every callback checks again what it waits for and waits again if
/// it is still not there, so a late resume of a connection that has moved on costs one call. The
/// server may resume only a connection it suspended, so the suspended ones are kept here, keyed by
/// their address, under one lock taken on misses only: a stored hit never waits.
final class ConnectionSuspensions: Sendable {
    private struct State {
        /// The suspended connections.
        var suspended: Set<UInt> = []
        /// Connections resumed before they were suspended: their next suspension is skipped.
        var resumedEarly: Set<UInt> = []
        /// Once set, nothing is suspended any more: the server is stopping and may not stop while
        /// a connection is suspended.
        var stopping = false
    }

    private let state = Mutex(State())

    /// Suspends `connection` (from one of its callbacks) unless it was resumed since it began to
    /// wait, or the server stops. - Returns: whether it was suspended.
    @discardableResult
    func suspend(_ connection: OpaquePointer) -> Bool {
        let key = UInt(bitPattern: Int(bitPattern: connection))
        return state.withLock { state in
            if state.stopping || state.resumedEarly.remove(key) != nil { return false }
            state.suspended.insert(key)
            MHD_suspend_connection(connection)
            return true
        }
    }

    /// Resumes the connection at `key` (``key(of:)``) if it is suspended, or makes its next
    /// suspension a no-op; from any thread.
    func resume(_ key: UInt) {
        state.withLock { state in
            if state.suspended.remove(key) != nil {
                if let connection = OpaquePointer(bitPattern: key) { MHD_resume_connection(connection) }
            } else {
                state.resumedEarly.insert(key)
            }
        }
    }

    /// The key of `connection` for ``resume(_:)``: its address, which a closure may carry.
    static func key(of connection: OpaquePointer) -> UInt {
        UInt(bitPattern: Int(bitPattern: connection))
    }

    /// The connection at `key` closed: a resume meant for it must not skip the suspension of a
    /// later connection at the same address.
    func closed(_ key: UInt) {
        _ = state.withLock { $0.resumedEarly.remove(key) }
    }

    /// Resumes every suspended connection and suspends none from now on, before the server stops.
    func resumeAll() {
        state.withLock { state in
            state.stopping = true
            for key in state.suspended {
                if let connection = OpaquePointer(bitPattern: key) { MHD_resume_connection(connection) }
            }
            state.suspended = []
        }
    }
}
