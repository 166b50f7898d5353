import ChildProcess
import Foundation
import Testing

/// Runs the built `webcache` executable as a user would, with its home and cache directories
/// pointed at a temporary folder so that nothing touches the real user's cache.
struct WebcacheProcess {
    /// What one run printed and how it exited.
    struct Result: Sendable {
        var exitCode: Int32
        var stdout: String
        var stderr: String
        var stdoutData: Data
    }

    /// `webcache` did not exit by itself (a signal ended it).
    struct UnexpectedTermination: Error, CustomStringConvertible {
        var arguments: [String]
        var termination: ChildProcess.Termination
        var description: String { "webcache \(arguments.joined(separator: " ")) ended with \(termination)." }
    }

    /// The folder used as `HOME` and, below it, `XDG_CACHE_HOME`.
    let home: TemporaryFolder

    init(home: TemporaryFolder) {
        self.home = home
    }

    /// Runs `webcache` with `arguments`, waits for it, and returns its outputs and exit code.
    func run(_ arguments: [String]) async throws -> Result {
        var environment = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"]
        environment["HOME"] = home.url.path
        environment["XDG_CACHE_HOME"] = home.url.appendingPathComponent("cache").path
        environment["LANG"] = "C.UTF-8"
        // Outputs go to files, not pipes: a full pipe cannot stall the child.
        let name = UUID().uuidString
        let outPath = home.path("\(name).out")
        let errPath = home.path("\(name).err")
        let process = try ChildProcess.spawn(
            try Self.executable().path, arguments, environment: environment,
            input: .null, output: .file(outPath), error: .file(errPath))
        let termination = await process.finish().termination
        guard case .exited(let code) = termination else {
            throw UnexpectedTermination(arguments: arguments, termination: termination)
        }
        let stdout = try Data(contentsOf: URL(fileURLWithPath: outPath))
        let stderr = try Data(contentsOf: URL(fileURLWithPath: errPath))
        try? FileManager.default.removeItem(atPath: outPath)
        try? FileManager.default.removeItem(atPath: errPath)
        return Result(exitCode: code, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self), stdoutData: stdout)
    }

    /// The `webcache` executable built next to this test bundle (`.build/<configuration>/webcache`).
    static func executable() throws -> URL {
        let fileManager = FileManager.default
        let starts = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL.deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ]
        for start in starts {
            var directory = start
            for _ in 0..<8 {
                let sibling = directory.appendingPathComponent("webcache")
                var isDirectory: ObjCBool = false
                if fileManager.fileExists(atPath: sibling.path, isDirectory: &isDirectory), !isDirectory.boolValue,
                    fileManager.isExecutableFile(atPath: sibling.path)
                {
                    return sibling
                }
                for configuration in ["debug", "release"] {
                    let candidate = directory.appendingPathComponent(".build/\(configuration)/webcache")
                    if fileManager.isExecutableFile(atPath: candidate.path) { return candidate }
                }
                directory.deleteLastPathComponent()
            }
        }
        let message = "The webcache executable was not found next to the test bundle "
            + "(\(CommandLine.arguments[0])); build it with `swift build --build-tests` before running the tests."
        Issue.record(Comment(rawValue: message))
        throw CocoaError(.fileNoSuchFile)
    }
}
