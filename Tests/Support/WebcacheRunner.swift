import ChildProcess
import Foundation

/// Runs the built `webcache` executable as a user would, with `HOME` and `XDG_CACHE_HOME` in a
/// temporary folder so that nothing touches the real user's files.
public struct WebcacheRunner: Sendable {
    /// What one run printed and how it exited.
    public struct Result: Sendable {
        /// The exit code.
        public var exitCode: Int32
        /// Standard output as text.
        public var stdout: String
        /// Standard error as text.
        public var stderr: String
        /// Standard output as bytes.
        public var stdoutData: Data

        /// Both outputs, for checks that hold for everything printed.
        public var everything: String { stdout + "\n" + stderr }
    }

    /// `webcache` did not exit by itself (a signal ended it).
    public struct UnexpectedTermination: Error, CustomStringConvertible {
        /// The arguments of the run.
        public var arguments: [String]
        /// How it ended.
        public var termination: ChildProcess.Termination

        /// A sentence naming the command and how it ended.
        public var description: String { "webcache \(arguments.joined(separator: " ")) ended with \(termination)." }
    }

    /// The search path children get unless told otherwise.
    public static let defaultSearchPath = "/usr/bin:/bin"

    /// The search path of the test process itself.
    public static var inheritedSearchPath: String {
        ProcessInfo.processInfo.environment["PATH"] ?? defaultSearchPath
    }

    /// The folder used as `HOME` and, below it (`cache`), as `XDG_CACHE_HOME`.
    public let home: TemporaryFolder
    /// The `PATH` of the child.
    public let searchPath: String
    /// More environment variables for every child (such as `TMPDIR`).
    public let extraEnvironment: [String: String]

    /// Creates a runner whose children live in `home` and search `searchPath`.
    public init(
        home: TemporaryFolder, searchPath: String = WebcacheRunner.defaultSearchPath,
        extraEnvironment: [String: String] = [:]
    ) {
        self.home = home
        self.searchPath = searchPath
        self.extraEnvironment = extraEnvironment
    }

    /// The environment of every child.
    private var environment: [String: String] {
        ["PATH": searchPath, "HOME": home.url.path, "LANG": "C.UTF-8", "XDG_CACHE_HOME": home.path("cache")]
            .merging(extraEnvironment) { _, extra in extra }
    }

    /// Starts `webcache arguments` without waiting for it, for a command that runs until stopped
    /// (`serve`); its outputs go to `output` and `error`.
    public func start(_ arguments: [String], output: OutputFile, error: OutputFile) throws -> ChildProcess {
        try ChildProcess.spawn(
            try BuiltProducts.executable(named: "webcache").path, arguments, environment: environment,
            input: .null, output: .file(output.path), error: .file(error.path))
    }

    /// Runs `webcache arguments`, waits for it, and returns what it printed and its exit code. With
    /// `limit`, a run still going after it is killed, so that a command that never ends fails the
    /// test with ``UnexpectedTermination`` instead of holding it up.
    public func run(_ arguments: [String], killedAfter limit: Duration? = nil) async throws -> Result {
        // Outputs go to files, not pipes: a full pipe cannot stall the child.
        let name = UUID().uuidString
        let outPath = home.path("\(name).out")
        let errPath = home.path("\(name).err")
        defer {
            try? FileManager.default.removeItem(atPath: outPath)
            try? FileManager.default.removeItem(atPath: errPath)
        }
        let process = try start(arguments, output: OutputFile(path: outPath), error: OutputFile(path: errPath))
        let killer = limit.map { limit in
            Task {
                try await Task.sleep(for: limit)
                process.send(SIGKILL)
            }
        }
        let termination = await process.finish().termination
        killer?.cancel()
        guard case .exited(let code) = termination else {
            throw UnexpectedTermination(arguments: arguments, termination: termination)
        }
        let stdout = try Data(contentsOf: URL(fileURLWithPath: outPath))
        let stderr = try Data(contentsOf: URL(fileURLWithPath: errPath))
        return Result(
            exitCode: code, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self), stdoutData: stdout)
    }
}
