import Synchronization

/// The operations of a ``WebCache`` in flight, so that ``WebCache/close()`` can end them cleanly
/// before it closes the store: preloads and refreshes are stopped as if their task had been
/// cancelled (their report says ``PreloadReport/interrupted``), other operations are waited for.
/// An operation never finds the store closed under it.
final class RunningWork: Sendable {
    private struct State {
        var closing = false
        var running = 0
        var nextWatcher = 0
        /// Operations waiting to be told that the cache closes, by watcher id.
        var watchers: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Watchers whose task was cancelled before they waited.
        var cancelledWatchers: Set<Int> = []
        /// `close()` calls waiting for the running operations to end.
        var drainers: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// Runs `operation`, which `close()` waits for.
    func counted<T: Sendable>(_ operation: () async throws -> T) async rethrows -> T {
        begin()
        defer { end() }
        return try await operation()
    }

    /// Runs `operation` in a child task that is cancelled when the cache starts closing (or when the
    /// calling task is), and returns what it returns; `close()` waits for it to end.
    func stoppable<T: Sendable>(_ operation: @escaping @Sendable () async -> T) async -> T {
        let closing = begin()
        defer { end() }
        return await withTaskGroup(of: T?.self, returning: T.self) { group in
            // Started after close began: the operation starts cancelled, so it does nothing.
            if closing { group.cancelAll() }
            group.addTask { await operation() }
            group.addTask {
                await self.waitUntilClosing()
                return nil
            }
            var result: T?
            while let next = await group.next() {
                if let value = next {
                    result = value
                    group.cancelAll()  // the watcher
                } else if result == nil {
                    group.cancelAll()  // closing: the operation stops and still returns its result
                }
            }
            guard let result else { preconditionFailure("A stoppable operation ended without a result.") }
            return result
        }
    }

    /// Starts closing: running operations are told to stop, and this returns once all have ended.
    func close() async {
        let watchers = state.withLock { state in
            state.closing = true
            let watchers = Array(state.watchers.values)
            state.watchers = [:]
            return watchers
        }
        for watcher in watchers { watcher.resume() }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state in
                guard state.running > 0 else { return true }
                state.drainers.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Counts an operation in; returns whether the cache is closing.
    @discardableResult
    private func begin() -> Bool {
        state.withLock { state in
            state.running += 1
            return state.closing
        }
    }

    private func end() {
        let drainers = state.withLock { state in
            state.running -= 1
            guard state.running == 0 else { return [CheckedContinuation<Void, Never>]() }
            defer { state.drainers = [] }
            return state.drainers
        }
        for drainer in drainers { drainer.resume() }
    }

    /// Returns once the cache starts closing, or when the calling task is cancelled.
    private func waitUntilClosing() async {
        let id = state.withLock { state in
            state.nextWatcher += 1
            return state.nextWatcher
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.closing || state.cancelledWatchers.remove(id) != nil { return true }
                    state.watchers[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            let waiting = state.withLock { state in
                guard let waiting = state.watchers.removeValue(forKey: id) else {
                    // Not waiting yet (or already told by close()): the wait must not start.
                    if !state.closing { state.cancelledWatchers.insert(id) }
                    return CheckedContinuation<Void, Never>?.none
                }
                return waiting
            }
            waiting?.resume()
        }
    }
}
