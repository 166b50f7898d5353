import ChildProcess
import Foundation

/// The repository's check scripts (`scripts/browser-check.sh` and the like), run against this
/// build's executables with standard output and standard error in one text, in the order written.
public enum CheckScript {
    /// Runs `scripts/NAME` with `options`, then the folder of the built `webcache`.
    /// - Returns: how it ended, and everything it wrote.
    public static func run(
        _ name: String, options: [String] = []
    ) async throws -> (termination: ChildProcess.Termination, text: String) {
        let script = Repository.file("scripts/\(name)").path
        let binaries = try BuiltProducts.folder(containing: "webcache")
        let child = try ChildProcess.spawn(
            "/bin/sh", ["-c", "exec \"$@\" 2>&1", "sh", script] + options + [binaries.path], output: .pipe)
        let result = await child.finish()
        return (result.termination, String(decoding: result.output, as: UTF8.self))
    }
}
