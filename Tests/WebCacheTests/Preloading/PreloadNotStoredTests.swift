import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCache

/// Responses the caching rules keep out of the store (RFC 9111 §3, §4.1) are fetched, named in the
/// report with why, not counted among what the store holds, and recorded in their page's record as
/// what keeps the page from being complete offline.
@Suite(.timeLimit(.minutes(5)))
struct PreloadNotStoredTests {
    @Test func aResponseThatMayNotBeStoredIsReportedWithWhyAndNotCountedAsStored() async throws {
        let rig = try PreloadRig.start { request in
            let fresh: HTTPHeaders = ["Cache-Control": "max-age=600"]
            return switch request.path {
            case "/index.html":
                .text("<img src=kept.png><img src=secret.png><img src=any.png>", contentType: "text/html",
                      headers: fresh)
            case "/secret.png": .text("png", contentType: "image/png", headers: ["Cache-Control": "no-store"])
            case "/any.png": .text("png", contentType: "image/png", headers: ["Cache-Control": "max-age=600",
                                                                               "Vary": "*"])
            default: .text("png", contentType: "image/png", headers: fresh)
            }
        }
        let report = await rig.cache.preload(["index.html"])

        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(report.succeeded)
        let notStored = Dictionary(uniqueKeysWithValues: report.notStored.map { ($0.url, $0.reason) })
        #expect(notStored == [rig.url("secret.png"): "response has no-store",
                              rig.url("any.png"): "response has Vary: *"])
        // The page and the image that may be kept.
        #expect(report.sources == [.network: 2], "\(report.sources)")
        #expect(report.completed == 2)
        #expect(try rig.cache.store.variants(method: .get, url: rig.url("secret.png")).isEmpty)
        let edges = try rig.cache.store.edges(forPage: rig.url("index.html"))
        let failures = Dictionary(uniqueKeysWithValues: edges.map { ($0.resourceURL, $0.failure) })
        #expect(failures[rig.url("kept.png")] == .some(nil))
        #expect(failures[rig.url("secret.png")] == "not stored: response has no-store")
        #expect(failures[rig.url("any.png")] == "not stored: response has Vary: *")
        await rig.stop()
    }

    /// A redirect the rules keep out of the store (a 302 without freshness, as most frameworks send
    /// one) stops the browser offline: the page it stands for is named among what was not stored.
    @Test func aRedirectThatMayNotBeStoredIsReportedForTheURLItAnswers() async throws {
        let rig = try PreloadRig.start { request in
            switch request.path {
            case "/start": OriginResponse(status: 302, headers: ["Location": "/docs/"])
            default: .text("<p>docs</p>", contentType: "text/html", headers: ["Cache-Control": "max-age=600"])
            }
        }

        let report = await rig.cache.preload(["start"])

        #expect(report.failures.isEmpty, "\(report.failures)")
        let reason = try #require(report.notStored.first { $0.url == rig.url("start") }?.reason, "\(report.notStored)")
        #expect(reason.hasPrefix("its redirect from \(rig.url("start")) (302): "), "\(reason)")
        #expect(try rig.cache.store.entry(url: rig.url("docs/")) != nil)
        await rig.stop()
    }
}
