import Foundation

/// A unique folder under the system's temporary directory, removed with everything in it when the
/// last reference to it goes.
public final class TemporaryFolder: Sendable {
    /// The folder.
    public let url: URL

    /// Creates a fresh, empty folder whose name starts with `prefix`.
    public init(prefix: String = "webcache-tests") throws {
        url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Removes the folder and everything in it now, rather than when the last reference goes.
    public func remove() {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` inside the folder; nothing is created.
    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Writes `data` to the file `name` inside the folder, creating the folders on the way, and
    /// returns its path.
    @discardableResult
    public func write(_ data: Data, to name: String) throws -> String {
        let path = path(name)
        let parent = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }
}
