import ChildProcess
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Real mounts for tests that need a small or a read-only file system: tmpfs mounts and bind mounts,
/// unmounted again when the test ends. Mounting needs root, and root ignores file modes, so a
/// read-only mount is the only way to refuse root a write; tests that use mounts are enabled only
/// when ``Mounts/areAvailable``.
public final class Mounts: Sendable {
    /// `mount` or `umount` failed.
    public struct Failure: Error, CustomStringConvertible {
        /// The command that failed and what it wrote to standard error.
        public var description: String
    }

    /// Whether this process may mount file systems: it runs as root.
    public static var areAvailable: Bool { getuid() == 0 }

    /// The mount points made so far, in order.
    private let points = Mutex<[String]>([])

    private init() {}

    /// Runs `body` with a fresh set of mounts, and unmounts each of them afterwards (lazily, innermost
    /// first), also when `body` throws.
    public static func with<T: Sendable>(_ body: (Mounts) async throws -> T) async throws -> T {
        let mounts = Mounts()
        do {
            let result = try await body(mounts)
            await mounts.unmountAll()
            return result
        } catch {
            await mounts.unmountAll()
            throw error
        }
    }

    /// Mounts a tmpfs of `size` (such as `8m`) at the folder `path`, creating the folder.
    public func tmpfs(at path: String, size: String) async throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try await Self.run("mount", ["-t", "tmpfs", "-o", "size=\(size)", "tmpfs", path])
        points.withLock { $0.append(path) }
    }

    /// Mounts the file or folder `source` at `target` as well (which must exist, of the same kind),
    /// read-only there when `readOnly`.
    public func bind(_ source: String, at target: String, readOnly: Bool) async throws {
        try await Self.run("mount", ["--bind", source, target])
        points.withLock { $0.append(target) }
        if readOnly {
            try await Self.run("mount", ["-o", "remount,bind,ro", target])
        }
    }

    /// Changes the options of the mount at `path`, such as `remount,ro` or `remount,size=16m`.
    public func remount(_ path: String, options: String) async throws {
        try await Self.run("mount", ["-o", options, path])
    }

    private func unmountAll() async {
        let made = points.withLock { points in
            defer { points = [] }
            return points
        }
        for point in made.reversed() {
            try? await Self.run("umount", ["-l", point])
        }
    }

    /// Runs `tool` with `arguments` and throws when it does not exit with 0.
    private static func run(_ tool: String, _ arguments: [String]) async throws {
        let result = try await ChildProcess.spawn("/usr/bin/env", [tool] + arguments, output: .null, error: .pipe)
            .finish()
        guard result.termination == .exited(0) else {
            let errors = String(decoding: result.error, as: UTF8.self)
            throw Failure(description: "\(tool) \(arguments.joined(separator: " ")) failed: \(errors)")
        }
    }
}
