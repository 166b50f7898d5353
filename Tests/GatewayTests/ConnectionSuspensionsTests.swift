import Synchronization
import Testing

@testable import Gateway

/// The rules of suspending and resuming, on a record of the calls the HTTP server would get: a
/// resume that comes before the suspension undoes it at once (a callback that returned without an
/// answer and without being suspended would never be called again), a connection is resumed only
/// when it is suspended, and stopping resumes every suspended one and suspends none after.
struct ConnectionSuspensionsTests {
    /// The calls made, in order.
    final class Calls: Sendable {
        private let calls = Mutex<[String]>([])
        var all: [String] { calls.withLock { $0 } }
        func record(_ call: String) { calls.withLock { $0.append(call) } }

        func suspensions() -> ConnectionSuspensions {
            ConnectionSuspensions(suspend: { self.record("suspend \($0)") }, resume: { self.record("resume \($0)") })
        }
    }

    @Test func aResumeAfterTheSuspensionResumesTheConnection() {
        let calls = Calls()
        let suspensions = calls.suspensions()
        suspensions.suspend(7)
        suspensions.resume(7)
        #expect(calls.all == ["suspend 7", "resume 7"])
    }

    @Test func aResumeBeforeTheSuspensionUndoesItAtOnce() {
        let calls = Calls()
        let suspensions = calls.suspensions()
        suspensions.resume(7)
        #expect(calls.all.isEmpty, "a connection that is not suspended may not be resumed")
        suspensions.suspend(7)
        #expect(calls.all == ["suspend 7", "resume 7"])
        // The early resume was used up: the next wait suspends until its own resume.
        suspensions.suspend(7)
        #expect(calls.all == ["suspend 7", "resume 7", "suspend 7"])
    }

    @Test func aSecondResumeOfAResumedConnectionIsKeptForItsNextWaitOnly() {
        let calls = Calls()
        let suspensions = calls.suspensions()
        suspensions.suspend(7)
        suspensions.resume(7)
        suspensions.resume(7)
        suspensions.suspend(7)
        #expect(calls.all == ["suspend 7", "resume 7", "suspend 7", "resume 7"])
    }

    @Test func anEarlyResumeOfAClosedConnectionIsForgotten() {
        let calls = Calls()
        let suspensions = calls.suspensions()
        suspensions.resume(7)
        suspensions.closed(7)
        suspensions.suspend(7)
        #expect(calls.all == ["suspend 7"])
    }

    @Test func stoppingResumesEverySuspendedConnectionAndSuspendsNoneAfter() {
        let calls = Calls()
        let suspensions = calls.suspensions()
        suspensions.suspend(1)
        suspensions.suspend(2)
        suspensions.resume(1)
        suspensions.resumeAll()
        suspensions.suspend(3)
        suspensions.resume(2)
        #expect(calls.all == ["suspend 1", "suspend 2", "resume 1", "resume 2"])
    }
}
