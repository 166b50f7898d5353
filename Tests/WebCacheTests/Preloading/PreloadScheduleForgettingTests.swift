import Discovery
import Foundation
import Testing

@testable import WebCache

/// How the schedule lets go of a page once its edges are stored, what it still knows of it, and
/// how a page that frames it later gets its requisites back.
@Suite struct PreloadScheduleForgettingTests {
    private static func url(_ path: String) -> URL {
        URL(string: "http://origin.test/\(path)")!
    }

    /// Starts and finishes every waiting item, stored.
    /// `page` as the schedule lists a page whose edges are not stored yet.
    private static func pending(_ page: URL) -> PreloadSchedule.Page {
        PreloadSchedule.Page(url: page, key: URLKey(page))
    }

    /// Records that `page` references `url`, as the engine does with the keys it made.
    private static func record(in schedule: inout PreloadSchedule, from page: URL, to url: URL, kind: String) {
        schedule.recordReference(from: URLKey(page), to: url.absoluteString, key: URLKey(url), kind: kind)
    }

    private static func runAll(_ schedule: inout PreloadSchedule) {
        while let item = schedule.nextRunnable() { schedule.finish(item, failure: nil) }
    }

    @Test func aForgottenPageStaysSeenAndEndedButKeepsNoReferences() {
        var schedule = PreloadSchedule(limits: PreloadLimits(concurrency: 100, perHost: 100))
        let page = Self.url("a.html")
        _ = schedule.enqueue(PreloadItem(url: page, kind: nil, depth: 0))
        Self.record(in: &schedule, from: page, to: Self.url("a.png"), kind: "image")
        _ = schedule.enqueue(PreloadItem(url: Self.url("a.png"), kind: .image, depth: 0))
        Self.runAll(&schedule)
        let settled = schedule.checkSettled(URLKey(page))
        #expect(settled)
        #expect(schedule.requisites(of: Self.pending(page)).map(\.url) == [Self.url("a.png").absoluteString])

        schedule.forget(pages: [Self.pending(page)])

        #expect(schedule.pages.isEmpty)
        #expect(schedule.isForgotten(URLKey(page)))
        #expect(schedule.hasSeen(page.absoluteString) && schedule.hasEnded(URLKey(page)))
        let queuedAgain = schedule.enqueue(PreloadItem(url: page, kind: nil, depth: 0))
        #expect(!queuedAgain, "a page is fetched once per run")
        #expect(schedule.requisites(of: Self.pending(page)).isEmpty)
        #expect(schedule.unendedCount == 0)
    }

    @Test func aPageThatFramesAForgottenPageNeedsWhatItsEdgesList() {
        var schedule = PreloadSchedule(limits: PreloadLimits(concurrency: 100, perHost: 100))
        let first = Self.url("first.html")
        let later = Self.url("later.html")
        _ = schedule.enqueue(PreloadItem(url: first, kind: nil, depth: 0))
        Self.runAll(&schedule)
        schedule.forget(pages: [Self.pending(first)])
        _ = schedule.enqueue(PreloadItem(url: later, kind: nil, depth: 0))
        Self.record(in: &schedule, from: later, to: first, kind: "document")

        schedule.recall(page: first, [(Self.url("only-first.png").absoluteString, "image")])
        _ = schedule.enqueue(PreloadItem(url: Self.url("only-first.png"), kind: .image, depth: 0))

        #expect(!schedule.isForgotten(URLKey(first)))
        let settledEarly = schedule.checkSettled(URLKey(later))
        #expect(!settledEarly, "what the framed page needs has not ended yet")
        Self.runAll(&schedule)
        let settledLater = schedule.checkSettled(URLKey(later))
        #expect(settledLater)
        #expect(schedule.requisites(of: Self.pending(later)).map(\.url)
            == [first.absoluteString, Self.url("only-first.png").absoluteString])
    }

    @Test func settlingIsAskedAgainOnceWhatHeldItUpHasEnded() {
        var schedule = PreloadSchedule(limits: PreloadLimits(concurrency: 100, perHost: 100))
        let page = Self.url("p.html")
        _ = schedule.enqueue(PreloadItem(url: page, kind: nil, depth: 0))
        let pageItem = schedule.nextRunnable()!
        schedule.finish(pageItem, failure: nil)
        for name in ["1.png", "2.png"] {
            Self.record(in: &schedule, from: page, to: Self.url(name), kind: "image")
            _ = schedule.enqueue(PreloadItem(url: Self.url(name), kind: .image, depth: 0))
        }
        let firstImage = schedule.nextRunnable()!
        let settledFirst = schedule.checkSettled(URLKey(page))
        #expect(!settledFirst)
        schedule.finish(firstImage, failure: "HTTP 404")
        let settledAfterFirst = schedule.checkSettled(URLKey(page))
        #expect(!settledAfterFirst, "the second image has not ended")
        let secondImage = schedule.nextRunnable()!
        schedule.finish(secondImage, failure: nil)
        let settledAfterBoth = schedule.checkSettled(URLKey(page))
        #expect(settledAfterBoth)
        #expect(schedule.requisites(of: Self.pending(page)).map(\.failure) == ["HTTP 404", nil])
    }

    @Test func keysOfDifferentURLsDifferAndOfTheSameTextAgree() {
        let keys = Set((0..<10_000).map { URLKey("http://origin.test/\($0)") })
        #expect(keys.count == 10_000)
        #expect(URLKey(Self.url("a")) == URLKey("http://origin.test/a"))
    }

    @Test func aURLSeenIsRefusedAgainAfterManyOthersAndKeepsItsOutcome() {
        // Given a stored page, a failed image and one still waiting, seen first in a run
        var schedule = PreloadSchedule(limits: PreloadLimits(concurrency: 100_000, perHost: 100_000))
        let stored = Self.url("first.html")
        let failed = Self.url("failed.png")
        _ = schedule.enqueue(PreloadItem(url: stored, kind: nil, depth: 0))
        _ = schedule.enqueue(PreloadItem(url: failed, kind: .image, depth: 0))
        while let item = schedule.nextRunnable() { schedule.finish(item, failure: item.url == failed ? "HTTP 404" : nil) }
        let waiting = Self.url("waiting.png")
        _ = schedule.enqueue(PreloadItem(url: waiting, kind: .image, depth: 0))

        // When 100,000 other URLs are seen and end after them
        for index in 0..<100_000 {
            _ = schedule.enqueue(PreloadItem(url: Self.url("other-\(index).png"), kind: .image, depth: 0))
        }
        var started = 0
        while let item = schedule.nextRunnable() {
            started += 1
            if item.url != waiting { schedule.finish(item, failure: nil) }
        }

        // Then none of the first three is queued again, and each still stands as it did
        #expect(started == 100_001)
        for url in [stored, failed, waiting] {
            let queuedAgain = schedule.enqueue(PreloadItem(url: url, kind: .image, depth: 0))
            #expect(!queuedAgain, "\(url) is fetched once per run")
        }
        #expect(schedule.hasEnded(URLKey(stored)) && schedule.failure(of: URLKey(stored)) == nil)
        #expect(schedule.hasEnded(URLKey(failed)) && schedule.failure(of: URLKey(failed)) == "HTTP 404")
        #expect(!schedule.hasEnded(URLKey(waiting)) && schedule.failure(of: URLKey(waiting)) == "not fetched")
        #expect(schedule.unendedCount == 1)
        #expect(!schedule.hasSeen(Self.url("never.png").absoluteString) && schedule.failure(of: URLKey(Self.url("never.png"))) == "not fetched")
    }
}
