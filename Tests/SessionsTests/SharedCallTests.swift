import Synchronization
import Testing

@testable import Sessions

/// One call shared by concurrent callers goes on while one of them still waits, and is cancelled
/// once every caller is.
@Suite(.timeLimit(.minutes(5)))
struct SharedCallTests {
    /// What the shared call's operation sees: whether it may end, and how often it ran.
    private final class Probe: Sendable {
        let released = Atomic(false)
        let runs = Atomic(0)

        /// A call that runs until released, counting its runs; it ends with `CancellationError`
        /// when cancelled first.
        func call() -> SharedCall<String> {
            SharedCall {
                self.runs.add(1, ordering: .relaxed)
                while !self.released.load(ordering: .relaxed) {
                    try await Task.sleep(for: .milliseconds(5))
                }
                return "shared"
            }
        }
    }

    /// Waits until `condition` holds (the test's time limit bounds the wait).
    private static func waitUntil(_ condition: () -> Bool) async throws {
        while !condition() { try await Task.sleep(for: .milliseconds(5)) }
    }

    @Test func goesOnWhileAnotherCallerStillWaits() async throws {
        let probe = Probe()
        let call = probe.call()
        call.join()
        call.join()
        let first = Task { try await call.value() }
        let second = Task { try await call.value() }

        first.cancel()
        try await Self.waitUntil { call.callerCount == 1 }
        probe.released.store(true, ordering: .relaxed)

        #expect(!call.isAbandoned)
        #expect(try await second.value == "shared")
        // The cancelled caller gets the call's outcome too.
        #expect(try await first.value == "shared")
        #expect(probe.runs.load(ordering: .relaxed) == 1)
    }

    @Test func isCancelledOnceEveryCallerIs() async throws {
        let call = Probe().call()
        call.join()
        call.join()
        let first = Task { try await call.value() }
        let second = Task { try await call.value() }

        first.cancel()
        second.cancel()

        await #expect(throws: CancellationError.self) { try await first.value }
        await #expect(throws: CancellationError.self) { try await second.value }
        #expect(call.isAbandoned)
    }
}
