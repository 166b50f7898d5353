import Discovery
import Foundation
import Testing

@testable import WebCache

/// How many fetches the engine hands its transport at once, in all and per host, and when it hands
/// them ahead of time.
@Suite struct PreloadLimitsTests {
    /// A schedule with `count` images waiting on each of `hosts`.
    private static func schedule(
        _ limits: PreloadLimits, hosts: [String], count: Int = 20
    ) -> PreloadSchedule {
        var schedule = PreloadSchedule(limits: limits)
        for index in 0..<count {
            for host in hosts {
                _ = schedule.enqueue(PreloadItem(url: URL(string: "\(host)/\(index).png")!, kind: .image, depth: 0))
            }
        }
        return schedule
    }

    /// Starts what the limits let start; returns how many started per host.
    private static func startAll(_ schedule: inout PreloadSchedule) -> [String: Int] {
        var started: [String: Int] = [:]
        while let item = schedule.nextRunnable() {
            started["\(item.url.scheme ?? "")://\(item.url.host ?? "")", default: 0] += 1
        }
        return started
    }

    @Test func withoutHandingAheadTheLimitsHoldAsGiven() {
        var schedule = Self.schedule(
            PreloadLimits(concurrency: 5, perHost: 3), hosts: ["http://a.test", "http://b.test"])
        let started = Self.startAll(&schedule)
        #expect(started.values.reduce(0, +) == 5)
        #expect(started.values.allSatisfy { $0 <= 3 })
    }

    /// Where each transfer needs a connection of its own, the transport holds them to its caps and
    /// gets twice as many, the rest waiting inside it.
    @Test func aheadOfTimeWhereEachTransferNeedsAConnection() {
        let limits = PreloadLimits(concurrency: 4, perHost: 3, handsAhead: true, multiplexesTLS: true)
        var schedule = Self.schedule(limits, hosts: ["http://a.test", "http://b.test"])
        let started = Self.startAll(&schedule)
        #expect(started == ["http://a.test": 4, "http://b.test": 4])

        var overHTTP1 = Self.schedule(
            PreloadLimits(concurrency: 4, perHost: 3, handsAhead: true), hosts: ["https://a.test"])
        #expect(Self.startAll(&overHTTP1) == ["https://a.test": 6])
    }

    /// Over HTTP/2 what the transport is handed runs at once, as streams of one connection: the
    /// per-host limit holds as given.
    @Test func notAheadToAHostThatMayMultiplex() {
        let limits = PreloadLimits(concurrency: 8, perHost: 3, handsAhead: true, multiplexesTLS: true)
        var schedule = Self.schedule(limits, hosts: ["https://a.test"])
        #expect(Self.startAll(&schedule) == ["https://a.test": 3])
    }

    /// Nor in all: several hosts that multiplex share the global limit as given, and hosts that do
    /// not get nothing ahead while a stream waits or runs.
    @Test func notAheadInAllWhileStreamsRun() {
        let limits = PreloadLimits(concurrency: 4, perHost: 3, handsAhead: true, multiplexesTLS: true)
        var schedule = Self.schedule(limits, hosts: ["https://a.test", "https://b.test", "https://c.test"])
        #expect(Self.startAll(&schedule).values.reduce(0, +) == 4)

        // Once a fetch that may run as a stream waits, nothing more is handed ahead: what was drains
        // below the limits, and the stream starts then.
        var mixed = Self.schedule(limits, hosts: ["http://plain.test"], count: 8)
        var handed: [PreloadItem] = []
        while let item = mixed.nextRunnable() { handed.append(item) }
        #expect(handed.count == 6, "three per host on plain.test, twice")
        _ = mixed.enqueue(PreloadItem(url: URL(string: "https://a.test/late.png")!, kind: .image, depth: 0))
        #expect(mixed.nextRunnable() == nil, "six handed out: the stream waits")
        for item in handed.prefix(3) { mixed.finish(item, failure: nil) }
        let stream = mixed.nextRunnable()
        #expect(stream?.url.host == "a.test")
        #expect(mixed.running == 4)
        #expect(mixed.nextRunnable() == nil, "while the stream runs, nothing beyond the limit")
    }
}
