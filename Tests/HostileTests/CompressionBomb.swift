import ChildProcess
import Foundation

/// 100 MiB of zeros, gzip-compressed by the system's `gzip` (about 100 KiB); `nil` without one.
enum CompressionBomb {
    /// The decoded size.
    static let decodedSize = 100 << 20

    static let gzip: Data? = {
        guard FileManager.default.isExecutableFile(atPath: "/bin/sh") else { return nil }
        let child = try? ChildProcess.spawn(
            "/bin/sh", ["-c", "head -c \(decodedSize) /dev/zero | gzip -1 -c"], output: .pipe, error: .null)
        guard let result = child?.finishBlocking() else { return nil }
        let data = result.output
        guard result.termination == .exited(0), data.count > 18, data.count < decodedSize / 100 else { return nil }
        return data
    }()
}
