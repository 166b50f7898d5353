import ChildProcess
import Foundation
import Testing
import WebCacheTestSupport

@testable import CacheStore

#if canImport(Glibc)
    import Glibc
#endif

/// An import killed half way (SIGKILL, no chance to clean up) leaves a sound store, and importing
/// again completes it; one stopped by SIGINT prints what it committed, saying it was interrupted.
@Suite(.timeLimit(.minutes(2)))
final class InterruptedImportTests: ArchiveSite, @unchecked Sendable {
    /// Exports the preloaded site as a WARC file and starts `webcache import` of a pipe into a new
    /// store, its output in the files `out` and `err`; the caller feeds the pipe the file's `bytes`.
    private func startImportFromPipe() async throws
        -> (warc: String, bytes: Data, fifo: String, target: String, child: ChildProcess)
    {
        try await preload()
        let warc = folder.path("site.warc")
        _ = try await run("export", "--store", store, "--warc", warc)
        let fifo = folder.path("pipe.warc")
        try #require(mkfifo(fifo, 0o600) == 0)
        let target = folder.path("target.sqlite")
        let child = try webcache.start(
            ["import", "--store", target, fifo], output: OutputFile(path: folder.path("out")),
            error: OutputFile(path: folder.path("err")))
        return (warc, try Data(contentsOf: URL(fileURLWithPath: warc)), fifo, target, child)
    }

    /// Waits, for half a minute at most, until the import has stored an entry in `target`.
    private func waitUntilSomethingIsStored(in target: String) async throws {
        var stored = 0
        for _ in 0..<300 where stored == 0 {
            stored = try await storedCount(target)
            if stored == 0 { try await Task.sleep(for: .milliseconds(100)) }
        }
        let childError = (try? String(contentsOfFile: folder.path("err"), encoding: .utf8)) ?? ""
        try #require(stored > 0, "the import stored nothing from the first half: \(childError)")
    }

    @Test func anImportKilledHalfWayLeavesTheStoreSound() async throws {
        // Given an archive fed to the import through a pipe, only its first half
        let (warc, bytes, fifo, target, child) = try await startImportFromPipe()
        let killed = DispatchSemaphore(value: 0)
        let feeder = Thread {
            // Opening blocks until the import opens the pipe for reading.
            let descriptor = open(fifo, O_WRONLY)
            guard descriptor >= 0 else { return }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            try? handle.write(contentsOf: bytes.prefix(bytes.count / 2))
            // Held open until the import is killed: it waits for the rest, which never comes.
            killed.wait()
            try? handle.close()
        }
        feeder.start()

        // When some entries are stored, the import is killed
        try await waitUntilSomethingIsStored(in: target)
        child.send(SIGKILL)
        let termination = await child.finish().termination
        killed.signal()
        #expect(termination == .signalled(SIGKILL))

        // Then the store is sound, and a second import completes it
        let verify = try await run("verify", "--store", target)
        #expect(verify.exitCode == 0, "\(verify.stdout)")
        let again = try await run("import", "--store", target, warc)
        #expect(again.exitCode == 0, "\(again.stderr)")
        Self.expectSameEntries(try Self.entries(of: target), as: try Self.entries(of: store), tolerance: 0.000_01)
        #expect(try await run("verify", "--store", target).exitCode == 0)
    }

    @Test func anImportStoppedBySIGINTPrintsWhatItCommittedAndSaysItWasInterrupted() async throws {
        // Given an import fed the first half of an archive through a pipe, which has stored entries
        let (_, bytes, fifo, target, child) = try await startImportFromPipe()
        let errorPath = folder.path("err")
        let stopping = DispatchSemaphore(value: 0)
        let feeder = Thread {
            // A write to the pipe after the import has ended fails with EPIPE rather than ending the tests.
            var blocked = sigset_t()
            sigemptyset(&blocked)
            sigaddset(&blocked, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &blocked, nil)
            let descriptor = open(fifo, O_WRONLY)
            guard descriptor >= 0 else { return }
            let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
            try? handle.write(contentsOf: bytes.prefix(bytes.count / 2))
            // The rest comes once the import has taken the signal.
            stopping.wait()
            try? handle.write(contentsOf: bytes.suffix(from: bytes.count / 2))
            try? handle.close()
        }
        feeder.start()
        try await waitUntilSomethingIsStored(in: target)

        // When it gets SIGINT
        child.send(SIGINT)
        var told = false
        for _ in 0..<300 where !told {
            told = ((try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "").contains("stopping on signal 2")
            if !told { try await Task.sleep(for: .milliseconds(100)) }
        }
        stopping.signal()
        let (termination, _, _) = await child.finish()

        // Then it says so, and prints what it committed: what the store holds
        #expect(told, "\((try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "")")
        #expect(termination == .exited(130))
        let committed = try Self.entries(of: target)
        #expect(committed.count < (try Self.entries(of: store)).count)
        let output = (try? String(contentsOfFile: folder.path("out"), encoding: .utf8)) ?? ""
        let entries = committed.count == 1 ? "1 entry" : "\(committed.count) entries"
        #expect(output.hasPrefix("Interrupted: imported \(entries) ("), "\(output)")
        #expect(try await run("verify", "--store", target).exitCode == 0)
    }

    /// The entries stored at `path`, as `inspect` reads them while the import writes.
    private func storedCount(_ path: String) async throws -> Int {
        guard FileManager.default.fileExists(atPath: path) else { return 0 }
        let inspect = try await run("inspect", "--json", "--store", path)
        let object = try? JSONSerialization.jsonObject(with: inspect.stdoutData) as? [String: Any]
        return object?["entries"] as? Int ?? 0
    }
}
