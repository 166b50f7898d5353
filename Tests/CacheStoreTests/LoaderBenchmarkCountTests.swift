import ChildProcess
import Foundation
import Testing
import WebCacheTestSupport

/// `webcache-bench loader --count`, which `scripts/bench-write.sh` runs under callgrind: only the loads
/// of one side, untimed, after the same setup and warm-up as the timed benchmark.
@Suite(.timeLimit(.minutes(5)))
struct LoaderBenchmarkCountTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    @Test(arguments: ["hit", "memory", "select"])
    func countsTheLoadsOfOneSideAndTimesNothing(side: String) async throws {
        let result = try await runLoader(["--count", side, "--loads", "5"])

        #expect(result.termination == .exited(0), "\(result.error)")
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines == ["| \(side) loads after the warm-up | 5 |"])
        // The benchmark removes the store it made.
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).isEmpty)
    }

    @Test(arguments: [
        ["--count", "both", "--loads", "5"],
        ["--count", "hit"],
        ["--count", "hit", "--loads", "many"],
        ["--count", "select", "--loads", "-1"],
    ])
    func refusesACountItCannotMakeAndNamesTheOption(arguments: [String]) async throws {
        let result = try await runLoader(arguments)

        #expect(result.termination == .exited(64))
        #expect(result.error.contains("'--count' takes hit, memory or select, with '--loads <n>'"))
        #expect(result.output.isEmpty)
    }

    private func runLoader(_ arguments: [String]) async throws
        -> (termination: ChildProcess.Termination, output: String, error: String)
    {
        let executable = try BuiltProducts.executable(named: "webcache-bench")
        let process = try ChildProcess.spawn(
            executable.path, ["loader", "--directory", folder.url.path] + arguments, output: .pipe, error: .pipe)
        let result = await process.finish()
        return (result.termination, String(decoding: result.output, as: UTF8.self),
                String(decoding: result.error, as: UTF8.self))
    }
}
