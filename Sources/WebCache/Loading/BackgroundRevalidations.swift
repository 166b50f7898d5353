import Synchronization

/// Revalidations that run after a stale response was already served (RFC 5861 §3,
/// `stale-while-revalidate`), at most one per key at a time.
///
/// These are the one place the library starts a task that outlives its caller: serving first and
/// revalidating after is the point of the directive. Each task is tracked here, and
/// ``cancelAll()`` cancels and awaits them when the cache closes.
final class BackgroundRevalidations: Sendable {
    private let tasks = Mutex<[String: Task<Void, Never>]>([:])

    /// Starts `work` for `key` unless a revalidation of `key` is already running. Its errors are dropped:
    /// the stale response has been served, and the next load will try again.
    func start(key: String, _ work: @escaping @Sendable () async throws -> Void) {
        tasks.withLock { tasks in
            guard tasks[key] == nil else { return }
            tasks[key] = Task { [weak self] in
                try? await work()
                self?.finished(key)
            }
        }
    }

    private func finished(_ key: String) {
        _ = tasks.withLock { $0.removeValue(forKey: key) }
    }

    /// Waits for every running revalidation to end, and for those started meanwhile; cancelled, it
    /// cancels the one it waits for and stops waiting.
    func waitForAll() async {
        while !Task.isCancelled, let running = tasks.withLock({ $0.values.first }) {
            await withTaskCancellationHandler { await running.value } onCancel: { running.cancel() }
        }
    }

    /// Cancels every running revalidation and waits for them to end.
    func cancelAll() async {
        let running = tasks.withLock { tasks in
            defer { tasks.removeAll() }
            return Array(tasks.values)
        }
        for task in running {
            task.cancel()
            await task.value
        }
    }
}
