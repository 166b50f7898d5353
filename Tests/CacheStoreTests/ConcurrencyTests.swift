import ChildProcess
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite(.timeLimit(.minutes(5)))
struct ConcurrencyTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    // MARK: - In one process

    @Test func manyTasksWriteAndReadAtOnce() async throws {
        let store = try CacheStore(path: folder.path("tasks.sqlite"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<16 {
                group.addTask {
                    for index in 0..<20 {
                        let url = "https://example.test/\(index)"
                        if task % 2 == 0 {
                            try await store.save(makeEntry(url), body: makeBody(size: 2_000 + task, seed: UInt8(task)))
                        } else {
                            _ = try await store.lookup(url: url)
                            _ = try store.variants(url: url)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try store.totals().entryCount == 20)
        #expect(try await store.verify().isSound)
        try await store.close()
    }

    // MARK: - Staging

    @Test func collectsStagingOfDeadProcessesAndKeepsStagingOfLiveOnes() async throws {
        let path = folder.path("staging.sqlite")
        let store = try CacheStore(path: path)
        var live = store.makeBodyWriter()
        try await live.write(makeBody(size: CacheStore.chunkSize + 1, seed: 1))
        try await store.write("plant") { connection in
            // A process id above the kernel's maximum: certainly not running.
            try connection.run("INSERT INTO staging VALUES ('dead', 2147483000, ?)", [.date(Date())])
            try connection.run(
                "INSERT INTO body (size, chunk_count, created_at, staging_token) VALUES (0, 0, 0, 'dead')")
            try connection.run("INSERT INTO body_chunk (body_id, seq, data) VALUES (last_insert_rowid(), 0, x'00')")
            // Process 1 exists (kill answers EPERM or success): a live writer elsewhere.
            try connection.run("INSERT INTO staging VALUES ('other', 1, ?)", [.date(Date())])
            try connection.run("INSERT INTO staging VALUES ('ancient', 1, 0)")
            // The same id, written in this PID namespace, and in another one (a container sharing the
            // folder), where no process seen here tells whether its writer lives
            let here = Int64(StagingOwner.namespaceTag) << 32 | 2_147_483_000
            let elsewhere = Int64(StagingOwner.namespaceTag ^ 0x5A5A) << 32 | 2_147_483_000
            try connection.run("INSERT INTO staging VALUES ('dead here', ?, ?)", [.integer(here), .date(Date())])
            try connection.run("INSERT INTO staging VALUES ('elsewhere', ?, ?)", [.integer(elsewhere), .date(Date())])
            try connection.run("INSERT INTO staging VALUES ('ancient elsewhere', ?, 0)", [.integer(elsewhere)])
        }
        // When another store opens the same file
        let second = try CacheStore(path: path)
        // Then only the dead and the too-old staging are gone: a writer in another namespace stays
        // until its staging is too old
        let tokens = try second.read("tokens") { connection in
            var tokens: Set<String> = []
            try connection.forEachRow("SELECT token FROM staging") { tokens.insert($0.text(0)) }
            return tokens
        }
        #expect(StagingOwner.namespaceTag != 0, "this system tells PID namespaces apart")
        #expect(tokens == [live.token, "other", "elsewhere"])
        #expect(try rowCount(second, "body_chunk") == 1, "only the live writer's chunk is left")
        // And the live writer of this process can still save
        let saved = try await store.save(makeEntry("https://example.test/live"), body: live)
        #expect(saved.bodySize == Int64(CacheStore.chunkSize + 1))
        try await second.close()
        try await store.close()
    }

    // MARK: - Several processes

    @Test func twoProcessesWriteTheSameStoreWithoutErrors() async throws {
        // The store does not exist yet: three processes race to create it.
        let path = folder.path("shared.sqlite")
        let executable = try BuiltProducts.executable(named: "webcache-bench")
        let children = try (1...2).map { seed in
            try launch(
                executable, ["write-loop", "--store", path, "--urls", "3", "--seed", "\(seed)", "--count", "12"])
        }
        // This process writes too, meanwhile
        let store = try CacheStore(path: path)
        for index in 0..<12 {
            try await store.save(
                makeEntry("https://crash.test/resource/\(index % 3)"), body: makeBody(size: 70_000, seed: UInt8(index)))
        }
        for child in children {
            let result = await child.process.finish()
            let errors = String(decoding: result.error, as: UTF8.self)
            #expect(result.termination == .exited(0), "child failed: \(errors)")
        }
        let report = try await store.verify()
        #expect(report.isSound, "\(report.problems)")
        #expect(try store.totals().entryCount == 3)
        try await store.close()
    }

    @Test func crashesAtRandomMomentsLeaveCompleteOldOrNewEntries() async throws {
        let path = folder.path("crash.sqlite")
        try await CacheStore(path: path).close()
        let executable = try BuiltProducts.executable(named: "webcache-bench")
        // The newest save each child confirmed, by resource; a version is (trial, iteration).
        var confirmed: [Int: (trial: Int, iteration: Int)] = [:]
        var trialOfWriter: [String: Int] = [:]
        var killedWhileWriting = 0
        for trial in 0..<5 {
            // Given a writer overwriting the same URLs in a loop
            let child = try launch(executable, ["write-loop", "--store", path, "--urls", "3", "--seed", "\(trial)"])
            trialOfWriter[String(child.process.pid)] = trial
            // When it is killed at a random moment after its first save
            let progress = try await child.output.lines(1).first ?? ""
            #expect(progress.hasPrefix("saved"), "trial \(trial): \(progress)")
            try await Task.sleep(for: .milliseconds(Int.random(in: 0...400)))
            child.process.send(SIGKILL)
            let result = await child.process.finish()
            if result.termination == .signalled(SIGKILL) { killedWhileWriting += 1 }
            // "saved n" follows the commit of iteration n - 1, which wrote resource (n - 1) % 3.
            let saves = child.output.lines.compactMap { $0.hasPrefix("saved ") ? Int($0.dropFirst(6)) : nil }.max()
            for iteration in max(0, (saves ?? 0) - 3)..<(saves ?? 0) {
                confirmed[iteration % 3] = (trial, iteration)
            }

            // Then the store opens, is sound, holds no staging, and every entry is complete and no
            // older than the last save confirmed for it
            let store = try CacheStore(path: path)
            let report = try await store.verify()
            #expect(report.isSound, "trial \(trial): \(report.problems)")
            #expect(try rowCount(store, "staging") == 0)
            #expect(try rowCount(store, "body WHERE hash IS NULL") == 0)
            for index in 0..<3 {
                guard let entry = try store.entry(url: "https://crash.test/resource/\(index)") else {
                    if let last = confirmed[index] {
                        Issue.record("trial \(trial): resource \(index) was confirmed saved at \(last), then lost")
                    }
                    continue
                }
                let body = try store.bodyData(bodyID: try #require(entry.bodyID))
                let digest = SHA256.hash(body).map { String(format: "%02x", $0) }.joined()
                #expect(entry.headers["X-Content-SHA256"] == digest, "trial \(trial), resource \(index)")
                #expect(entry.headers["X-Content-Length"] == String(body.count))
                #expect(entry.bodyHash == SHA256.hash(body))
                // X-Writer is "<pid>-<iteration>".
                let writer = entry.headers["X-Writer"]?.split(separator: "-").map(String.init) ?? []
                try #require(writer.count == 2, "trial \(trial), resource \(index): \(writer)")
                let version = (trial: trialOfWriter[writer[0]] ?? -1, iteration: Int(writer[1]) ?? -1)
                if let last = confirmed[index] {
                    #expect(version >= last, "trial \(trial), resource \(index): \(version) after \(last)")
                }
            }
            #expect(try store.totals() == (try scannedTotals(store)))
            try await store.close()
        }
        #expect(killedWhileWriting == 5)
    }

    // MARK: - Helpers

    private struct Child {
        let process: ChildProcess
        /// The file that receives the child's standard output.
        let output: OutputFile
    }

    private func launch(_ executable: URL, _ arguments: [String]) throws -> Child {
        let output = OutputFile(path: folder.path("child-\(UUID().uuidString).out"))
        let process = try ChildProcess.spawn(executable.path, arguments, output: .file(output.path), error: .pipe)
        return Child(process: process, output: output)
    }
}
