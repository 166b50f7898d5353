import Dispatch
import FoundationEssentials
import HTTPCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Cuts off connections whose client takes longer than the head timeout to send a request head
/// (slowloris: many connections each sending a header byte now and then, which an idle timeout
/// never ends), so that they cannot hold the gateway's connections and threads.
///
/// The HTTP server tells it when a connection opens and closes; the connection's callbacks set
/// and clear the connection's deadline (``Deadline``) when a response ends and when a head has
/// arrived, with an atomic store and no lock, as it happens on every request. One thread looks at
/// the deadlines a few times a second and shuts down the socket of each connection past its
/// deadline: the server's event loop then reads the end of the stream and closes it. The socket
/// is shut down under the lock that the close notice takes, and the server sends that notice before
/// it closes the socket, so the number shut down is always still that connection's.
final class SlowClientWatchdog: Sendable {
    /// When one connection must have sent its request head in full.
    final class Deadline: Sendable {
        let socket: Int32
        /// Nanoseconds after the watchdog's start; 0 while no head is awaited.
        let nanoseconds = Atomic<Int64>(0)

        init(socket: Int32) {
            self.socket = socket
        }
    }

    private struct State {
        /// The open connections.
        var connections: [Int32: Deadline] = [:]
        var stopped = false
    }

    private let timeout: Duration
    private let start = ContinuousClock.now
    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    init(timeout: Duration) {
        self.timeout = timeout
        POSIXThread.start(name: "GatewayServer.watchdog") { [self] in watch() }
    }

    /// A connection opened on `socket`; its head is awaited from now.
    func opened(_ socket: Int32) -> Deadline {
        let deadline = Deadline(socket: socket)
        awaitHead(deadline)
        state.withLock { $0.connections[socket] = deadline }
        return deadline
    }

    /// The connection answered its request and waits for the next head.
    func awaitHead(_ deadline: Deadline) {
        deadline.nanoseconds.store(nanoseconds(at: .now + timeout), ordering: .relaxed)
    }

    /// A request head arrived in full.
    func headArrived(_ deadline: Deadline) {
        deadline.nanoseconds.store(0, ordering: .relaxed)
    }

    /// The connection is about to be closed.
    func closed(_ deadline: Deadline) {
        state.withLock { state in
            if state.connections[deadline.socket] === deadline { state.connections[deadline.socket] = nil }
        }
    }

    /// Ends the thread and waits for it.
    func stop() {
        state.withLock { $0.stopped = true }
        finished.wait()
    }

    /// `instant` as nanoseconds after the watchdog's start, at least 1.
    private func nanoseconds(at instant: ContinuousClock.Instant) -> Int64 {
        let elapsed = (instant - start).components
        return max(1, elapsed.seconds * 1_000_000_000 + elapsed.attoseconds / 1_000_000_000)
    }

    private func watch() {
        while true {
            let stopped = state.withLock { state -> Bool in
                guard !state.stopped else { return true }
                let now = nanoseconds(at: .now)
                for deadline in state.connections.values {
                    let due = deadline.nanoseconds.load(ordering: .relaxed)
                    guard due != 0, due < now else { continue }
                    shutdown(deadline.socket, Int32(SHUT_RDWR))
                    deadline.nanoseconds.store(0, ordering: .relaxed)
                }
                return false
            }
            if stopped { break }
            POSIXThread.sleep(seconds: 0.2)
        }
        finished.signal()
    }
}
