import Synchronization

/// A response head that will arrive once, awaited by one task.
final class HeadPromise: Sendable {
    private enum State {
        case pending(CheckedContinuation<TransportResponse, any Error>?)
        case done(Result<TransportResponse, any Error>)
    }

    private let state = Mutex(State.pending(nil))

    /// Settles the promise; later calls are ignored.
    func settle(_ result: Result<TransportResponse, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<TransportResponse, any Error>? in
            guard case .pending(let waiter) = state else { return nil }
            state = .done(result)
            return waiter
        }
        waiter?.resume(with: result)
    }

    /// Whether the promise has been settled.
    var isSettled: Bool {
        state.withLock { if case .done = $0 { true } else { false } }
    }

    /// Waits for the result.
    func value() async throws -> TransportResponse {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<TransportResponse, any Error>? in
                switch state {
                case .done(let result): return result
                case .pending:
                    state = .pending(continuation)
                    return nil
                }
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}
