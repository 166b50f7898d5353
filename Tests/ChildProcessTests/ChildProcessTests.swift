import ChildProcess
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Real children through `posix_spawn`: statuses, signals, streams, environments and descriptors.
@Suite(.timeLimit(.minutes(5)))
struct ChildProcessTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "child-process-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    private func shell(
        _ script: String, _ arguments: [String] = [], environment: [String: String]? = nil,
        input: ChildProcess.Stream = .null, output: ChildProcess.Stream = .pipe, error: ChildProcess.Stream = .pipe
    ) throws -> ChildProcess {
        try ChildProcess.spawn(
            "/bin/sh", ["-c", script, "sh"] + arguments, environment: environment,
            input: input, output: output, error: error)
    }

    // MARK: - Termination

    @Test(arguments: [0, 1, 3, 64, 255])
    func reportsTheExitStatus(status: Int32) async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await shell("exit \(status)").finish()
        #expect(result.termination == .exited(status))
        #expect(result.termination.succeeded == (status == 0))
    }

    @Test func reportsTheSignalThatEndedTheChild() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await shell("kill -TERM $$").finish()
        #expect(result.termination == .signalled(SIGTERM))
        #expect(!result.termination.succeeded)
    }

    @Test func sendDeliversASignal() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let child = try ChildProcess.spawn("/bin/sleep", ["60"], output: .null, error: .null)
        #expect(child.pid > 0)
        child.send(SIGKILL)
        #expect(await child.finish().termination == .signalled(SIGKILL))
    }

    #if os(Linux)
    @Test func descriptorsOfTheParentAreNotInheritedEvenWithoutCloseOnExec() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // A pipe whose ends are inheritable, as a library's sockets may be.
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let probe = "for fd in \"$@\"; do if [ -e /proc/self/fd/$fd ]; then echo open $fd; fi; done; echo checked"
        let pipeName = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(ends[1])")
        let prober = try shell(probe, ends.map(String.init))
        let sleeper = try ChildProcess.spawn("/bin/sleep", ["600"], output: .null, error: .null)
        close(ends[1])
        // The sleeper's own descriptors, not the pipe's end of file: a child another test starts at the same
        // moment holds a copy of every descriptor between its fork and its exec.
        let sleeperFolder = "/proc/\(sleeper.pid)/fd"
        // A descriptor the sleeper opens and closes as it starts (its locale's files) may go while listed.
        let held = try FileManager.default.contentsOfDirectory(atPath: sleeperFolder).compactMap {
            try? FileManager.default.destinationOfSymbolicLink(atPath: "\(sleeperFolder)/\($0)")
        }
        #expect(pipeName.hasPrefix("pipe:"))
        #expect(held.contains("/dev/null"))
        #expect(!held.contains(pipeName), "\(held)")
        #expect(kill(sleeper.pid, 0) == 0)
        sleeper.send(SIGKILL)
        #expect(await sleeper.finish().termination == .signalled(SIGKILL))
        #expect(String(decoding: await prober.finish().output, as: UTF8.self) == "checked\n")
    }

    @Test func theChildStartsWithNoSignalBlockedOrIgnored() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // Whatever the test process blocks or ignores, a child starts clean.
        let result = try await ChildProcess.spawn(
            "/bin/grep", ["-E", "^Sig(Blk|Ign):", "/proc/self/status"], output: .pipe
        ).finish()
        let lines = String(decoding: result.output, as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 2)
        for line in lines {
            // Bit n - 1 stands for signal n. glibc keeps its own real-time signals (32 and 33) ignored in
            // every spawned child, so only the standard signals 1 to 31 are checked.
            let mask = try #require(UInt64(line.split(separator: "\t").last ?? "", radix: 16), "\(line)")
            #expect(mask & 0x7FFF_FFFF == 0, "\(line)")
        }
    }
    #endif

    // MARK: - Streams

    @Test func pipesCarryOutputAndErrorSeparately() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await shell("echo out; echo err >&2; exit 2").finish()
        #expect(result.termination == .exited(2))
        #expect(String(decoding: result.output, as: UTF8.self) == "out\n")
        #expect(String(decoding: result.error, as: UTF8.self) == "err\n")
    }

    @Test func pipesAreDrainedWhileTheChildRuns() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // Far more than a pipe buffer on both streams: the child blocks unless both are read as it writes.
        let size = 1_000_000
        let script = "head -c \(size) /dev/zero | tr '\\0' o; head -c \(size) /dev/zero | tr '\\0' e >&2; echo end"
        let result = try await shell(script).finish()
        #expect(result.termination == .exited(0))
        #expect(result.output.count == size + 4)
        #expect(result.output.prefix(size).allSatisfy { $0 == UInt8(ascii: "o") })
        #expect(result.output.suffix(4) == Data("end\n".utf8))
        #expect(result.error.count == size)
        #expect(result.error.allSatisfy { $0 == UInt8(ascii: "e") })
    }

    @Test func finishBlockingDrainsBothPipesAndWaitsOnTheCallingThread() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let size = 300_000
        let script = "head -c \(size) /dev/zero | tr '\\0' o; head -c \(size) /dev/zero | tr '\\0' e >&2; exit 5"
        let result = try shell(script).finishBlocking()
        #expect(result.termination == .exited(5))
        #expect(result.output.count == size)
        #expect(result.output.allSatisfy { $0 == UInt8(ascii: "o") })
        #expect(result.error.count == size)
        #expect(result.error.allSatisfy { $0 == UInt8(ascii: "e") })
    }

    @Test func fileStreamsWriteAndReadFiles() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let input = folder.appending(path: "input.txt").path
        let output = folder.appending(path: "output.txt").path
        let error = folder.appending(path: "error.txt").path
        try Data("from a file\n".utf8).write(to: URL(fileURLWithPath: input))
        // An existing output file is truncated.
        try Data(repeating: UInt8(ascii: "x"), count: 100).write(to: URL(fileURLWithPath: output))

        let result = try await shell("cat; echo warning >&2", input: .file(input), output: .file(output),
                                     error: .file(error)).finish()

        #expect(result.termination == .exited(0))
        #expect(result.output.isEmpty)
        #expect(result.error.isEmpty)
        #expect(try String(contentsOfFile: output, encoding: .utf8) == "from a file\n")
        #expect(try String(contentsOfFile: error, encoding: .utf8) == "warning\n")
    }

    @Test func nullStreamsReadNothingAndSwallowOutput() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let silent = try await shell("echo lost; echo lost >&2", output: .null, error: .null).finish()
        #expect(silent.termination == .exited(0))
        #expect(silent.output.isEmpty && silent.error.isEmpty)

        let reader = try await shell("cat; echo done", input: .null).finish()
        #expect(String(decoding: reader.output, as: UTF8.self) == "done\n")
    }

    // MARK: - Environment

    @Test func aGivenEnvironmentReplacesTheParentsOne() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let result = try await ChildProcess.spawn(
            "/usr/bin/env", [], environment: ["GREETING": "hello world", "EMPTY": ""], output: .pipe
        ).finish()
        let lines = Set(String(decoding: result.output, as: UTF8.self).split(separator: "\n").map(String.init))
        #expect(lines == ["GREETING=hello world", "EMPTY="])
    }

    @Test func withoutAnEnvironmentTheChildGetsTheParentsOne() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try #require(ProcessInfo.processInfo.environment["PATH"])
        let result = try await shell("printf %s \"$PATH\"").finish()
        #expect(String(decoding: result.output, as: UTF8.self) == path)
    }

    // MARK: - Errors

    @Test func aMissingExecutableIsAnErrorNamingIt() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appending(path: "no-such-program").path
        #expect {
            _ = try ChildProcess.spawn(missing, ["--version"])
        } throws: { error in
            (error as? ChildProcessError)?.description.contains("'\(missing)'") == true
        }
    }

    // MARK: - Many children

    @Test func fiftyConcurrentChildrenEachGetTheirOwnStreams() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let results = try await withThrowingTaskGroup(of: (Int, ChildProcess.Termination, String, String).self) {
            group in
            for index in 0..<50 {
                group.addTask {
                    let child = try shell("echo out $1; echo err $1 >&2; exit $(($1 % 7))", ["\(index)"])
                    let result = await child.finish()
                    return (index, result.termination, String(decoding: result.output, as: UTF8.self),
                            String(decoding: result.error, as: UTF8.self))
                }
            }
            var results: [(Int, ChildProcess.Termination, String, String)] = []
            for try await result in group { results.append(result) }
            return results
        }
        #expect(results.count == 50)
        for (index, termination, output, error) in results {
            #expect(termination == .exited(Int32(index % 7)), "child \(index)")
            #expect(output == "out \(index)\n", "child \(index)")
            #expect(error == "err \(index)\n", "child \(index)")
        }
    }

    @Test func extraDescriptorsArriveAsThreeAndFourInTheirOrder() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // Given two pipes: the child reads a line from the first on 3 and writes it to the second on 4
        var toChild: [Int32] = [0, 0]
        var fromChild: [Int32] = [0, 0]
        #expect(pipe(&toChild) == 0 && pipe(&fromChild) == 0)
        let child = try ChildProcess.spawn(
            "/bin/sh", ["-c", "read line <&3; echo \"got $line\" >&4"], extraDescriptors: [toChild[0], fromChild[1]])
        close(toChild[0])
        close(fromChild[1])
        // When a line goes in
        _ = "hello\n".withCString { write(toChild[1], $0, 6) }
        close(toChild[1])
        let termination = await child.finish().termination
        // Then it comes back through the other pipe
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(fromChild[0], &buffer, buffer.count)
        close(fromChild[0])
        #expect(termination.succeeded)
        #expect(String(decoding: buffer.prefix(max(count, 0)), as: UTF8.self) == "got hello\n")
    }

    @Test func aChildDoesNotHoldAnotherChildsPipeOpen() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        // Sleepers are started while the short children's pipes exist. Had a sleeper inherited a
        // write end, that short child's output would not end until the sleeper did.
        let (sleepers, outputs) = try await withThrowingTaskGroup(of: (ChildProcess?, String?).self) { group in
            for index in 0..<20 {
                group.addTask {
                    if index % 2 == 0 {
                        return (try ChildProcess.spawn("/bin/sleep", ["600"], output: .null, error: .null), nil)
                    }
                    let result = try await shell("echo $1", ["\(index)"]).finish()
                    return (nil, String(decoding: result.output, as: UTF8.self))
                }
            }
            var sleepers: [ChildProcess] = []
            var outputs: [String] = []
            for try await (sleeper, output) in group {
                if let sleeper { sleepers.append(sleeper) }
                if let output { outputs.append(output) }
            }
            return (sleepers, outputs)
        }
        #expect(Set(outputs) == Set((0..<20).filter { $0 % 2 == 1 }.map { "\($0)\n" }))
        // Every short child's output ended while all the sleepers were still running.
        for sleeper in sleepers {
            #expect(kill(sleeper.pid, 0) == 0)
            sleeper.send(SIGKILL)
            #expect(await sleeper.finish().termination == .signalled(SIGKILL))
        }
    }
}
