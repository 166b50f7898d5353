import Foundation

/// 100 MiB of zeros, gzip-compressed by the system's `gzip` (about 100 KiB); `nil` without one.
enum CompressionBomb {
    /// The decoded size.
    static let decodedSize = 100 << 20

    static let gzip: Data? = {
        guard FileManager.default.isExecutableFile(atPath: "/bin/sh") else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "head -c \(decodedSize) /dev/zero | gzip -1 -c"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, data.count > 18, data.count < decodedSize / 100 else { return nil }
        return data
    }()
}
