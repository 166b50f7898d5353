import Dispatch

/// A serial executor that runs an actor's jobs on its own `DispatchQueue`, so that blocking SQLite
/// I/O never occupies a thread of Swift's cooperative pool (GRDB `DispatchQueueActor`).
///
/// `DispatchSerialQueue` is not available on Linux, hence this small class.
final class QueueExecutor: SerialExecutor {
    let queue: DispatchQueue

    init(label: String) {
        self.queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async {
            job.runSynchronously(on: executor)
        }
    }

    /// Lets code that runs on the queue outside a job (a block the store puts on it) assume the
    /// actor's isolation.
    func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }
}
