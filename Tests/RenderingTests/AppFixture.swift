import ChildProcess
import Foundation
import HTTPCore
import LocalOrigin
import Rendering
import Testing
import WebCacheTestSupport

/// An origin serving `examples/app` with instance-like sessions, a store, a token file and the
/// `webcache` executable, with the browsers it starts kept in a temporary folder of their own.
final class AppFixture: Sendable {
    static let token = "demo-token"

    let home: TemporaryFolder
    let app: SinglePageApp
    let server: OriginServer
    let runner: WebcacheRunner
    /// The `TMPDIR` of `webcache` runs: every browser they start has its profile below it.
    let temporary: String

    init(handler: OriginServer.Handler? = nil) throws {
        home = try TemporaryFolder(prefix: "webcache-render")
        app = SinglePageApp(root: Repository.root.appendingPathComponent("examples/app"), tokens: [Self.token])
        server = OriginServer(handler: handler ?? app.handler)
        try server.start()
        temporary = home.path("tmp")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        try home.write(Data((Self.token + "\n").utf8), to: "token.txt")
        runner = WebcacheRunner(home: home, extraEnvironment: ["TMPDIR": temporary])
    }

    deinit {
        server.stop()
    }

    var store: String { home.path("store.sqlite") }

    /// The options that name the store and sign in to the app.
    var signedIn: [String] {
        ["--store", store, "--instance", server.baseURL.absoluteString, "--token-file", home.path("token.txt")]
    }

    /// Writes the absolute URLs of `paths` to a URL file and returns its path.
    func urlFile(_ paths: [String]) throws -> String {
        try home.write(Data(paths.map { server.url($0).absoluteString + "\n" }.joined().utf8), to: "urls.txt")
    }

    /// Runs `webcache arguments`.
    func webcache(_ arguments: [String]) async throws -> WebcacheRunner.Result {
        try await runner.run(arguments)
    }

    /// Runs `webcache view` of `url` from the store, with a screenshot, as a browser offline would
    /// open it.
    func viewOffline(_ url: String) async throws -> WebcacheRunner.Result {
        try await webcache(["view", url, "--store", store, "--screenshot", home.path("shot.png")])
    }

    /// The stored entries, as `METHOD URL`.
    func storedEntries() async throws -> Set<String> {
        let child = try ChildProcess.spawn(
            "/usr/bin/sqlite3", ["-readonly", store, "SELECT method || ' ' || url FROM entry"], output: .pipe)
        let (termination, output, _) = await child.finish()
        #expect(termination.succeeded)
        return Set(String(decoding: output, as: UTF8.self).split(separator: "\n").map(String.init))
    }

    /// The browser processes `webcache` runs started that are still alive.
    var leftoverBrowsers: [pid_t] { ProcessTable.processes(mentioning: temporary) }

    /// The browser leader a `webcache` run started (not one of its helpers), once it is up.
    var browserLeader: pid_t? {
        leftoverBrowsers.first { pid in
            guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
            let arguments = String(decoding: data, as: UTF8.self).split(separator: "\0")
            return arguments.contains("--remote-debugging-pipe") && !arguments.contains { $0.hasPrefix("--type=") }
        }
    }

    /// The GET requests of the log, as `GET URL`.
    func loggedGets() -> Set<String> {
        Set(server.requests.filter { $0.method == .get }.map { "GET " + server.url($0.target).absoluteString })
    }
}

/// A browser that loads from the network itself, as a user's would: the reference for what a page
/// asks for and how it looks online.
enum OnlineChromium {
    /// Opens `url` signed in with the app's token, and returns a screenshot once it settled.
    static func open(_ url: URL) async throws -> Data {
        let browser = try await SharedChromium.online.get()
        let tab = try await browser.openTab()
        try await tab.setExtraHeaders(["Authorization": "Bearer \(AppFixture.token)"])
        let load = try await tab.load(url, settings: RenderSettings(), answer: nil)
        #expect(!load.hitCap)
        let screenshot = try await tab.screenshot()
        try await tab.close()
        return screenshot
    }
}
