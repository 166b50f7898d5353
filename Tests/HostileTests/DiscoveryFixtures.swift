import Foundation

/// The fixtures of the discovery tests, read from the source tree.
enum DiscoveryFixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("DiscoveryTests/Fixtures")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }
}
