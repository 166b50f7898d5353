import Foundation
@testable import Rendering
import Synchronization
import Testing

/// The browsers the suites of this target share, started on first use: one whose requests are all
/// intercepted, one that loads from the network as a user's would. A test that kills or closes a
/// browser starts its own instead.
enum SharedChromium {
    actor Holder {
        let isolatesNetwork: Bool
        var browser: Browser?

        init(isolatesNetwork: Bool) {
            self.isolatesNetwork = isolatesNetwork
        }

        func get() async throws -> Browser {
            if let browser, browser.isRunning { return browser }
            let started = try await Browser.launch(SharedChromium.configuration(isolatesNetwork: isolatesNetwork))
            browser = started
            SharedChromium.endAtExit(started)
            return started
        }
    }

    /// The profiles of the shared browsers started so far. No test closes them, so they end when
    /// the test process exits: the process registers ``endSharedBrowsers()`` with `atexit` for that.
    /// Left to the closing of their pipes, they outlived the run by a few seconds and left their
    /// profiles (6.5 MB each) in the temporary folder.
    private static let sharedProfiles = Mutex<[String]>([])

    private static func endAtExit(_ browser: Browser) {
        let isFirst = sharedProfiles.withLock { profiles in
            profiles.append(browser.profilePath)
            return profiles.count == 1
        }
        if isFirst { atexit { SharedChromium.endSharedBrowsers() } }
    }

    /// Kills every process that names a shared browser's profile and those of its group (the
    /// browser's own process leads one), waits until none runs and removes the profile and the
    /// browser's singleton folder, as `Browser.close()` does, but without tasks: the process is exiting.
    private static func endSharedBrowsers() {
        for profile in sharedProfiles.withLock({ $0 }) {
            var groups = Set<pid_t>()
            for _ in 0..<500 {
                let named = ProcessTable.processes(mentioning: profile)
                groups.formUnion(named)
                let running = named + groups.flatMap(ProcessTable.processes(inGroup:))
                guard !running.isEmpty else { break }
                for pid in running { kill(pid, SIGKILL) }
                usleep(20_000)
            }
            if let singleton = Browser.singletonFolder(ofProfile: profile) {
                try? FileManager.default.removeItem(atPath: singleton)
            }
            try? FileManager.default.removeItem(atPath: profile)
        }
    }

    private static let isolated = Holder(isolatesNetwork: true)
    static let online = Holder(isolatesNetwork: false)

    /// The shared browser whose requests are all intercepted.
    static func browser() async throws -> Browser {
        try await isolated.get()
    }

    /// A configuration for the Chromium on this machine.
    static func configuration(isolatesNetwork: Bool = true) throws -> Browser.Configuration {
        let path = try BrowserLocator.locate(explicit: nil, searchPath: ProcessInfo.processInfo.environment["PATH"])
        var configuration = Browser.Configuration(executable: path)
        configuration.isolatesNetwork = isolatesNetwork
        return configuration
    }
}

/// A one-shot gate: tasks wait until it opens.
final class Gate: Sendable {
    private let stream: AsyncStream<Void>
    private let continuation: AsyncStream<Void>.Continuation

    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Void.self)
    }

    func open() {
        continuation.finish()
    }

    func wait() async {
        for await _ in stream {}
    }
}

/// Lines recorded from several tasks.
final class RequestLog: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) {
        lines.withLock { $0.append(line) }
    }

    var entries: [String] { lines.withLock { $0 } }
}

/// A browser's profile path and process id, noted from inside the task that owns it.
final class BrowserIdentity: Sendable {
    private let stored = Mutex<(String, Int32)?>(nil)

    func set(_ path: String, _ pid: Int32) {
        stored.withLock { $0 = (path, pid) }
    }

    var value: (String, Int32)? { stored.withLock { $0 } }
}
