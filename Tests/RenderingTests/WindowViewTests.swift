import ChildProcess
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

/// `webcache view` with a display and no capture asked for: the stored page opens in a real
/// Chromium window (on an X server of the test's own, Xvfb), its scripts run against the stored API,
/// a link followed in the window is answered from the store, and closing the window ends the view.
@Suite(.timeLimit(.minutes(3))) struct WindowViewTests {
    /// The example app's page (its script reads a stored API response into the title) and a page
    /// it links to, preloaded rendered; then the origin stops.
    private static func storedApp() async throws -> AppFixture {
        let fixture = try AppFixture { request in
            switch request.path {
            case "/api/greeting":
                .text(#"{"greeting":"from the store"}"#, contentType: "application/json",
                      headers: ["Cache-Control": "no-cache", "ETag": #""g1""#])
            case "/next":
                .text("<title>Next page</title><p>The next page.</p>", contentType: "text/html",
                      headers: ["Cache-Control": "max-age=600"])
            default:
                // A link as large as the window, so that a click anywhere in it follows the link.
                .text("""
                    <title>Loading</title>
                    <style>a { position: fixed; inset: 0; display: block; }</style>
                    <a href="/next">next</a>
                    <script>
                    fetch("/api/greeting").then(r => r.json()).then(j => { document.title = "Stored page " + j.greeting; });
                    </script>
                    """, contentType: "text/html", headers: ["Cache-Control": "max-age=600"])
            }
        }
        let preload = try await fixture.webcache(["preload", "--render", "--store", fixture.store,
                                                  try fixture.urlFile(["/", "/next"])])
        #expect(preload.exitCode == 0, "\(preload.everything)")
        fixture.server.stop()
        return fixture
    }

    /// Starts `webcache view` of the app's page on `display`, with `options`.
    private static func startView(
        _ fixture: AppFixture, on display: XvfbDisplay, _ options: [String] = []
    ) throws -> (ChildProcess, OutputFile) {
        let runner = WebcacheRunner(home: fixture.home, extraEnvironment: [
            "TMPDIR": fixture.temporary, "DISPLAY": display.name,
        ])
        let errors = OutputFile(path: fixture.home.path("view.err"))
        let view = try runner.start(["view", fixture.server.url("/").absoluteString, "--store", fixture.store] + options,
                                    output: OutputFile(path: fixture.home.path("view.out")), error: errors)
        return (view, errors)
    }

    /// Waits for the view to end, and checks that it ended as a view closed by its user does.
    private static func expectEndedByClosing(_ view: ChildProcess, _ errors: OutputFile, _ fixture: AppFixture) async {
        let termination = await view.finish().termination
        let printed = errors.lines.joined(separator: "\n")
        #expect(termination == .exited(0), "\(printed)")
        #expect(printed.contains("Showing \(fixture.server.url("/").absoluteString) offline in a window"), "\(printed)")
        #expect(printed.contains("Viewed \(fixture.server.url("/").absoluteString) offline"), "\(printed)")
        #expect(!printed.contains("not in the store"), "\(printed)")
        #expect(fixture.leftoverBrowsers.isEmpty)
    }

    @Test func thePageOpensInAWindowItsLinksAreFollowedOfflineAndClosingItEndsTheView() async throws {
        let fixture = try await Self.storedApp()
        let display = try await XvfbDisplay.start(in: fixture.home)
        defer { display.stop() }
        let (view, errors) = try Self.startView(fixture, on: display)

        // The window shows the stored page once its script has read the stored API response.
        let first = try await display.window(named: "Stored page from the store")
        #expect(first != nil, "no window of the stored page: \(errors.lines)")
        // A click in it follows the link, answered from the store too. A window that has just drawn
        // its page may not take input yet on a busy machine; a user clicks again, and so does this.
        var next: String?
        for _ in 0..<6 where next == nil {
            try await display.xdotool(["mousemove", "200", "200", "click", "1"])
            next = try await display.window(named: "Next page", polls: 500)
        }
        #expect(next != nil, "the link was not followed: \(errors.lines)")
        // Closing the tab (Ctrl+W, as a user would) closes the window and ends the view.
        try await display.close(windowNamed: "Next page")
        await Self.expectEndedByClosing(view, errors, fixture)
    }

    @Test func closingTheWindowBeforeThePageHasSettledEndsTheViewAsWell() async throws {
        let fixture = try await Self.storedApp()
        let display = try await XvfbDisplay.start(in: fixture.home)
        defer { display.stop() }
        // Ten minutes of quiet asked for after the load event: the page does not settle in this test.
        let (view, errors) = try Self.startView(fixture, on: display, ["--settle", "600s", "--render-timeout", "10m"])

        let window = try await display.window(named: "Stored page from the store")
        #expect(window != nil, "no window of the stored page: \(errors.lines)")
        try await display.close(windowNamed: "Stored page from the store")
        await Self.expectEndedByClosing(view, errors, fixture)
    }

    @Test func withoutADisplayTheViewAsksForACapture() async throws {
        let fixture = try AppFixture()
        let result = try await fixture.webcache(["view", fixture.server.url("/").absoluteString, "--store", fixture.store])
        #expect(result.exitCode == 64, "\(result.everything)")
        #expect(result.stderr.contains("Give --screenshot <file> or --pdf <file>: there is no display"),
                "\(result.everything)")
    }
}

/// An X server of the test's own (Xvfb) on a free display number, and `xdotool` on it.
struct XvfbDisplay: Sendable {
    let name: String
    private let server: ChildProcess

    /// Starts Xvfb on a display it picks itself (`-displayfd`: the server takes the first free number
    /// and writes it once it accepts connections, so two tests starting at once never share one);
    /// returns once a client can query it. With `-noreset`: an X server otherwise resets when its
    /// last client leaves, as the query's `xdotool` does, and a client connecting during the reset
    /// (Chromium, now and then) is refused ("Missing X server or $DISPLAY").
    static func start(in folder: TemporaryFolder) async throws -> XvfbDisplay {
        let output = OutputFile(path: folder.path("xvfb.out"))
        let server = try ChildProcess.spawn(
            "/usr/bin/Xvfb", ["-displayfd", "1", "-screen", "0", "1280x800x24", "-nolisten", "tcp", "-noreset"],
            output: .file(output.path), error: .file(folder.path("xvfb.err")))
        if let number = try await output.lines(1).first.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) {
            let display = XvfbDisplay(name: ":\(number)", server: server)
            for _ in 0..<1_500 {
                if (try? await display.xdotool(["getdisplaygeometry"])) != nil { return display }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        server.send(SIGTERM)
        _ = await server.finish()
        let errors = (try? String(contentsOfFile: folder.path("xvfb.err"), encoding: .utf8)) ?? ""
        throw XvfbError(description: "Xvfb did not start a display: \(errors)")
    }

    struct XvfbError: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs `xdotool arguments` on this display; throws when it fails.
    @discardableResult
    func xdotool(_ arguments: [String]) async throws -> String {
        let child = try ChildProcess.spawn(
            "/usr/bin/xdotool", arguments, environment: ["DISPLAY": name, "PATH": "/usr/bin:/bin"],
            output: .pipe, error: .pipe)
        let (termination, output, error) = await child.finish()
        guard termination.succeeded else {
            throw XvfbError(description: "xdotool \(arguments.joined(separator: " ")) failed: "
                + String(decoding: error, as: UTF8.self))
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The id of a window whose name contains `name`, polled `polls` times 20 ms apart (a minute by
    /// default, more on a busy machine); `nil` if none shows.
    func window(named name: String, polls: Int = 3_000) async throws -> String? {
        for _ in 0..<polls {
            if let found = try? await xdotool(["search", "--name", name]),
                let id = found.split(separator: "\n").first
            {
                return String(id)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }

    /// Presses Ctrl+W over the window named `name`, as a user closes a tab, until the window is gone:
    /// a busy machine may drop a key, and a user presses it again.
    func close(windowNamed name: String) async throws {
        for _ in 0..<6 {
            try await xdotool(["mousemove", "200", "200", "key", "ctrl+w"])
            for _ in 0..<500 {
                // `xdotool search` fails when no window matches.
                if (try? await xdotool(["search", "--name", name])) == nil { return }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }

    func stop() {
        server.send(SIGTERM)
        _ = server.finishBlocking()
    }
}
