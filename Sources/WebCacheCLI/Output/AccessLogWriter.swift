import FoundationEssentials
import Synchronization

/// The gateway's access log, written in batches: lines collect in memory and reach the output in
/// one write once they fill ``capacity`` bytes, at most ``delay`` after the first of them was
/// logged (``run()``), and at ``flush()`` when the gateway stops. Every line is written, whole and in
/// the order logged: a batch is written under the lock that orders the lines.
///
/// One `write` per request cost a busy gateway a twentieth of its time on a small hit; a batch
/// costs one per ``capacity`` bytes or per ``delay``, whichever comes first.
final class AccessLogWriter: Sendable {
    private struct State {
        var pending: [UInt8] = []
        /// Whether the lines pending have been announced to ``run()``.
        var scheduled = false
    }

    /// The bytes held before they are written whatever the delay.
    let capacity: Int
    /// The longest a line waits in memory; 0 writes every line at once.
    let delay: Duration
    private let output: any TextOutput
    private let state = Mutex(State())
    private let announcements: AsyncStream<Void>
    private let announcer: AsyncStream<Void>.Continuation

    init(output: any TextOutput, delay: Duration, capacity: Int = 64 * 1024) {
        self.output = output
        self.delay = delay
        self.capacity = capacity
        (announcements, announcer) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Adds `line` (without its line feed) to the log.
    func append(_ line: String) {
        var line = line
        let announces = state.withLock { state -> Bool in
            line.withUTF8 { state.pending.append(contentsOf: $0) }
            state.pending.append(0x0A)
            if delay == .zero || state.pending.count >= capacity {
                write(&state)
                return false
            }
            defer { state.scheduled = true }
            return !state.scheduled
        }
        if announces { announcer.yield() }
    }

    /// Writes the lines pending now.
    func flush() {
        state.withLock { write(&$0) }
    }

    /// Writes the pending lines at most ``delay`` after the first of them was logged, until the task
    /// is cancelled or ``finish()`` is called.
    func run() async {
        for await _ in announcements {
            try? await Task.sleep(for: delay)
            flush()
        }
    }

    /// Ends ``run()`` and writes what is pending.
    func finish() {
        announcer.finish()
        flush()
    }

    /// Writes `state`'s pending lines in one write (under the lock, so that batches keep their order).
    private func write(_ state: inout State) {
        state.scheduled = false
        guard !state.pending.isEmpty else { return }
        output.write(data: Data(state.pending))
        state.pending.removeAll(keepingCapacity: true)
    }
}
