import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

@testable import Rendering

/// A real Chromium: pages answered through interception, and the browser's life bound to its owner.
@Suite(.timeLimit(.minutes(2))) struct BrowserTests {
    static let page = """
        <!doctype html><title>t</title><img src="pic.svg">
        <script type="module">
          const data = await (await fetch("/api/data.json")).json();
          document.body.insertAdjacentHTML("beforeend", `<p id="out">${data.word}</p>`);
        </script>
        """

    /// Answers like a small site, recording what was asked.
    static func answering(_ asked: RequestLog) -> @Sendable (InterceptedRequest) async -> InterceptedAnswer {
        { request in
            asked.append("\(request.method) \(request.url)")
            let path = URL(string: request.url)?.path ?? ""
            switch path {
            case "/index.html":
                return .respond(status: 200, headers: ["Content-Type": "text/html"], body: Data(page.utf8))
            case "/api/data.json":
                return .respond(status: 200, headers: ["Content-Type": "application/json"],
                                body: Data(#"{"word":"intercepted"}"#.utf8))
            case "/pic.svg":
                return .respond(status: 200, headers: ["Content-Type": "image/svg+xml"],
                                body: Data(#"<svg xmlns="http://www.w3.org/2000/svg" width="4" height="4"/>"#.utf8))
            default:
                return .fail
            }
        }
    }

    @Test func everyRequestIsAnsweredThroughInterceptionAndNoneReachesTheNetwork() async throws {
        // Given an origin that would answer, and a browser whose requests are answered by the test
        let origin = OriginServer { _ in .text("from the network") }
        try origin.start()
        defer { origin.stop() }
        let browser = try await SharedChromium.browser()
        let tab = try await browser.openTab()
        let asked = RequestLog()

        // When the page loads
        let load = try await tab.load(origin.url("index.html"), settings: RenderSettings(),
                                      answer: Self.answering(asked))
        let text = try await tab.evaluate("document.getElementById('out')?.textContent ?? ''")
        try await tab.close()

        // Then the script's data came from the answers, and the origin saw nothing
        #expect(!load.hitCap)
        #expect(load.documentStatus == 200)
        #expect(text == "intercepted")
        let paths = Set(asked.entries.map { $0.replacingOccurrences(of: origin.baseURL.absoluteString, with: "/") })
        #expect(paths.isSuperset(of: ["GET /index.html", "GET /api/data.json", "GET /pic.svg"]))
        #expect(origin.requestCount == 0)
    }

    @Test func aPageThatNeverSettlesEndsAtTheCap() async throws {
        let browser = try await SharedChromium.browser()
        let tab = try await browser.openTab()
        let html = "<script>setInterval(() => fetch('/poll').catch(() => {}), 40)</script>"
        var settings = RenderSettings()
        settings.timeout = .seconds(2)
        let load = try await tab.load(URL(string: "http://app.invalid/")!, settings: settings) { request in
            request.url.hasSuffix("/poll")
                ? .respond(status: 200, headers: [:], body: Data("x".utf8))
                : .respond(status: 200, headers: ["Content-Type": "text/html"], body: Data(html.utf8))
        }
        try await tab.close()
        #expect(load.hitCap)
    }

    @Test func closingLeavesNoBrowserProcessBehind() async throws {
        let browser = try await Browser.launch(try SharedChromium.configuration())
        let tab = try await browser.openTab()
        _ = try await tab.load(URL(string: "http://app.invalid/")!, settings: RenderSettings()) { _ in
            .respond(status: 200, headers: ["Content-Type": "text/html"], body: Data("<p>hi".utf8))
        }
        #expect(!ProcessTable.processes(inGroup: browser.processID).isEmpty)
        // The folder the browser made in the temporary directory for its singleton socket
        let singleton = try #require(Browser.singletonFolder(ofProfile: browser.profilePath))
        #expect(FileManager.default.fileExists(atPath: singleton + "/SingletonSocket"))
        #expect(!singleton.hasPrefix(browser.profilePath))
        await browser.close()
        #expect(ProcessTable.processes(inGroup: browser.processID).isEmpty)
        #expect(ProcessTable.processes(mentioning: browser.profilePath).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: browser.profilePath))
        #expect(!FileManager.default.fileExists(atPath: singleton))
    }

    @Test func aCrashFailsThePageWithAReasonAndLeavesNothingBehind() async throws {
        // Given a page whose image is being answered when the browser dies
        let browser = try await Browser.launch(try SharedChromium.configuration())
        let tab = try await browser.openTab()
        let asked = Gate()
        let error = await #expect(throws: RenderingError.self) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    _ = try await tab.load(URL(string: "http://app.invalid/")!, settings: RenderSettings()) { request in
                        if request.url.hasSuffix("/slow.png") {
                            asked.open()
                            try? await Task.sleep(for: .seconds(60))
                            return .fail
                        }
                        return .respond(status: 200, headers: ["Content-Type": "text/html"],
                                        body: Data(#"<img src="slow.png">"#.utf8))
                    }
                }
                // When the browser is killed as a crash would
                await asked.wait()
                browser.crash()
                try await group.next()
            }
        }
        // Then the page fails saying so, and closing leaves no process
        #expect(error?.code == .browserFailed)
        #expect(error?.message.contains("exited or crashed") == true)
        let singleton = try #require(Browser.singletonFolder(ofProfile: browser.profilePath))
        await browser.close()
        #expect(ProcessTable.processes(inGroup: browser.processID).isEmpty)
        #expect(ProcessTable.processes(mentioning: browser.profilePath).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: singleton))
    }

    @Test func cancellingALoadInsideWithEndsTheBrowser() async throws {
        let started = Gate()
        let profile = BrowserIdentity()
        let task = Task {
            try await Browser.with(try SharedChromium.configuration()) { browser in
                profile.set(browser.profilePath, browser.processID)
                let tab = try await browser.openTab()
                return try await tab.load(URL(string: "http://app.invalid/")!, settings: RenderSettings()) { _ in
                    started.open()
                    try? await Task.sleep(for: .seconds(60))
                    return .fail
                }
            }
        }
        await started.wait()
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        let (path, pid) = try #require(profile.value)
        #expect(ProcessTable.processes(inGroup: pid).isEmpty)
        #expect(ProcessTable.processes(mentioning: path).isEmpty)
    }

    @Test func aMissingBrowserIsNamedWithThePackageAndTheOption() {
        let error = #expect(throws: RenderingError.self) {
            try BrowserLocator.locate(explicit: nil, searchPath: "/nonexistent")
        }
        #expect(error?.message.contains("'chromium'") == true)
        #expect(error?.message.contains("--chromium PATH") == true)
        let named = #expect(throws: RenderingError.self) {
            try BrowserLocator.locate(explicit: "/nonexistent/chrome", searchPath: nil)
        }
        #expect(named?.message.contains("/nonexistent/chrome") == true)
    }
}

/// A browser that stops answering is taken to hang: the page fails, and closing kills it anyway.
@Suite(.timeLimit(.minutes(2))) struct HungBrowserTests {
    @Test func aHungBrowserFailsThePageWithAReasonAndClosingKillsIt() async throws {
        let browser = try await Browser.launch(try SharedChromium.configuration())
        let tab = try await browser.openTab()
        // Short from now on (a tab takes seconds to open on a busy machine): the test waits this long.
        browser.connection.setCommandTimeout(.seconds(2))
        let error = await #expect(throws: RenderingError.self) {
            _ = try await tab.load(URL(string: "http://app.invalid/")!, settings: RenderSettings()) { request in
                if request.url.hasSuffix("/stuck.png") {
                    // Stopped as a hung browser would be, before it is answered.
                    kill(browser.processID, SIGSTOP)
                    return .fail
                }
                return .respond(status: 200, headers: ["Content-Type": "text/html"],
                                body: Data(#"<img src="stuck.png">"#.utf8))
            }
        }
        #expect(error?.code == .browserFailed)
        #expect(error?.message.contains("did not answer") == true, "\(String(describing: error))")
        await browser.close()
        #expect(ProcessTable.processes(inGroup: browser.processID).isEmpty)
        #expect(ProcessTable.processes(mentioning: browser.profilePath).isEmpty)
    }
}
