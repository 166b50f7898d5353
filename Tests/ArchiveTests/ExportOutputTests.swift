import Foundation
import Testing
import WebCacheTestSupport

/// Where `export` may write: never over the store it reads or the files SQLite keeps beside it,
/// however the path is spelled, and not to a file named `-` when standard output was meant.
@Suite(.timeLimit(.minutes(2)))
final class ExportOutputTests: ArchiveSite, @unchecked Sendable {
    /// How a test names the output: the store's folder and file name give the path.
    enum Spelling: String, CaseIterable, Sendable {
        case same, dotted, symbolicLink, hardLink, log, sharedMemory, journal, linkToJournal
    }

    /// The output path for `spelling`, made in the store's folder (links are created).
    private func output(_ spelling: Spelling) throws -> String {
        let manager = FileManager.default
        switch spelling {
        case .same: return store
        case .dotted: return folder.url.path + "/sub/./../store.sqlite"
        case .symbolicLink:
            try manager.createSymbolicLink(atPath: folder.path("link.warc"), withDestinationPath: "store.sqlite")
            return folder.path("link.warc")
        case .hardLink:
            try manager.linkItem(atPath: store, toPath: folder.path("hard.warc"))
            return folder.path("hard.warc")
        case .log: return store + "-wal"
        case .sharedMemory: return store + "-shm"
        case .journal: return store + "-journal"
        case .linkToJournal:
            try manager.createSymbolicLink(
                atPath: folder.path("journal.har"), withDestinationPath: "store.sqlite-journal")
            return folder.path("journal.har")
        }
    }

    @Test(arguments: Spelling.allCases, ["--warc", "--har"])
    func anOutputThatIsTheStoreOrItsFilesIsRefusedAndTheStoreKept(spelling: Spelling, option: String) async throws {
        // Given
        try await preload()
        try FileManager.default.createDirectory(atPath: folder.path("sub"), withIntermediateDirectories: true)
        let path = try output(spelling)
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let companions = ["-wal", "-shm", "-journal"].filter { FileManager.default.fileExists(atPath: store + $0) }

        // When
        let export = try await run("export", "--store", store, option, path)

        // Then
        #expect(export.exitCode == 64, "\(export.stderr)")
        #expect(export.stderr.hasPrefix("Error: The output file '\(path)' is "), "\(export.stderr)")
        #expect(export.stderr.contains("the store '\(store)'"), "\(export.stderr)")
        #expect(export.stderr.contains(": the export would overwrite it. Give another file.\n"), "\(export.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: store)) == before)
        let after = ["-wal", "-shm", "-journal"].filter { FileManager.default.fileExists(atPath: store + $0) }
        #expect(after == companions)
        #expect(try Self.entries(of: store).count == 7)
        #expect(try await run("verify", "--store", store).exitCode == 0)
    }

    @Test(arguments: ["--warc", "--har"])
    func anOutputThroughASymbolicLinkIsWrittenToTheFileItNames(option: String) async throws {
        try await preload()
        try FileManager.default.createDirectory(atPath: folder.path("archives"), withIntermediateDirectories: true)
        let link = folder.path("latest")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "archives/site")

        let export = try await run("export", "--store", store, option, link)

        #expect(export.exitCode == 0, "\(export.stderr)")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == "archives/site")
        let archive = try Data(contentsOf: URL(fileURLWithPath: folder.path("archives/site")))
        #expect(archive.starts(with: Data((option == "--warc" ? "WARC/1.1\r\n" : "{\"log\":").utf8)))
    }

    /// A device stays a device, as a shell's `>` leaves it: `/dev/null` takes the archive and the
    /// export ends well (a device has no disk to write it through to).
    @Test(arguments: ["--warc", "--har"])
    func anExportToDevNullSucceeds(option: String) async throws {
        try await preload()

        let export = try await run("export", "--store", store, option, "/dev/null")

        #expect(export.exitCode == 0, "\(export.stderr)")
        #expect(export.stdout.hasPrefix("Exported 7 entries"), "\(export.stdout)")
    }

    @Test func aRelativePathToTheStoreIsRefused() async throws {
        try await preload()
        let webcache = try BuiltProducts.executable(named: "webcache").path

        let export = try await ExternalTools.run(
            webcache, ["export", "--store", "store.sqlite", "--warc", "./store.sqlite"], in: folder.url.path)

        #expect(export.exitCode == 64, "\(export.error)")
        #expect(export.error.hasPrefix(
            "Error: The output file './store.sqlite' is the store 'store.sqlite': the export would overwrite it."))
        #expect(try Self.entries(of: store).count == 7)
    }

    @Test func aDashIsRefusedAndDotSlashDashWritesAFileNamedDash() async throws {
        try await preload()
        let webcache = try BuiltProducts.executable(named: "webcache").path

        let work = folder.url.path
        let dash = try await ExternalTools.run(webcache, ["export", "--store", store, "--warc", "-"], in: work)
        let nothing = FileManager.default.fileExists(atPath: folder.path("-"))
        let file = try await ExternalTools.run(webcache, ["export", "--store", store, "--warc", "./-"], in: work)

        #expect(dash.exitCode == 64)
        #expect(dash.error.hasPrefix("Error: The output file '-' is not standard output here: export writes the "
            + "archive to a file and its summary to standard output. Give a file name ('./-' for a file named '-').\n"),
                "\(dash.error)")
        #expect(dash.output.isEmpty)
        #expect(!nothing)
        #expect(file.exitCode == 0, "\(file.error)")
        #expect(file.output.hasPrefix("Exported 7 entries"))
        let check = try await ExternalTools.run(try ExternalTools.warcio, ["check", folder.path("-")])
        #expect(check.exitCode == 0, "\(check.output)")
    }

    @Test(arguments: ["--partition", "--host"])
    func aPartitionOrHostThatNoEntryIsInIsNamedAndNothingIsWritten(option: String) async throws {
        try await preload()
        let path = folder.path("none.warc")

        let export = try await run("export", "--store", store, "--warc", path, option, "nosuch")

        #expect(export.exitCode == 1, "\(export.stdout)")
        let what = option == "--host" ? "host" : "partition"
        #expect(export.stderr.contains(
            "No entry in the store '\(store)' is in the \(what) 'nosuch'; 'webcache inspect' lists them. Nothing was "
                + "written."), "\(export.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
