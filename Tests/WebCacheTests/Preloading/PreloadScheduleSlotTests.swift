import Discovery
import Foundation
import Testing

@testable import WebCache

/// How the schedule frees a slot when a transfer ends before its save, and only once.
@Suite struct PreloadScheduleSlotTests {
    private static func item(_ path: String) -> PreloadItem {
        PreloadItem(url: URL(string: "http://origin.test/\(path)")!, kind: .image, depth: 0)
    }

    @Test func endedTransferFreesItsSlotWhileTheItemStaysUnfinished() throws {
        var schedule = PreloadSchedule(limits: PreloadLimits(concurrency: 100, perHost: 1))
        let queuedFirst = schedule.enqueue(Self.item("a.png"))
        let queuedSecond = schedule.enqueue(Self.item("b.png"))
        #expect(queuedFirst && queuedSecond)
        let first = try #require(schedule.nextRunnable() as PreloadItem?)
        let blocked = schedule.nextRunnable()
        #expect(blocked == nil, "the host's only slot is taken")

        schedule.endTransfer(first)
        #expect(schedule.running == 0)
        #expect(schedule.unfinished == 1)
        let second = try #require(schedule.nextRunnable() as PreloadItem?)
        #expect(second.url.lastPathComponent == "b.png")
        #expect(schedule.running == 1)
        #expect(schedule.unfinished == 2)

        schedule.finish(first, failure: nil)
        #expect(schedule.running == 1, "a finished item whose transfer had ended frees nothing twice")
        #expect(schedule.unfinished == 1)
        #expect(schedule.failure(of: URLKey(first.url)) == nil)
    }

    @Test func finishFreesTheSlotOfAnItemWithoutAnEndedTransfer() throws {
        var schedule = PreloadSchedule(limits: PreloadLimits(concurrency: 100, perHost: 1))
        let queued = schedule.enqueue(Self.item("a.png"))
        #expect(queued)
        let item = try #require(schedule.nextRunnable() as PreloadItem?)

        schedule.finish(item, failure: "HTTP 404")
        schedule.endTransfer(item)
        #expect(schedule.running == 0, "a transfer end told after the finish is ignored")
        #expect(schedule.unfinished == 0)
        #expect(schedule.failure(of: URLKey(item.url)) == "HTTP 404")
    }

    /// The limit counts per host name and port, as libcurl counts connections: two servers on one
    /// name have a slot each, and one server has one however its default port is written.
    @Test func theLimitCountsPerHostAndPort() throws {
        var schedule = PreloadSchedule(limits: PreloadLimits(concurrency: 100, perHost: 1))
        for url in ["http://origin.test:8080/a.png", "http://origin.test:8081/b.png", "http://origin.test/c.png",
                    "http://origin.test:80/d.png"]
        {
            _ = schedule.enqueue(PreloadItem(url: URL(string: url)!, kind: .image, depth: 0))
        }
        var started: [String] = []
        while let item = schedule.nextRunnable() { started.append(item.url.lastPathComponent) }
        #expect(started == ["a.png", "b.png", "c.png"], "d.png waits for the slot of port 80")
    }

    /// A slot freed goes back to the host whose item it was: with one slot a host, the end of a
    /// transfer of one host lets that host start its next item and no other.
    @Test func aFreedSlotGoesBackToItsOwnHost() throws {
        var schedule = PreloadSchedule(limits: PreloadLimits(concurrency: 100, perHost: 1))
        for url in ["http://one.test/a.png", "http://two.test/b.png", "http://one.test/c.png",
                    "http://two.test/d.png", "http://three.test/e.png"]
        {
            _ = schedule.enqueue(PreloadItem(url: URL(string: url)!, kind: .image, depth: 0))
        }
        var started: [PreloadItem] = []
        while let item = schedule.nextRunnable() { started.append(item) }
        #expect(started.map(\.url.lastPathComponent) == ["a.png", "b.png", "e.png"])

        schedule.endTransfer(try #require(started.last))
        #expect(schedule.nextRunnable() == nil, "three.test has nothing more; one.test and two.test are busy")
        schedule.finish(started[1], failure: nil)
        let next = try #require(schedule.nextRunnable() as PreloadItem?)
        #expect(next.url.lastPathComponent == "d.png", "two.test's slot went back to two.test")
        #expect(schedule.nextRunnable() == nil, "one.test's slot is still taken by a.png")
        schedule.finish(started[0], failure: nil)
        #expect(schedule.nextRunnable()?.url.lastPathComponent == "c.png")
    }
}
