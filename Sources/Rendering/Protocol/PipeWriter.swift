import Dispatch
import FoundationEssentials
import HTTPCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Writes messages to a pipe on a thread of its own, in order, so that a browser that stops reading
/// blocks that thread and never a task of the cooperative pool.
///
/// SIGPIPE is blocked on the thread: a write to a browser that has exited fails with `EPIPE`
/// instead of ending the process.
final class PipeWriter: Sendable {
    private struct Queue {
        var messages: [Data] = []
        var finished = false
    }

    private let descriptor: Int32
    private let queue = Mutex(Queue())
    private let available = DispatchSemaphore(value: 0)

    /// Starts the writing thread for `descriptor`, which the writer closes when it ends;
    /// `failed` is called once if a write fails.
    init(descriptor: Int32, failed: @escaping @Sendable (String) -> Void) {
        self.descriptor = descriptor
        POSIXThread.start(name: "DevTools.write") { [self] in
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            writeLoop(failed: failed)
            close(descriptor)
        }
    }

    /// Queues `data` to be written after what was queued before; dropped once the writer finished.
    func write(_ data: Data) {
        let queued = queue.withLock { queue in
            guard !queue.finished else { return false }
            queue.messages.append(data)
            return true
        }
        if queued { available.signal() }
    }

    /// Writes nothing more, closes the pipe (the browser reads its end), and returns at once.
    func finish() {
        let first = queue.withLock { queue in
            defer { queue.finished = true }
            return !queue.finished
        }
        if first { available.signal() }
    }

    private func writeLoop(failed: @Sendable (String) -> Void) {
        while true {
            available.wait()
            let next = queue.withLock { queue -> Data? in
                if queue.finished { return nil }
                return queue.messages.isEmpty ? Data() : queue.messages.removeFirst()
            }
            guard let next else { return }
            var offset = 0
            while offset < next.count {
                let written = next.withUnsafeBytes { bytes in
                    Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                }
                if written < 0 {
                    if errno == EINTR { continue }
                    failed("writing to the browser failed: \(String(cString: strerror(errno)))")
                    return
                }
                offset += written
            }
        }
    }
}
