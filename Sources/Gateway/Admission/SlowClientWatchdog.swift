import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Cuts off connections whose client takes longer than the head timeout to send a request head
/// (slowloris: many connections each sending a header byte now and then, which an idle timeout
/// never ends), so that they cannot hold the gateway's connections and threads.
///
/// The HTTP server tells it when a connection opens and closes and when a response ends; the
/// access handler tells it when a head has arrived. One thread looks at the deadlines a few times a
/// second and shuts down the socket of each connection past its deadline: the connection's own
/// thread then reads the end of the stream and closes it. The socket is shut down under the lock
/// that the close notice takes, and the server sends that notice before it closes the socket, so
/// the number shut down is always still that connection's.
final class SlowClientWatchdog: Sendable {
    private struct State {
        /// The sockets of connections waiting for a head, and when each must have it in full.
        var deadlines: [Int32: ContinuousClock.Instant] = [:]
        var stopped = false
    }

    private let timeout: Duration
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    init(timeout: Duration) {
        self.timeout = timeout
        let thread = Thread { [self] in watch() }
        thread.name = "GatewayServer.watchdog"
        thread.start()
    }

    /// A connection opened, or answered its request and waits for the next head.
    func awaitHead(on socket: Int32) {
        let deadline = ContinuousClock.now + timeout
        state.withLock { $0.deadlines[socket] = deadline }
    }

    /// A request head arrived in full.
    func headArrived(on socket: Int32) {
        _ = state.withLock { $0.deadlines.removeValue(forKey: socket) }
    }

    /// The connection is about to be closed.
    func closed(_ socket: Int32) {
        _ = state.withLock { $0.deadlines.removeValue(forKey: socket) }
    }

    /// Ends the thread and waits for it.
    func stop() {
        state.withLock { $0.stopped = true }
        finished.wait()
    }

    private func watch() {
        while true {
            let stopped = state.withLock { state -> Bool in
                guard !state.stopped else { return true }
                let now = ContinuousClock.now
                for (socket, deadline) in state.deadlines where deadline < now {
                    shutdown(socket, Int32(SHUT_RDWR))
                    state.deadlines[socket] = nil
                }
                return false
            }
            if stopped { break }
            Thread.sleep(forTimeInterval: 0.2)
        }
        finished.signal()
    }
}
