import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCache

/// Cancelling a preload's task stops the run: the fetch in flight is given up, nothing more starts,
/// what settled is recorded as in a whole run, and the pages it did not finish keep what an earlier
/// run recorded.
@Suite(.timeLimit(.minutes(5)))
struct PreloadCancellationTests {
    /// `/done.html` needs a stylesheet and an image; `/first.html` needs nothing; `/slow.html` is
    /// held back until `gate` is signalled (or for a minute at most), with marks when it is asked for
    /// and when it is answered.
    private static func origin(gate: DispatchSemaphore, marks: PreloadMarks) throws -> PreloadRig {
        try PreloadRig.start { request in
            switch request.path {
            case "/done.html":
                return .text("<link rel=stylesheet href=done.css><img src=done.png>", contentType: "text/html")
            case "/done.css":
                return .text("body { color: black }", contentType: "text/css")
            case "/first.html":
                return .text("<p>first</p>", contentType: "text/html")
            case "/slow.html":
                marks.add("slow asked")
                _ = gate.wait(timeout: .now() + 60)
                marks.add("slow answered")
                return .text("<p>slow</p>", contentType: "text/html")
            default:
                return OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(10)))
            }
        }
    }

    /// Waits until `condition` holds, for two minutes at most (a safety net: the checks after it fail then).
    private static func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(120)
        while !condition(), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    @Test func aCancelledRunRecordsWhatSettledAndLeavesThePagesItDidNotFinish() async throws {
        let gate = DispatchSemaphore(value: 0)
        let marks = PreloadMarks()
        let rig = try Self.origin(gate: gate, marks: marks)
        let cache = rig.cache
        let earlier = await cache.preload(["done.html"])
        try #require(earlier.succeeded, "\(earlier.failures)")
        let recorded = try cache.store.edges(forPage: rig.url("done.html"))
        try #require(recorded.count == 3)
        try #require(try cache.store.pageStatus(forPage: rig.url("done.html")).isComplete)

        // One fetch at a time: first.html, then slow.html, which is held back; done.html waits its turn.
        var options = PreloadOptions()
        options.concurrency = 1
        options.perHostConcurrency = 1
        let events = PreloadEventLog()
        let run = Task {
            await cache.preload(["first.html", "slow.html", "done.html"], options: options, events: events.handler)
        }
        try await Self.waitUntil { events.fetchedPaths.contains("/first.html") && marks.contains("slow asked") }
        try #require(marks.contains("slow asked"), "\(events.all)")
        run.cancel()
        let report = await run.value
        let answeredBeforeTheEnd = marks.contains("slow answered")
        gate.signal()

        #expect(!answeredBeforeTheEnd, "the run ended without waiting for the fetch in flight")
        #expect(report.interrupted)
        #expect(!report.succeeded)
        #expect(report.pages == 3)
        #expect(report.unfinishedPages == 2 && report.unfinished == 2, "slow.html and done.html")
        #expect(report.failedPages == 0)
        #expect(report.failures.isEmpty, "a fetch given up is not a failure: \(report.failures)")
        #expect(report.completed == 1)
        #expect(events.fetchedPaths == ["/first.html"])
        #expect(events.failures.isEmpty, "\(events.all)")
        #expect(rig.requestCounts["/done.html"] == 1, "done.html was not asked for again")
        // What settled is recorded as in a whole run; the rest is left as the store had it.
        #expect(try cache.store.pageStatus(forPage: rig.url("first.html")).isComplete)
        #expect(try cache.store.edges(forPage: rig.url("slow.html")).isEmpty)
        #expect(try cache.store.edges(forPage: rig.url("done.html")) == recorded)
        #expect(try cache.store.pageStatus(forPage: rig.url("done.html")).isComplete)
        await rig.stop()
    }

    @Test func theCompletionFormHandsBackATaskThatStopsTheRun() async throws {
        let gate = DispatchSemaphore(value: 0)
        let marks = PreloadMarks()
        let rig = try Self.origin(gate: gate, marks: marks)
        let (reports, continuation) = AsyncStream.makeStream(of: PreloadReport.self)

        let task = rig.cache.preload(["slow.html"], events: { _ in }) { report in
            continuation.yield(report)
            continuation.finish()
        }
        try await Self.waitUntil { marks.contains("slow asked") }
        task.cancel()
        var iterator = reports.makeAsyncIterator()
        let report = await iterator.next()
        gate.signal()

        #expect(report?.interrupted == true)
        #expect(report?.unfinishedPages == 1)
        #expect(report?.failures.isEmpty == true)
        await rig.stop()
    }

    @Test func closingTheCacheStopsAPreloadInFlightInsteadOfFailingIt() async throws {
        let gate = DispatchSemaphore(value: 0)
        let marks = PreloadMarks()
        let rig = try Self.origin(gate: gate, marks: marks)
        let (reports, continuation) = AsyncStream.makeStream(of: PreloadReport.self)
        var options = PreloadOptions()
        options.concurrency = 1
        options.perHostConcurrency = 1

        // Given a preload, started by the completion form, whose second page is held back
        rig.cache.preload(["first.html", "slow.html", "done.html"], options: options, events: { _ in }) { report in
            continuation.yield(report)
            continuation.finish()
        }
        while !marks.contains("slow asked") { try await Task.sleep(for: .milliseconds(10)) }

        // When the cache is closed under it
        await rig.cache.close()
        var iterator = reports.makeAsyncIterator()
        let report = await iterator.next()
        gate.signal()

        // Then the run was stopped, not failed: nothing found the store closed
        #expect(report?.interrupted == true)
        #expect(report?.failures.isEmpty == true, "\(report?.failures ?? [])")
        #expect(report?.completed == 1)
        #expect(report?.unfinishedPages == 2)
        // and a preload started after close is interrupted at once, without a request
        let late = await rig.cache.preload(["done.html"])
        #expect(late.interrupted)
        #expect(late.failures.isEmpty, "\(late.failures)")
        #expect(rig.requestCounts["/done.html"] == nil)
        await rig.stop()
    }
}
