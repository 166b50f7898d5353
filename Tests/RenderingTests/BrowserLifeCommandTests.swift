import ChildProcess
import Dispatch
import Foundation
import HTTPCore
import LocalOrigin
import Rendering
import Testing
import WebCacheTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The browser's life is bound to the `webcache` run: a crash fails only the pages it held, and a
/// signal stops the run with no Chromium process left behind.
@Suite(.timeLimit(.minutes(3))) struct BrowserLifeCommandTests {
    /// An origin whose `/hold` page needs an image that is answered only once the test lets it.
    final class HoldingSite: Sendable {
        let arrived = Gate()
        let release = DispatchSemaphore(value: 0)

        func respond(_ request: OriginRequest) -> OriginResponse {
            switch request.path {
            case "/hold":
                return .text(#"<img src="/held.png">"#, contentType: "text/html")
            case "/held.png":
                arrived.open()
                // A safety net only: the test releases it as soon as it has acted.
                _ = release.wait(timeout: .now() + 60)
                return .text("late", contentType: "image/png")
            default:
                return .text("<p>page \(request.path)", contentType: "text/html")
            }
        }
    }

    @Test func aBrowserKilledMidRunFailsItsPageWithAReasonAndTheOthersComplete() async throws {
        // Given three pages rendered one at a time, the first held at its image
        let site = HoldingSite()
        let fixture = try AppFixture(handler: site.respond)
        let urls = try fixture.urlFile(["/hold", "/a", "/b"])
        let run = try fixture.runner.start(
            ["preload", "--render", "-j", "1", "--store", fixture.store, urls],
            output: OutputFile(path: fixture.home.path("out.txt")), error: OutputFile(path: fixture.home.path("err.txt")))

        // When the browser is killed while it holds the first page
        await site.arrived.wait()
        let leader = try #require(fixture.browserLeader)
        kill(leader, SIGKILL)
        site.release.signal()
        let termination = await run.finish().termination

        // Then that page fails saying why, the others are rendered by a new browser, and none is left
        let output = try String(contentsOfFile: fixture.home.path("out.txt"), encoding: .utf8)
        #expect(termination == .exited(1), "\(output)")
        #expect(output.contains("Preloaded 2 of 3 page(s)"), "\(output)")
        #expect(output.contains("\(fixture.server.url("/hold")): The browser exited or crashed while it rendered"),
                "\(output)")
        let stored = try await fixture.storedEntries()
        #expect(stored.isSuperset(of: ["GET \(fixture.server.url("/a"))", "GET \(fixture.server.url("/b"))"]))
        #expect(fixture.leftoverBrowsers.isEmpty)
    }

    @Test func sigtermStopsTheRunAndLeavesNoBrowserBehind() async throws {
        let site = HoldingSite()
        let fixture = try AppFixture(handler: site.respond)
        let run = try fixture.runner.start(
            ["preload", "--render", "--store", fixture.store, try fixture.urlFile(["/hold"])],
            output: OutputFile(path: fixture.home.path("out.txt")), error: OutputFile(path: fixture.home.path("err.txt")))
        await site.arrived.wait()
        #expect(fixture.browserLeader != nil)
        run.send(SIGTERM)
        let termination = await run.finish().termination
        site.release.signal()
        let output = try String(contentsOfFile: fixture.home.path("out.txt"), encoding: .utf8)
        #expect(termination == .exited(143), "\(output)")
        #expect(output.contains("Interrupted"), "\(output)")
        #expect(fixture.leftoverBrowsers.isEmpty)
    }

    @Test func withoutChromiumRenderingFailsNamingTheBrowserAndBadOptionsAreUsageErrors() async throws {
        let fixture = try AppFixture()
        let urls = try fixture.urlFile(["/"])
        let missing = try await fixture.webcache(["preload", "--render", "--chromium", "/nonexistent/chromium",
                                                  "--store", fixture.store, urls])
        #expect(missing.exitCode == 1)
        #expect(missing.stdout.contains("The browser '/nonexistent/chromium' is not an executable file"),
                "\(missing.everything)")
        let alone = try await fixture.webcache(["preload", "--scroll", "--store", fixture.store, urls])
        #expect(alone.exitCode == 64)
        #expect(alone.stderr.contains("--scroll needs --render"), "\(alone.everything)")
        let settle = try await fixture.webcache(["preload", "--render", "--settle", "soon", "--store", fixture.store, urls])
        #expect(settle.exitCode == 64)
        #expect(settle.stderr.contains("'soon'"), "\(settle.everything)")
        let view = try await fixture.webcache(["view", fixture.server.url("/").absoluteString, "--store", fixture.store])
        #expect(view.exitCode == 64)
        #expect(view.stderr.contains("--screenshot"), "\(view.everything)")
        #expect(fixture.server.requestCount == 0)
    }
}
