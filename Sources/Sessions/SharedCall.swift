import Synchronization

/// One call shared by the callers that need its result at the same time (single flight), as
/// Nuke's TaskPool shares a task per key.
///
/// The call runs in a task of its own, so that no caller's cancellation ends it for the others; it
/// is cancelled once every caller waiting for it has been cancelled, so that stopping a preload
/// also stops the token command or request it was waiting for.
final class SharedCall<Value: Sendable>: Sendable {
    private let task: Task<Value, any Error>
    /// Callers waiting that are not cancelled.
    private let waiting = Mutex(0)

    /// Starts `operation`.
    init(_ operation: @escaping @Sendable () async throws -> Value) {
        task = Task { try await operation() }
    }

    /// Whether every caller gave the call up: a new caller starts a call of its own.
    var isAbandoned: Bool { task.isCancelled }

    /// How many callers joined the call and were not cancelled.
    var callerCount: Int { waiting.withLock { $0 } }

    /// Counts a caller in, before it awaits ``value()``. An actor calls it in the same turn in which
    /// it decides to share the call: counted only inside `value()`, a caller still on its way there
    /// would be missed, and the call cancelled under it when another caller is cancelled.
    func join() {
        waiting.withLock { $0 += 1 }
    }

    /// The call's result, for a caller counted in by ``join()``. When the calling task is cancelled,
    /// the call is cancelled too unless another caller still waits for it; either way this caller
    /// gets the call's outcome.
    func value() async throws -> Value {
        try await withTaskCancellationHandler {
            try await task.value
        } onCancel: {
            let nobodyLeft = waiting.withLock { count in
                count -= 1
                return count == 0
            }
            if nobodyLeft { task.cancel() }
        }
    }
}
