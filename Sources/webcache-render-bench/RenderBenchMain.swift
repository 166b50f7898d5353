import ChildProcess
import Foundation
import HTTPCore
import LocalOrigin
import Rendering

/// Benchmark driver for scripts/bench-render.sh: how much of what Chromium asks for online
/// `preload --render` fetches (and how much of what it fetches Chromium asks for), on the example
/// app and on a generated site, and rendered pages per second beside the static preload's.
///
/// `webcache-render-bench --webcache PATH --app DIR --site DIR --urls FILE [--jobs N]`
@main
struct RenderBenchMain {
    static func main() async {
        do {
            try await run(Array(CommandLine.arguments.dropFirst()))
        } catch {
            FileHandle.standardError.write(Data("webcache-render-bench: \(error)\n".utf8))
            exit(1)
        }
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static func run(_ arguments: [String]) async throws {
        func option(_ name: String) throws -> String {
            guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else {
                throw Failure(description: "missing \(name)")
            }
            return arguments[index + 1]
        }
        let webcache = try option("--webcache")
        let jobs = (try? option("--jobs")) ?? "4"
        let work = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("render-bench-\(UUID())")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let chromium = try BrowserLocator.locate(explicit: nil, searchPath: ProcessInfo.processInfo.environment["PATH"])
        var online = Browser.Configuration(executable: chromium)
        online.isolatesNetwork = false
        try await Browser.with(online) { browser in
            try await measure(browser, webcache: webcache, jobs: jobs, work: work, option: option)
        }
    }

    static func measure(
        _ browser: Browser, webcache: String, jobs: String, work: URL, option: (String) throws -> String
    ) async throws {
        var rows: [String] = []

        // The example app, signed in.
        let token = "bench-token"
        let tokenFile = work.appendingPathComponent("token.txt")
        try Data(token.utf8).write(to: tokenFile)
        let app = SinglePageApp(root: URL(fileURLWithPath: try option("--app")), tokens: [token])
        let appServer = OriginServer(handler: app.handler)
        try appServer.start()
        defer { appServer.stop() }
        let appPages = ["/", "/notes"].map { appServer.url($0) }
        let appOnline = try await openOnline(appPages, in: browser, server: appServer, token: token)
        let signIn = ["--instance", appServer.baseURL.absoluteString, "--token-file", tokenFile.path]
        let appRender = try await preload(webcache, appPages, ["--render", "-j", jobs] + signIn, appServer, work)
        let appStatic = try await preload(webcache, appPages, signIn, appServer, work)
        rows.append(row("example app", "preload --render", appPages.count, appOnline, appRender))
        rows.append(row("example app", "preload (static)", appPages.count, appOnline, appStatic))

        // The generated site.
        let site = OriginServer(handler: StaticSite(root: URL(fileURLWithPath: try option("--site"))).handler)
        try site.start()
        defer { site.stop() }
        let paths = try String(contentsOfFile: try option("--urls"), encoding: .utf8).split(separator: "\n")
        let sitePages = paths.map { site.url(String($0)) }
        let siteOnline = try await openOnline(sitePages, in: browser, server: site, token: nil)
        let siteStatic = try await preload(webcache, sitePages, ["-j", "8"], site, work)
        let siteRender = try await preload(webcache, sitePages, ["--render", "-j", jobs], site, work)
        rows.append(String(format: "| generated site | Chromium alone, online, one tab at a time | %d | | | %.2f | %.2f |",
                           sitePages.count, siteOnline.seconds, Double(sitePages.count) / siteOnline.seconds))
        rows.append(row("generated site", "preload (static)", sitePages.count, siteOnline, siteStatic))
        rows.append(row("generated site", "preload --render -j \(jobs)", sitePages.count, siteOnline, siteRender))

        print("| site | run | pages | Chromium's online GETs made by the run | the run's GETs Chromium made | wall s | pages/s |")
        print("|---|---|---:|---:|---:|---:|---:|")
        rows.forEach { print($0) }
        print(String(format: "\nRendering cost %.1fx the static preload's wall time on the generated site.",
                     siteRender.seconds / siteStatic.seconds))
    }

    struct Run {
        var gets: Set<String>
        var seconds: Double
    }

    /// Opens each page in a tab of `browser` loading from the network, one after another; returns
    /// the GET requests the origin saw.
    static func openOnline(_ pages: [URL], in browser: Browser, server: OriginServer, token: String?) async throws -> Run {
        server.resetLog()
        let start = Date()
        for page in pages {
            let tab = try await browser.openTab()
            if let token { try await tab.setExtraHeaders(["Authorization": "Bearer \(token)"]) }
            _ = try await tab.load(page, settings: RenderSettings(), answer: nil)
            try await tab.close()
        }
        return Run(gets: gets(of: server), seconds: Date().timeIntervalSince(start))
    }

    /// Runs `webcache preload` of `pages` into a fresh store; returns the GET requests the origin saw.
    static func preload(
        _ webcache: String, _ pages: [URL], _ options: [String], _ server: OriginServer, _ work: URL
    ) async throws -> Run {
        let list = work.appendingPathComponent("urls-\(UUID()).txt")
        try Data(pages.map { $0.absoluteString + "\n" }.joined().utf8).write(to: list)
        let store = work.appendingPathComponent("store-\(UUID()).sqlite").path
        server.resetLog()
        let start = Date()
        let child = try ChildProcess.spawn(webcache, ["preload", "--store", store] + options + [list.path],
                                           output: .null, error: .null)
        let termination = await child.finish().termination
        let seconds = Date().timeIntervalSince(start)
        guard termination.succeeded else {
            throw Failure(description: "webcache preload \(options.joined(separator: " ")) ended with \(termination)")
        }
        return Run(gets: gets(of: server), seconds: seconds)
    }

    static func gets(of server: OriginServer) -> Set<String> {
        Set(server.requests.filter { $0.method == .get }.map(\.target))
    }

    static func row(_ site: String, _ name: String, _ pages: Int, _ online: Run, _ run: Run) -> String {
        let common = online.gets.intersection(run.gets).count
        let covered = 100 * Double(common) / Double(max(online.gets.count, 1))
        let precise = 100 * Double(common) / Double(max(run.gets.count, 1))
        return String(format: "| %@ | %@ | %d | %.1f %% (%d of %d) | %.1f %% (%d of %d) | %.2f | %.2f |",
                      site, name, pages, covered, common, online.gets.count, precise, common, run.gets.count,
                      run.seconds, Double(pages) / run.seconds)
    }
}
