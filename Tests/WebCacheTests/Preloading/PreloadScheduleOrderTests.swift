import Discovery
import Foundation
import Testing

@testable import WebCache

/// The order in which waiting items start: what leads to more first, then pages, then the rest.
@Suite struct PreloadScheduleOrderTests {
    private static func item(_ path: String, _ kind: Reference.Kind?, host: String = "origin.test") -> PreloadItem {
        PreloadItem(url: URL(string: "http://\(host)/\(path)")!, kind: kind, depth: 0)
    }

    private static func drain(_ schedule: inout PreloadSchedule) -> [String] {
        var started: [String] = []
        while let item = schedule.nextRunnable() {
            started.append(item.url.lastPathComponent)
        }
        return started
    }

    @Test func stylesheetsFramesAndManifestsStartBeforePagesAndPagesBeforeTheRest() {
        var schedule = PreloadSchedule(limits: PreloadLimits(concurrency: 100, perHost: 100))
        let queued = [
            Self.item("a.html", nil), Self.item("b.html", nil), Self.item("logo.png", .image),
            Self.item("app.js", .script), Self.item("site.css", .stylesheet), Self.item("font.woff2", .font),
            Self.item("widget.html", .document), Self.item("app.webmanifest", .manifest),
            Self.item("c.html", nil), Self.item("fonts.css", .stylesheet), Self.item("icon.png", .icon),
        ]
        for item in queued { _ = schedule.enqueue(item) }

        #expect(Self.drain(&schedule) == [
            "site.css", "widget.html", "app.webmanifest", "fonts.css",
            "a.html", "b.html", "c.html",
            "logo.png", "app.js", "font.woff2", "icon.png",
        ])
    }

    @Test func aStylesheetFoundLaterOvertakesTheImagesAlreadyWaiting() throws {
        var schedule = PreloadSchedule(limits: PreloadLimits(concurrency: 100, perHost: 1))
        _ = schedule.enqueue(Self.item("page.html", nil))
        let page = try #require(schedule.nextRunnable() as PreloadItem?)
        for index in 1...3 { _ = schedule.enqueue(Self.item("\(index).png", .image)) }
        _ = schedule.enqueue(Self.item("site.css", .stylesheet))
        schedule.finish(page, failure: nil)

        let next = try #require(schedule.nextRunnable() as PreloadItem?)
        #expect(next.url.lastPathComponent == "site.css")
        #expect(schedule.nextRunnable() == nil, "the per-host limit still holds")
        schedule.finish(next, failure: nil)
        #expect(Self.drain(&schedule) == ["1.png"])
    }

    @Test func hostsStillTakeTurnsWhateverTheirItemsAre() {
        var schedule = PreloadSchedule(limits: PreloadLimits(concurrency: 100, perHost: 100))
        for index in 1...2 { _ = schedule.enqueue(Self.item("\(index).png", .image, host: "images.test")) }
        for index in 1...2 { _ = schedule.enqueue(Self.item("\(index).css", .stylesheet, host: "styles.test")) }

        var hosts: [String] = []
        while let item = schedule.nextRunnable() { hosts.append(item.url.host ?? "") }
        #expect(hosts == ["images.test", "styles.test", "images.test", "styles.test"])
    }
}
