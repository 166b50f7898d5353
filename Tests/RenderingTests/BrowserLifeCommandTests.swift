import ChildProcess
import Dispatch
import Foundation
import HTTPCore
import LocalOrigin
import Rendering
import Synchronization
import Testing
import WebCacheTestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The browser's life is bound to the `webcache` run: a crash fails only the pages it held, and a
/// signal stops the run with no Chromium process left behind.
@Suite(.timeLimit(.minutes(3))) struct BrowserLifeCommandTests {
    /// An origin whose `/hold` page needs an image that is answered only after the test's action
    /// has run on the origin's own thread, so that it happens while the browser holds the page,
    /// whatever the test's tasks are waiting for.
    final class HoldingSite: Sendable {
        private let action = Mutex<(@Sendable () -> Void)?>(nil)
        private let armed = DispatchSemaphore(value: 0)
        /// Whether the action ran.
        let acted = Mutex(false)

        /// Sets what happens when the image is asked for.
        func arm(_ body: @escaping @Sendable () -> Void) {
            action.withLock { $0 = body }
            armed.signal()
        }

        func respond(_ request: OriginRequest) -> OriginResponse {
            switch request.path {
            case "/hold":
                return .text(#"<img src="/held.png">"#, contentType: "text/html")
            case "/held.png":
                // A safety net only: the test arms it right after it started the run.
                if armed.wait(timeout: .now() + 60) == .success, let body = action.withLock({ $0 }) {
                    body()
                    acted.withLock { $0 = true }
                }
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
        let killed = Mutex(false)
        // Weakly: the site's action is kept by the fixture's origin, so a strong capture would keep
        // the fixture, its origin and its folder for the rest of the test process.
        site.arm { [weak fixture] in
            guard let leader = fixture?.browserLeader else { return }
            kill(leader, SIGKILL)
            killed.withLock { $0 = true }
        }
        let termination = await run.finish().termination

        // Then that page fails saying why, the others are rendered by a new browser, and none is left
        let output = try String(contentsOfFile: fixture.home.path("out.txt"), encoding: .utf8)
        #expect(killed.withLock { $0 })
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
        let browserWasUp = Mutex(false)
        site.arm { [weak fixture] in
            browserWasUp.withLock { $0 = fixture?.browserLeader != nil }
            run.send(SIGTERM)
        }
        let termination = await run.finish().termination
        let output = try String(contentsOfFile: fixture.home.path("out.txt"), encoding: .utf8)
        #expect(site.acted.withLock { $0 })
        #expect(browserWasUp.withLock { $0 })
        #expect(termination == .exited(143), "\(output)")
        #expect(output.contains("Interrupted"), "\(output)")
        #expect(fixture.leftoverBrowsers.isEmpty)
    }

    @Test func withoutChromiumRenderingFailsNamingTheBrowserAndBadOptionsAreUsageErrors() async throws {
        let fixture = try AppFixture()
        let urls = try fixture.urlFile(["/"])
        let missing = try await fixture.webcache(["preload", "--render", "--chromium", "/nonexistent/chromium",
                                                  "--store", fixture.store, urls])
        // Refused once, before any work, where each page failed with it.
        #expect(missing.exitCode == 64)
        #expect(missing.stderr.contains("The browser '/nonexistent/chromium' is not an executable file"),
                "\(missing.everything)")
        #expect(missing.stdout.isEmpty, "\(missing.everything)")
        #expect(!FileManager.default.fileExists(atPath: fixture.store))
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

    @Test func sigintCountsWhatWasStoredAndNeitherRestartsNorBlamesTheBrowser() async throws {
        // Given two pages rendered one at a time: the first renders whole, the second is held at its image
        let site = HoldingSite()
        let fixture = try AppFixture(handler: site.respond)
        let out = OutputFile(path: fixture.home.path("out.txt"))
        let err = OutputFile(path: fixture.home.path("err.txt"))
        let run = try fixture.runner.start(
            ["preload", "--render", "-j", "1", "--store", fixture.store, try fixture.urlFile(["/a", "/hold"])],
            output: out, error: err)

        // When SIGINT arrives while the browser holds the second page, its document stored
        site.arm { run.send(SIGINT) }
        let termination = await run.finish().termination

        // Then the summary counts both pages (the second without all it needs) and what was stored,
        // no browser failure is reported, and the exit code is the interrupt's
        #expect(site.acted.withLock { $0 })
        #expect(termination == .exited(130), "\(out.lines) \(err.lines)")
        let summary = try #require(out.lines.first, "\(err.lines)")
        let match = try #require(summary.firstMatch(
            of: /^Interrupted: preloaded (\d+) of 2 page\(s\)(?:, \d+ of them without [^:]*)?: (\d+) resource/),
            "\(out.lines)")
        let stored = try await fixture.storedEntries()
        #expect(stored.isSuperset(of: ["GET \(fixture.server.url("/a"))", "GET \(fixture.server.url("/hold"))"]))
        #expect(Int(match.1) == 2, "\(summary)")
        let completed = Int(match.2) ?? 0
        #expect(completed >= 2 && completed <= stored.count, "\(summary) \(stored)")
        #expect(!err.lines.contains { $0.contains("browser failed") || $0.contains("starting a new one") },
                "\(err.lines)")
        #expect(fixture.leftoverBrowsers.isEmpty)
    }

    /// When process `pid` started, in clock ticks after boot (`/proc/PID/stat`'s 22nd field).
    private static func startTime(of pid: pid_t) throws -> UInt64 {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        return try #require(UInt64(fields[19]))
    }

    @Test func aRunRemovesTheProfileFoldersOfRunsThatAreGoneAndKeepsThoseOfLiveOnes() async throws {
        let fixture = try AppFixture()
        let ownStart = try Self.startTime(of: getpid())
        // A run killed outright left its profile, and its singleton folder beside it; its process is gone.
        let ended = try ChildProcess.spawn("/bin/true", [])
        _ = await ended.finish()
        let dead = fixture.temporary + "/webcache-chromium-\(ended.pid)-\(ownStart)-\(UUID().uuidString)"
        let singleton = fixture.temporary + "/org.chromium.Chromium.left"
        // A folder named for this process's id, with another start time: a run gone whose id was reused.
        let reused = fixture.temporary + "/webcache-chromium-\(getpid())-\(ownStart + 1)-\(UUID().uuidString)"
        // This process's own, as a live run's; and a name that says no owner.
        let live = fixture.temporary + "/webcache-chromium-\(getpid())-\(ownStart)-\(UUID().uuidString)"
        let unowned = fixture.temporary + "/webcache-chromium-\(UUID().uuidString)"
        for folder in [dead, singleton, reused, live, unowned] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
            try Data("x".utf8).write(to: URL(fileURLWithPath: folder + "/Local State"))
        }
        try FileManager.default.createSymbolicLink(atPath: dead + "/SingletonSocket",
                                                   withDestinationPath: singleton + "/SingletonSocket")

        let result = try await fixture.webcache(["preload", "--render"] + fixture.signedIn
            + [try fixture.urlFile(["/"])])

        #expect(result.exitCode == 0, "\(result.everything)")
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: fixture.temporary))
        let name = { (path: String) in URL(fileURLWithPath: path).lastPathComponent }
        #expect(!left.contains(name(dead)) && !left.contains(name(singleton)) && !left.contains(name(reused)),
                "\(left)")
        #expect(left.contains(name(live)) && left.contains(name(unowned)), "\(left)")
        #expect(FileManager.default.fileExists(atPath: live + "/Local State"))
        #expect(fixture.leftoverBrowsers.isEmpty)
    }
}
