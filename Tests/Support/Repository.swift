import Foundation

/// The package's own source tree, for tests that run its scripts or read its examples.
public enum Repository {
    /// The root folder of the package, the one that holds `Package.swift`.
    public static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // Support
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    /// The file or folder at `relativePath` below the root, such as `scripts/fault-campaign.sh`.
    public static func file(_ relativePath: String) -> URL {
        root.appendingPathComponent(relativePath)
    }
}
