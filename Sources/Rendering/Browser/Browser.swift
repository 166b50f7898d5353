import ChildProcess
import FoundationEssentials
import HTTPCore
#if canImport(Glibc)
import Glibc
#endif

/// A Chromium, headless or in windows on a display, driven over the DevTools protocol on a pipe (`--remote-debugging-pipe`:
/// commands on the browser's descriptor 3, replies and events on 4, each message ended by a NUL).
///
/// Each browser gets a fresh profile folder that is removed when it closes, so nothing of one run
/// (its HTTP cache, cookies, storage) reaches another; its name says what process owns it, so that
/// a later launch removes the folders of processes killed before they could (``ProfileFolder``).
/// The browser leads a process group of its own; ``close()`` kills the whole group and any process
/// still naming the profile (Chromium's crash handler detaches itself), so no Chromium process
/// outlives it, whatever state it was in.
///
/// ```swift
/// try await Browser.with(Browser.Configuration(executable: "/usr/bin/chromium")) { browser in
///     let tab = try await browser.openTab()
///     …
/// }
/// ```
public final class Browser: Sendable {
    /// How a browser is started.
    public struct Configuration: Sendable, Hashable {
        /// The browser's executable.
        public var executable: String
        /// Whether every request is to be answered through interception: the browser is then given a
        /// proxy that refuses every connection, so that nothing it would send past the interception
        /// (a WebSocket, its own background services) reaches the network.
        public var isolatesNetwork = true
        /// Whether the browser runs without a display (the default), or shows its tabs in windows on
        /// the display that `DISPLAY` or `WAYLAND_DISPLAY` names.
        public var isHeadless = true
        /// How long a command may go unanswered before the browser is taken to hang.
        public var commandTimeout: Duration = .seconds(30)
        /// More command-line switches.
        public var extraArguments: [String] = []

        /// A configuration for the browser at `executable`.
        public init(executable: String) {
            self.executable = executable
        }
    }

    /// The configuration it was started with.
    public let configuration: Configuration
    /// The profile folder (`--user-data-dir`), removed on close.
    public let profilePath: String
    let connection: DevToolsConnection
    private let process: ChildProcess

    /// The browser's process id (the leader of its process group).
    public var processID: pid_t { process.pid }

    /// Whether the browser's connection is still open: `false` once it exited, crashed or was closed.
    public var isRunning: Bool { connection.isOpen }

    private init(configuration: Configuration, profilePath: String, connection: DevToolsConnection,
                 process: ChildProcess) {
        self.configuration = configuration
        self.profilePath = profilePath
        self.connection = connection
        self.process = process
    }

    /// Runs `body` with a started browser, and closes the browser when `body` returns or throws,
    /// or its task is cancelled.
    /// - Throws: ``RenderingError`` when the browser cannot be started, or what `body` throws.
    public static func with<T: Sendable>(
        _ configuration: Configuration, _ body: (Browser) async throws -> T
    ) async throws -> T {
        let browser = try await launch(configuration)
        do {
            let result = try await body(browser)
            await browser.close()
            return result
        } catch {
            await browser.close()
            throw error
        }
    }

    /// Starts a browser and waits until it answers.
    /// - Throws: ``RenderingError`` naming the executable when it cannot be started or does not come up.
    public static func launch(_ configuration: Configuration) async throws -> Browser {
        let temporary = FilePathText.temporaryFolder
        ProfileFolder.removeAbandoned(in: temporary)
        let profile = URL(fileURLWithPath: temporary).appendingPathComponent(ProfileFolder.newName()).path
        do {
            try FileManager.default.createDirectory(atPath: profile, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw RenderingError(.browserFailed, "The browser's profile folder '\(profile)' cannot be made: \(error).")
        }
        var toBrowser: [Int32] = [0, 0]
        var fromBrowser: [Int32] = [0, 0]
        // Close-on-exec at once; children started by ChildProcess get only what it passes them anyway.
        guard makePipe(&toBrowser) else {
            try? FileManager.default.removeItem(atPath: profile)
            throw RenderingError(.browserFailed, "A pipe for the browser cannot be made: \(String(cString: strerror(errno))).")
        }
        guard makePipe(&fromBrowser) else {
            toBrowser.forEach { Glibc.close($0) }
            try? FileManager.default.removeItem(atPath: profile)
            throw RenderingError(.browserFailed, "A pipe for the browser cannot be made: \(String(cString: strerror(errno))).")
        }
        var environment = ProcessInfo.processInfo.environment
        // Chromium's crash handler keeps its database under $HOME: in the profile, it is ours to remove,
        // and its command line names the profile, so that close() finds it.
        environment["HOME"] = profile
        let process: ChildProcess
        do {
            process = try ChildProcess.spawn(
                configuration.executable, arguments(configuration, profile: profile), environment: environment,
                output: .null, error: .file(profile + "/browser.log"), newProcessGroup: true,
                extraDescriptors: [toBrowser[0], fromBrowser[1]])
        } catch {
            (toBrowser + fromBrowser).forEach { Glibc.close($0) }
            try? FileManager.default.removeItem(atPath: profile)
            throw RenderingError(.browserMissing, "The browser '\(configuration.executable)' cannot be started: \(error)")
        }
        Glibc.close(toBrowser[0])
        Glibc.close(fromBrowser[1])
        // Coming up takes a few seconds on a busy machine; the first command may take longer than the rest.
        let connection = DevToolsConnection(input: fromBrowser[0], output: toBrowser[1],
                                            commandTimeout: max(configuration.commandTimeout, .seconds(60)))
        let browser = Browser(configuration: configuration, profilePath: profile, connection: connection,
                              process: process)
        do {
            _ = try await connection.send("Browser.getVersion")
        } catch {
            let log = (try? String(contentsOfFile: profile + "/browser.log", encoding: .utf8)) ?? ""
            await browser.close()
            if error is CancellationError { throw error }
            let excerpt = log.split(separator: "\n").suffix(3).joined(separator: " | ")
            throw RenderingError(.browserFailed, "The browser '\(configuration.executable)' did not come up: \(error)"
                + (excerpt.isEmpty ? "" : " Its last output: \(excerpt)"))
        }
        connection.setCommandTimeout(configuration.commandTimeout)
        return browser
    }

    /// Makes a pipe whose ends are close-on-exec.
    private static func makePipe(_ ends: inout [Int32]) -> Bool {
        guard pipe(&ends) == 0 else { return false }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return true
    }

    /// The switches the browser starts with.
    static func arguments(_ configuration: Configuration, profile: String) -> [String] {
        // In windows, no window of its own at the start: the tabs opened over the pipe are the windows.
        var arguments = [
            configuration.isHeadless ? "--headless=new" : "--no-startup-window", "--remote-debugging-pipe", "--no-sandbox", "--user-data-dir=\(profile)",
            "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-default-apps", "--disable-extensions",
            "--disable-crash-reporter", "--disable-breakpad", "--disable-gpu", "--hide-scrollbars", "--mute-audio",
            // Its own HTTP cache is off (each tab also disables it): every request reaches the interception.
            "--disk-cache-size=1", "--media-cache-size=1",
            // A frame of another site stays in its page's process, where the tab's interception sees its
            // requests (in a process of its own, it would be a target the tab's session does not cover).
            "--disable-site-isolation-trials",
            // A mouse, as a desktop has: headless, the browser reports no pointer and no hover, so
            // `(hover: hover)` and `(pointer: fine)` rules would not apply. A mobile tab's emulated
            // touch screen replaces it (a coarse pointer that cannot hover).
            "--blink-settings=primaryPointerType=4,availablePointerTypes=4,primaryHoverType=2,availableHoverTypes=2",
            "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,"
                + "IsolateOrigins,site-per-process",
        ]
        if configuration.isolatesNetwork {
            arguments += ["--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>"]
        }
        return arguments + configuration.extraArguments
    }

    /// Kills the browser and everything it started, waits for it, and removes its profile. Calling
    /// it again does nothing more.
    public func close() async {
        connection.close(reason: "the browser was closed")
        process.signalGroup(SIGKILL)
        _ = await process.finish()
        // A killed process takes a moment to die (a large renderer frees its memory first), and the
        // crash handler leaves the group but names the profile on its command line: close returns
        // once none of them runs, so that nothing the browser started outlives it.
        for _ in 0..<500 {
            let running = ProcessTable.processes(inGroup: process.pid)
                + ProcessTable.processes(mentioning: profilePath)
            guard !running.isEmpty else { break }
            for pid in running { kill(pid, SIGKILL) }
            // A cancelled task (a run stopped by Ctrl-C) still waits: the sleep then returns at once.
            if (try? await Task.sleep(for: .milliseconds(20))) == nil { usleep(20_000) }
        }
        if let singleton = Self.singletonFolder(ofProfile: profilePath) {
            try? FileManager.default.removeItem(atPath: singleton)
        }
        try? FileManager.default.removeItem(atPath: profilePath)
    }

    /// The folder the browser made in its temporary directory for the socket that keeps it the
    /// profile's only instance, named by the profile's `SingletonSocket` link; `nil` when there is
    /// none. The browser removes it when it quits by itself, never when it is killed, as `close()`
    /// kills it: without this, every browser a run started would leave a folder behind.
    static func singletonFolder(ofProfile profile: String) -> String? {
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: profile + "/SingletonSocket")
        else { return nil }
        let socket = URL(fileURLWithPath: target)
        let folder = socket.deletingLastPathComponent().standardizedFileURL.path
        // Only a folder of the socket's own: never the profile, nor a root or temporary directory.
        let temporary = URL(fileURLWithPath: FilePathText.temporaryFolder).standardizedFileURL.path
        guard target.hasPrefix("/"), socket.lastPathComponent == "SingletonSocket",
            folder != "/", folder != temporary, folder != URL(fileURLWithPath: profile).standardizedFileURL.path
        else { return nil }
        return folder
    }

    /// Kills the browser without closing the connection, as a crash would (for tests).
    func crash() {
        process.signalGroup(SIGKILL)
    }

    // MARK: - Tabs

    /// Opens a blank tab, in a window of its own, and attaches to it.
    ///
    /// A window each, so that every tab is visible and renders frames as a foreground tab does:
    /// in a tab behind another, lazy images are not asked for and animation frames do not run.
    /// - Throws: ``DevToolsError`` when the browser refuses or has gone.
    public func openTab() async throws -> BrowserTab {
        let created = try await connection.send("Target.createTarget", ["url": "about:blank", "newWindow": true])
        guard let targetID = created["targetId"]?.stringValue else {
            throw DevToolsError.protocolError(code: 0, message: "Target.createTarget returned no target id")
        }
        let attached = try await connection.send("Target.attachToTarget", ["targetId": .string(targetID),
                                                                            "flatten": true])
        guard let sessionID = attached["sessionId"]?.stringValue else {
            throw DevToolsError.protocolError(code: 0, message: "Target.attachToTarget returned no session id")
        }
        return BrowserTab(connection: connection, targetID: targetID, sessionID: sessionID)
    }
}
