import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Sessions
import Testing
import Transport
import WebCache

/// A unique temporary folder, removed with everything in it when the last reference goes.
final class TemporaryFolder: Sendable {
    let url: URL

    init() throws {
        url = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("webcache-hostile-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// A path inside the folder.
    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Writes `data` to a file in the folder and returns its path.
    @discardableResult
    func write(_ data: Data, to name: String) throws -> String {
        let path = path(name)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }
}
