import Foundation
import Synchronization
import Testing

@testable import Gateway

/// The rules of suspending and resuming, on a record of the calls the HTTP server would get: a
/// resume that comes before the suspension undoes it at once (a callback that returned without an
/// answer and without being suspended would never be called again), a connection is resumed only
/// when it is suspended, and stopping resumes every suspended one, suspends none after, and waits
/// for the resumes other threads have under way (the server frees its connections once it stops).
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

    /// The server's resume is called outside the lock, so stopping must wait for one under way.
    @Test func stoppingWaitsForAResumeUnderWayOnAnotherThread() {
        let calls = Calls()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let suspensions = ConnectionSuspensions(suspend: { calls.record("suspend \($0)") }, resume: { key in
            entered.signal()
            release.wait()
            calls.record("resume \(key) returned")
        })
        suspensions.suspend(5)
        let resumed = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            suspensions.resume(5)
            resumed.signal()
        }
        entered.wait()  // The resume is under way, held inside the server's call.
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            suspensions.resumeAll()
            calls.record("stopped")
            stopped.signal()
        }
        // Stopping does not return while the resume is held: given time to, it records nothing.
        let stoppedEarly = stopped.wait(timeout: .now() + 0.3) == .success
        #expect(!stoppedEarly, "stopping returned while a resume was under way")
        release.signal()
        if !stoppedEarly { stopped.wait() }
        resumed.wait()
        #expect(calls.all == ["suspend 5", "resume 5 returned", "stopped"])
    }
}
