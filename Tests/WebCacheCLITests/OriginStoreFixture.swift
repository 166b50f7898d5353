import Foundation
import LocalOrigin
import WebCacheTestSupport

/// What the end-to-end suites of the CLI share: the real `webcache` executable, `TestOrigin`
/// running on 127.0.0.1, and a store path in a temporary folder. A suite inherits it, so that each
/// of its tests gets its own origin and folder.
class OriginStoreFixture: @unchecked Sendable {  // Every stored property is a constant.
    let folder: TemporaryFolder
    let server: OriginServer
    let webcache: WebcacheRunner
    let store: String
    /// The gate of the origin's `/held.html`, open unless a test closes it.
    let gate = Gate()

    /// Starts the origin, which waits `latency` before each response; the executable searches
    /// `searchPath` for the commands it runs.
    init(searchPath: String = WebcacheRunner.inheritedSearchPath, latency: Duration = .zero) throws {
        folder = try TemporaryFolder()
        server = try TestOrigin.start(latency: latency, gate: gate)
        webcache = WebcacheRunner(home: folder, searchPath: searchPath)
        store = folder.path("store.sqlite")
    }

    deinit {
        gate.open()
        server.stop()
    }

    /// The absolute URL of `path` on the origin.
    func url(_ path: String) -> String {
        server.url(path).absoluteString
    }

    /// Runs `webcache` with `--store` set to this test's store.
    func run(_ arguments: String...) async throws -> WebcacheRunner.Result {
        try await webcache.run(arguments + ["--store", store])
    }
}
