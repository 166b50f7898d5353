import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import WebCache
import WebCacheTestSupport

// MARK: - A running origin with a cache in front of it

/// An origin server on 127.0.0.1 and a ``WebCache`` whose instance URL is that origin, with a real
/// store file and the real curl transport. Call ``stop()`` at the end of the test.
struct PreloadRig {
    let folder: TemporaryFolder
    let server: OriginServer
    let cache: WebCache

    /// Starts `handler` on a free port and opens a cache on a fresh store.
    static func start(
        in folder: TemporaryFolder? = nil, handler: @escaping OriginServer.Handler
    ) throws -> PreloadRig {
        let folder = try folder ?? TemporaryFolder()
        let server = OriginServer(handler: handler)
        try server.start()
        let cache = try PreloadRig.openCache(folder: folder, server: server)
        return PreloadRig(folder: folder, server: server, cache: cache)
    }

    /// Serves the files under `site` (a folder) with the static site handler.
    static func serving(_ site: URL, in folder: TemporaryFolder) throws -> PreloadRig {
        try start(in: folder, handler: StaticSite(root: site).handler)
    }

    static func openCache(folder: TemporaryFolder, server: OriginServer, instance: Bool = true) throws
        -> WebCache
    {
        var configuration = WebCache.Configuration(environment: [:])
        configuration.storePath = folder.storePath
        configuration.instanceURL = instance ? server.baseURL : nil
        return try WebCache(configuration: configuration)
    }

    /// The absolute URL string of `path` on the origin, in cache-key form.
    func url(_ path: String) -> String {
        server.url(path).absoluteString
    }

    /// The GET requests the origin received, by path, with how often each was asked for.
    var requestCounts: [String: Int] {
        server.requests.filter { $0.method == .get }.reduce(into: [:]) { $0[$1.path, default: 0] += 1 }
    }

    func stop() async {
        await cache.close()
        server.stop()
        folder.remove()
    }
}

// MARK: - Options

extension PreloadOptions {
    /// The defaults with every candidate fetched: for tests of the engine, not of device choice.
    static var allCandidates: PreloadOptions {
        var options = PreloadOptions()
        options.fetchesAllCandidates = true
        return options
    }
}

// MARK: - Recording events

/// Collects the events of a preload run, in order.
final class PreloadEventLog: Sendable {
    private let events = Mutex<[PreloadEvent]>([])

    var all: [PreloadEvent] { events.withLock { $0 } }

    func record(_ event: PreloadEvent) {
        events.withLock { $0.append(event) }
    }

    var handler: @Sendable (PreloadEvent) -> Void {
        { event in self.record(event) }
    }

    /// The paths of the URLs that have a `discovered` event.
    var discoveredPaths: [String] {
        all.compactMap { if case .discovered(let url, _, _) = $0 { url.path } else { nil } }
    }

    /// The paths of the URLs that have a `fetched` event.
    var fetchedPaths: [String] {
        all.compactMap { if case .fetched(let url, _, _, _) = $0 { url.path } else { nil } }
    }

    /// The reasons given in `failed` events, by path.
    var failures: [String: String] {
        all.reduce(into: [:]) { if case .failed(let url, let reason) = $1 { $0[url.path] = reason } }
    }

    /// The reasons given in `skipped` events, by absolute URL string.
    var skipped: [String: String] {
        all.reduce(into: [:]) { if case .skipped(let url, let reason) = $1 { $0[url.absoluteString] = reason } }
    }

    /// The `retrying` events' URL paths.
    var retryingPaths: [String] {
        all.compactMap { if case .retrying(let url, _, _, _) = $0 { url.path } else { nil } }
    }

    /// The `retrying` events' attempts and delays, in order.
    var retries: [(attempt: Int, delay: TimeInterval)] {
        all.compactMap { if case .retrying(_, let attempt, let delay, _) = $0 { (attempt, delay) } else { nil } }
    }
}

// MARK: - Ordered marks across threads

/// Marks written by origin handlers from their threads, in the order they happened.
final class PreloadMarks: Sendable {
    private let marks = Mutex<[String]>([])

    func add(_ mark: String) {
        marks.withLock { $0.append(mark) }
    }

    var all: [String] { marks.withLock { $0 } }

    func contains(_ mark: String) -> Bool {
        marks.withLock { $0.contains(mark) }
    }
}

/// The largest number of handlers running at once, as counted by ``enter()`` and ``leave()``.
final class PreloadInFlightCounter: Sendable {
    private struct State {
        var current = 0
        var maximum = 0
        /// When ``waitForMaximum(_:timeout:)`` stops holding callers.
        var deadline: Date?
    }

    private let state = Mutex(State())

    func enter() {
        state.withLock {
            $0.current += 1
            $0.maximum = max($0.maximum, $0.current)
        }
    }

    func leave() {
        state.withLock { $0.current -= 1 }
    }

    var maximum: Int { state.withLock { $0.maximum } }

    /// Holds the caller until ``maximum`` has reached `count`, but no later than `timeout` after the
    /// first call: a count that is never reached costs one timeout in all, not one per caller.
    func waitForMaximum(_ count: Int, timeout: TimeInterval) {
        let deadline = state.withLock { state in
            let deadline = state.deadline ?? Date().addingTimeInterval(timeout)
            state.deadline = deadline
            return deadline
        }
        while maximum < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.002) }
    }
}

// MARK: - Bodies

/// `count` bytes of filler content (not text a scanner would find anything in).
func preloadFiller(_ count: Int, seed: UInt8 = 7) -> Data {
    Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) })
}
