import Testing

@testable import Rendering

@Suite struct PageLifecycleTests {
    let start = ContinuousClock().now

    func at(_ milliseconds: Int) -> ContinuousClock.Instant {
        start + .milliseconds(milliseconds)
    }

    func lifecycle() -> PageLifecycle {
        PageLifecycle(settle: .milliseconds(300), cap: .seconds(5), start: start)
    }

    @Test func settlesOnlyAfterTheLoadEventAndAQuietSettleTime() {
        var page = lifecycle()
        #expect(page.requestStarted("a", at: at(0)) == .none)
        #expect(page.requestEnded("a", at: at(100)) == .none)
        // Quiet for long, but no load event yet.
        #expect(page.tick(at: at(1000)) == .none)
        #expect(page.loadEventFired(at: at(1000)) == .runAfterLoad)
        #expect(page.afterLoadDone(at: at(1000)) == .none)
        #expect(page.tick(at: at(1299)) == .none)
        #expect(page.tick(at: at(1300)) == .finish(.settled))
        #expect(page.tick(at: at(1400)) == .none)
    }

    @Test func aRequestInFlightHoldsTheSettleBackAndItsEndRestartsIt() {
        var page = lifecycle()
        _ = page.loadEventFired(at: at(0))
        _ = page.afterLoadDone(at: at(0))
        _ = page.requestStarted("late", at: at(100))
        #expect(page.tick(at: at(2000)) == .none)
        #expect(page.requestEnded("late", at: at(2000)) == .none)
        #expect(page.tick(at: at(2200)) == .none)
        #expect(page.tick(at: at(2300)) == .finish(.settled))
    }

    @Test func waitsForTheAfterLoadScriptBeforeSettling() {
        var page = lifecycle()
        #expect(page.loadEventFired(at: at(0)) == .runAfterLoad)
        #expect(page.tick(at: at(1000)) == .none)
        #expect(page.afterLoadDone(at: at(1000)) == .none)
        #expect(page.afterLoadDone(at: at(1100)) == .none)
        #expect(page.tick(at: at(1300)) == .finish(.settled))
    }

    @Test func endsAtTheCapWhateverItIsDoing() {
        var page = lifecycle()
        _ = page.requestStarted("forever", at: at(0))
        #expect(page.tick(at: at(4999)) == .none)
        #expect(page.tick(at: at(5000)) == .finish(.capped))
        #expect(page.loadEventFired(at: at(5001)) == .none)
    }

    @Test func unknownEndsChangeNothing() {
        var page = lifecycle()
        _ = page.loadEventFired(at: at(0))
        _ = page.afterLoadDone(at: at(0))
        _ = page.requestStarted("a", at: at(0))
        #expect(page.requestEnded("b", at: at(200)) == .none)
        #expect(page.tick(at: at(400)) == .none)
    }

    @Test func activityWithoutARequestRestartsTheSettleTime() {
        var page = lifecycle()
        _ = page.loadEventFired(at: at(0))
        _ = page.afterLoadDone(at: at(0))
        #expect(page.activity(at: at(200)) == .none)
        #expect(page.tick(at: at(400)) == .none)
        #expect(page.tick(at: at(500)) == .finish(.settled))
        #expect(page.activity(at: at(600)) == .none)
    }
}
