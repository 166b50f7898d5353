import ChildProcess
import Foundation
import Testing

/// Runs the built `webcache` executable with its home and cache folders in a temporary folder.
struct WebcacheRunner {
    /// What one run printed and how it exited.
    struct Result: Sendable {
        var exitCode: Int32
        var stdout: String
        var stderr: String

        /// Both outputs, for checks that hold for everything printed.
        var everything: String { stdout + "\n" + stderr }
    }

    /// `webcache` did not exit by itself (a signal ended it).
    struct UnexpectedTermination: Error, CustomStringConvertible {
        var arguments: [String]
        var termination: ChildProcess.Termination
        var description: String { "webcache \(arguments.joined(separator: " ")) ended with \(termination)." }
    }

    let home: TemporaryFolder

    /// Runs `webcache arguments`, waits for it, and returns what it printed.
    func run(_ arguments: [String]) async throws -> Result {
        let environment = [
            "PATH": "/usr/bin:/bin", "HOME": home.url.path, "LANG": "C.UTF-8",
            "XDG_CACHE_HOME": home.path("cache"),
        ]
        // Files, not pipes: a full pipe cannot stall the child.
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
        return Result(exitCode: code, stdout: String(decoding: stdout, as: UTF8.self),
                      stderr: String(decoding: stderr, as: UTF8.self))
    }

    /// The `webcache` executable: `.build/<configuration>/webcache` above the test bundle.
    static func executable() throws -> URL {
        let starts = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent(),
            Bundle.main.bundleURL,
        ]
        for start in starts {
            var directory = start
            for _ in 0..<8 {
                let sibling = directory.appendingPathComponent("webcache")
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: sibling.path, isDirectory: &isDirectory),
                    !isDirectory.boolValue, FileManager.default.isExecutableFile(atPath: sibling.path)
                {
                    return sibling
                }
                let built = directory.appendingPathComponent(".build/debug/webcache")
                if FileManager.default.isExecutableFile(atPath: built.path) { return built }
                directory.deleteLastPathComponent()
            }
        }
        let location = CommandLine.arguments[0]
        Issue.record("The webcache executable was not found above \(location); build with --build-tests.")
        throw CocoaError(.fileNoSuchFile)
    }
}
