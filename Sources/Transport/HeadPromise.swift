import Synchronization

/// A response head that will arrive once, awaited by one task.
///
/// The result is held only until the waiting task takes it: the response's body must not be kept
/// alive from here, or dropping it could not cancel the transfer.
package final class HeadPromise: Sendable {
    private enum State {
        case pending(CheckedContinuation<TransportResponse, any Error>?)
        case ready(Result<TransportResponse, any Error>)
        case taken
    }

    private let state = Mutex(State.pending(nil))

    package init() {}

    /// Settles the promise; later calls are ignored.
    package func settle(_ result: Result<TransportResponse, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<TransportResponse, any Error>? in
            guard case .pending(let waiter) = state else { return nil }
            state = waiter == nil ? .ready(result) : .taken
            return waiter
        }
        waiter?.resume(with: result)
    }

    /// Whether the promise has been settled.
    package var isSettled: Bool {
        state.withLock { if case .pending = $0 { false } else { true } }
    }

    /// Waits for the result.
    package func value() async throws -> TransportResponse {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<TransportResponse, any Error>? in
                switch state {
                case .ready(let result):
                    state = .taken
                    return result
                case .pending:
                    state = .pending(continuation)
                    return nil
                case .taken:
                    preconditionFailure("A response head was awaited twice.")
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
