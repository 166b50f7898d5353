import ChildProcess
import Foundation
import WebCacheTestSupport

/// The programs the interoperability tests run: Python for zip files, warcio from the virtual
/// environment that scripts/install-deps.sh makes, and GNU wget.
enum ExternalTools {
    /// What a run printed and how it ended.
    struct Run {
        var exitCode: Int32
        var output: String
        var error: String
    }

    /// The virtual environment's folder, `.build/venv` in the repository.
    static let environment = Repository.file(".build/venv")

    /// `warcio` from the virtual environment.
    static var warcio: String {
        get throws {
            let path = environment.appendingPathComponent("bin/warcio").path
            guard FileManager.default.isExecutableFile(atPath: path) else {
                throw Missing(tool: "warcio", path: path)
            }
            return path
        }
    }

    /// A tool the tests need is not installed.
    struct Missing: Error, CustomStringConvertible {
        var tool: String
        var path: String
        var description: String { "\(tool) is not at \(path); run scripts/install-deps.sh to install it." }
    }

    /// Runs `executable` with `arguments` to its end.
    static func run(_ executable: String, _ arguments: [String], in folder: String? = nil) async throws -> Run {
        var command = [executable] + arguments
        if let folder { command = ["/bin/sh", "-c", "cd \"$0\" && exec \"$@\"", folder] + command }
        let child = try ChildProcess.spawn(command[0], Array(command.dropFirst()), output: .pipe, error: .pipe)
        let (termination, output, error) = await child.finish()
        let code: Int32
        switch termination {
        case .exited(let status): code = status
        case .signalled(let signal): code = 128 + signal
        }
        return Run(
            exitCode: code, output: String(decoding: output, as: UTF8.self), error: String(decoding: error, as: UTF8.self))
    }
}
