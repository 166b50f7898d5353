import ChildProcess
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

/// The real `webcache` executable when the system refuses to let the store grow: a preload under a
/// file size limit (`ulimit -f`, which needs no privilege) says so, naming the store, fails, and
/// leaves the store sound with what it could keep.
@Suite(.timeLimit(.minutes(3)))
final class FileSizeLimitCommandTests: Sendable {
    let folder: TemporaryFolder
    let origin: OriginServer

    init() throws {
        folder = try TemporaryFolder()
        // Bodies that do not compress, 256 KiB each: 24 of them are past any limit set below.
        origin = OriginServer { request in
            var generator = SystemRandomNumberGenerator()
            let body = Data((0..<(256 * 1_024)).map { _ in UInt8.random(in: 0...255, using: &generator) })
            return OriginResponse(headers: ["Content-Type": "application/octet-stream",
                                            "Cache-Control": "max-age=600"], body: .bytes(body))
        }
        try origin.start()
    }

    deinit {
        origin.stop()
    }

    /// Runs `webcache` with `arguments` in a process whose files may not grow past `blocks` blocks
    /// (512 or 1024 bytes, as the shell counts them), with the signal that limit sends ignored; its
    /// standard output and error go to the files NAME.out and NAME.err, which are returned as text.
    private func runLimited(_ arguments: [String], blocks: Int, name: String) async throws
        -> (termination: ChildProcess.Termination, output: String, errors: String)
    {
        let webcache = try BuiltProducts.executable(named: "webcache").path
        let process = try ChildProcess.spawn(
            "/bin/sh", ["-c", "trap '' XFSZ; ulimit -f \(blocks); exec \"$0\" \"$@\"", webcache] + arguments,
            environment: ["PATH": "/usr/bin:/bin", "HOME": folder.url.path, "LANG": "C.UTF-8"],
            output: .file(folder.path("\(name).out")), error: .file(folder.path("\(name).err")))
        let termination = await process.finish().termination
        return (termination, try String(contentsOfFile: folder.path("\(name).out"), encoding: .utf8),
                try String(contentsOfFile: folder.path("\(name).err"), encoding: .utf8))
    }

    @Test func aPreloadPastTheFileSizeLimitSaysSoNamingTheStoreAndLeavesItSound() async throws {
        // Given a list of more than the limit lets the store hold
        let list = (0..<24).map { origin.url("/blob-\($0)").absoluteString }.joined(separator: "\n") + "\n"
        let listPath = try folder.write(Data(list.utf8), to: "urls.txt")
        let store = folder.path("store.sqlite")

        // When it is preloaded by a process whose files may not grow past 2 to 4 MiB
        let preload = try await runLimited(
            ["preload", listPath, "--no-requisites", "--store", store], blocks: 4096, name: "preload")

        // Then it fails, each refusal names the store and the limit, and the store verifies
        #expect(preload.termination == .exited(1))
        let errors = preload.errors.split(separator: "\n").filter { $0.hasPrefix("webcache: failed") }
        #expect(!errors.isEmpty)
        #expect(errors.allSatisfy { $0.contains("'\(store)'") && $0.contains("file size limit") }, "\(errors)")
        let runner = WebcacheRunner(home: folder)
        let verify = try await runner.run(["verify", "--store", store])
        #expect(verify.exitCode == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(verify.stdout.hasPrefix("ok: "))
    }

    @Test func aCompactionPastTheFileSizeLimitStillSaysWhatWasRemoved() async throws {
        // Given a store of eight bodies of 256 KiB
        let list = (0..<8).map { origin.url("/blob-\($0)").absoluteString }.joined(separator: "\n") + "\n"
        let listPath = try folder.write(Data(list.utf8), to: "urls.txt")
        let store = folder.path("store.sqlite")
        let runner = WebcacheRunner(home: folder)
        #expect(try await runner.run(["preload", listPath, "--no-requisites", "--store", store]).exitCode == 0)

        // When one entry is pruned and the store compacted by a process whose files may not grow past
        // 512 KiB: the removal writes a few pages, the compaction a copy of the whole store
        let prune = try await runLimited(
            ["prune", "--url-pattern", "*/blob-3", "--compact", "--store", store], blocks: 1024, name: "prune")

        // Then it fails naming the limit, but says first what it removed, which stays removed
        #expect(prune.termination == .exited(1))
        #expect(prune.output.hasPrefix("Removed 1 entry"), "\(prune.output)")
        #expect(prune.errors.contains("file size limit"), "\(prune.errors)")
        let verify = try await runner.run(["verify", "--store", store])
        #expect(verify.exitCode == 0, "\(verify.stdout)\(verify.stderr)")
        #expect(verify.stdout.hasPrefix("ok: 7 entries"), "\(verify.stdout)")
    }

    @Test(arguments: ["warc", "har"])
    func anExportPastTheFileSizeLimitLeavesTheArchiveThatWasThereAndNoPart(format: String) async throws {
        // Given a store of eight bodies of 256 KiB, and an archive already at the output's path
        let list = (0..<8).map { origin.url("/blob-\($0)").absoluteString }.joined(separator: "\n") + "\n"
        let listPath = try folder.write(Data(list.utf8), to: "urls.txt")
        let store = folder.path("store.sqlite")
        let runner = WebcacheRunner(home: folder)
        #expect(try await runner.run(["preload", listPath, "--no-requisites", "--store", store]).exitCode == 0)
        let archive = try folder.write(Data("the archive of yesterday\n".utf8), to: "out/backup.\(format)")

        // When it is exported there by a process whose files may not grow past 512 KiB
        let export = try await runLimited(
            ["export", "--\(format)", archive, "--store", store], blocks: 1024, name: "export")

        // Then it fails naming the file and the limit, the archive that was there is as it was, and
        // no part of the new one is left in the folder
        #expect(export.termination == .exited(1))
        #expect(export.errors.contains("'\(archive)'") && export.errors.contains("file size limit"), "\(export.errors)")
        #expect(try String(contentsOfFile: archive, encoding: .utf8) == "the archive of yesterday\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("out")) == ["backup.\(format)"])
    }

    @Test func anImportPastTheFileSizeLimitSaysTheRecordsWereNotStoredNotThatTheyWereDamaged() async throws {
        // Given a WARC of eight bodies of 256 KiB
        let list = (0..<8).map { origin.url("/blob-\($0)").absoluteString }.joined(separator: "\n") + "\n"
        let listPath = try folder.write(Data(list.utf8), to: "urls.txt")
        let runner = WebcacheRunner(home: folder)
        let source = folder.path("source.sqlite")
        #expect(try await runner.run(["preload", listPath, "--no-requisites", "--store", source]).exitCode == 0)
        let archive = folder.path("blobs.warc")
        #expect(try await runner.run(["export", "--warc", archive, "--store", source]).exitCode == 0)

        // When it is imported into a new store by a process whose files may not grow past 512 KiB
        let store = folder.path("store.sqlite")
        let imported = try await runLimited(["import", archive, "--store", store], blocks: 1024, name: "import")

        // Then it fails, saying the records could not be stored and why, and calls none damaged
        #expect(imported.termination == .exited(1))
        #expect(imported.output.contains("; 0 damaged; "), "\(imported.output)")
        #expect(imported.output.contains(" not stored."), "\(imported.output)")
        #expect(imported.errors.contains("file size limit"), "\(imported.errors)")
        #expect(imported.errors.contains("could not be stored") && !imported.errors.contains("damaged"),
                "\(imported.errors)")
    }
}
