import Foundation
import Synchronization
import Testing

@testable import WebCacheCLI

/// The gateway's access log in batches: lines wait in memory and are written together, whole and in
/// order, when they fill the buffer, when the delay since the first of them has passed, and at the end.
struct AccessLogWriterTests {
    /// Records every write as one piece, so that a test sees how lines were batched.
    final class RecordingOutput: TextOutput {
        private let pieces = Mutex<[Data]>([])
        let isTerminal = false

        func write(data: Data) {
            pieces.withLock { $0.append(data) }
        }

        var writes: [String] {
            pieces.withLock { $0.map { String(decoding: $0, as: UTF8.self) } }
        }
    }

    @Test func linesWaitInMemoryUntilFlushedThenGoOutInOneWrite() {
        let output = RecordingOutput()
        let log = AccessLogWriter(output: output, delay: .seconds(3600))

        for index in 0..<100 { log.append("GET http://example.com/\(index) 200 hit 12") }
        let beforeFlush = output.writes
        log.flush()

        #expect(beforeFlush.isEmpty)
        #expect(output.writes == [(0..<100).map { "GET http://example.com/\($0) 200 hit 12\n" }.joined()])
    }

    @Test func aFullBufferIsWrittenAtOnceAndTheRestAtFinish() {
        let output = RecordingOutput()
        let log = AccessLogWriter(output: output, delay: .seconds(3600), capacity: 100)
        let lines = (0..<30).map { "line \($0) of the access log" }

        for line in lines { log.append(line) }
        let beforeFinish = output.writes
        log.finish()

        // Each write ends with a whole line, the buffer's worth or more.
        #expect(beforeFinish.count >= 3)
        #expect(beforeFinish.allSatisfy { $0.hasSuffix("\n") && $0.utf8.count >= 100 })
        #expect(output.writes.joined() == lines.map { $0 + "\n" }.joined())
    }

    @Test func withoutDelayEveryLineIsWrittenAtOnce() {
        let output = RecordingOutput()
        let log = AccessLogWriter(output: output, delay: .zero)

        log.append("first")
        log.append("second")

        #expect(output.writes == ["first\n", "second\n"])
    }

    @Test func runWritesPendingLinesOnceTheDelayHasPassed() async {
        let output = RecordingOutput()
        let log = AccessLogWriter(output: output, delay: .milliseconds(1))
        let running = Task { await log.run() }
        defer { running.cancel() }

        log.append("waiting line")
        // Polled: the write comes from the running task (the cap is a safety net, not the assertion).
        for _ in 0..<3_000 where output.writes.isEmpty { try? await Task.sleep(for: .milliseconds(10)) }

        #expect(output.writes == ["waiting line\n"])
    }

    @Test func linesFromManyThreadsAreAllWrittenWhole() async {
        let output = RecordingOutput()
        let log = AccessLogWriter(output: output, delay: .seconds(3600), capacity: 512)

        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    for index in 0..<500 { log.append("writer \(writer) line \(index)") }
                }
            }
        }
        log.finish()

        let lines = output.writes.joined().split(separator: "\n").map(String.init)
        #expect(lines.count == 4_000)
        for writer in 0..<8 {
            // Each writer's lines in the order it logged them.
            let own = lines.filter { $0.hasPrefix("writer \(writer) ") }
            #expect(own == (0..<500).map { "writer \(writer) line \($0)" })
        }
    }
}
