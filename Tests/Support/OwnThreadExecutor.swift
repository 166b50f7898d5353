import Dispatch

/// A task executor with a thread of its own, apart from the shared pool that runs every test's
/// tasks (as many threads as cores).
final class OwnThreadExecutor: TaskExecutor {
    private let queue = DispatchQueue(label: "test.own-thread")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

/// Runs `body` in the calling task, on a thread of its own rather than the shared pool.
///
/// For tests that compute or block for seconds: on the shared pool they hold one of the few threads
/// that every other test's tasks need, which then stall long enough to reach their own timeouts.
/// The test's context goes along, so expectations inside `body` are reported as usual.
public func offThePool<T: Sendable>(_ body: () async throws -> T) async rethrows -> T {
    try await withTaskExecutorPreference(OwnThreadExecutor()) { try await body() }
}
