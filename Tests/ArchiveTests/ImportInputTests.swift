import Foundation
import Testing
import WebCacheTestSupport

/// What `import` is given besides archives: a missing file, a folder, an empty file. Each is
/// reported by name and counted as a file not imported, the other files are imported, and the exit
/// code is 1. The summary counts in the singular where there is one.
@Suite(.timeLimit(.minutes(2)))
final class ImportInputTests: ArchiveSite, @unchecked Sendable {
    /// An export of the preloaded site.
    private func exportSite() async throws -> String {
        try await preload()
        let warc = folder.path("site.warc.gz")
        let export = try await run("export", "--store", store, "--warc", warc)
        try #require(export.exitCode == 0, "\(export.stderr)")
        return warc
    }

    @Test(arguments: [false, true])
    func aMissingFileIsReportedByNameAndTheOthersImported(missingFirst: Bool) async throws {
        // Given
        let good = try await exportSite()
        let missing = folder.path("missing.warc")
        let copy = folder.path("copy.sqlite")

        // When
        let files = missingFirst ? [missing, good] : [good, missing]
        let result = try await webcache.run(["import", "--store", copy] + files)

        // Then
        #expect(result.exitCode == 1)
        #expect(result.stderr == "\(missing): The file does not exist.\n"
            + "Error: 1 file could not be imported; everything else was imported.\n")
        #expect(result.stdout.hasPrefix("Imported 7 entries (1 from a revisit record, "), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("; 0 damaged; 1 file not imported.\n"), "\(result.stdout)")
        #expect(try Self.entries(of: copy).count == 7)
    }

    @Test func aFolderIsReportedByNameAndTheOthersImported() async throws {
        let good = try await exportSite()
        let archives = folder.path("archives.warc")
        try FileManager.default.createDirectory(atPath: archives, withIntermediateDirectories: true)
        let copy = folder.path("copy.sqlite")

        let result = try await run("import", "--store", copy, archives, good)

        #expect(result.exitCode == 1)
        #expect(result.stderr == "\(archives): It is a folder, not an archive file.\n"
            + "Error: 1 file could not be imported; everything else was imported.\n")
        #expect(try Self.entries(of: copy).count == 7)
    }

    @Test(arguments: ["empty.warc", "empty.warc.gz"])
    func anEmptyFileIsNotAnArchive(name: String) async throws {
        let empty = try folder.write(Data(), to: name)
        let copy = folder.path("copy.sqlite")

        let result = try await run("import", "--store", copy, empty)

        #expect(result.exitCode == 1)
        #expect(result.stderr == "\(empty): The file holds no WARC record, so it is not a WARC file.\n"
            + "Error: 1 file could not be imported; everything else was imported.\n")
        #expect(result.stdout == "Imported 0 entries (0 from revisit records, 0 B of bodies); skipped 0 records "
            + "that are not HTTP responses to store; 0 damaged; 1 file not imported.\n")
    }

    @Test func oneEntryAndOneSkippedRecordAreCountedInTheSingular() async throws {
        try await preload()
        let warc = folder.path("page.warc")
        let export = try await run("export", "--store", store, "--warc", warc, "--page", url("/style.css"))
        let copy = folder.path("copy.sqlite")

        let result = try await run("import", "--store", copy, warc)

        #expect(export.stdout.hasPrefix("Exported 1 entry (0 as revisit records) and "), "\(export.stdout)")
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout == "Imported 1 entry (0 from revisit records, 21 B of bodies); skipped 1 record "
            + "that is not an HTTP response to store; 0 damaged.\n")
    }
}
