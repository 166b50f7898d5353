import Synchronization

/// Carries a task's cancellation into work that runs on a Dispatch queue, outside the task.
///
/// Long reads (statistics, verification) call ``check()`` between steps, so that cancelling the
/// awaiting task stops them soon and frees their reader connection.
final class CancellationFlag: Sendable {
    private let cancelled = Atomic<Bool>(false)

    /// Marks the work as cancelled.
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    /// Throws `CancellationError` once ``cancel()`` was called.
    func check() throws {
        if cancelled.load(ordering: .relaxed) {
            throw CancellationError()
        }
    }
}
