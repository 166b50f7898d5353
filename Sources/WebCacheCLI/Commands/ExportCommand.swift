import CacheStore
import Foundation

/// `webcache export --warc FILE | --har FILE [--page URL] [--host HOST] [--partition NAME]`: writes
/// stored entries to an archive. The store is opened for reading only.
enum ExportCommand {
    /// The report, as JSON.
    struct Report: Encodable {
        var file: String
        var format: String
        var entries: Int
        var revisits: Int
        var bodyBytes: Int64
    }

    static func run(_ context: CommandContext) async throws -> Int32 {
        let arguments = context.arguments
        let warc = arguments.value("warc")
        let har = arguments.value("har")
        guard (warc == nil) != (har == nil), let file = warc ?? har else {
            throw UsageError("Give exactly one of --warc <file> and --har <file>", command: arguments.spec)
        }
        try checkOutput(file, store: context.storeExists ? context.storePath : nil, command: arguments.spec)
        var selection = ExportSelection(scope: EntryScope(partition: arguments.value("partition")))
        if let host = arguments.value("host") {
            selection.scope.host = try HostArgument(host, for: "--host <host>", command: arguments.spec).storedHost
        }
        if let page = arguments.value("page") {
            selection.pageURL = CommandContext.storedForms(of: page).last
        }
        let report = try await context.withExistingStore(readOnly: true) { store in
            do {
                if warc != nil {
                    let summary = try await WARCExport(store: store, selection: selection, path: file)
                        .run(version: CommandLineInterface.version)
                    return Report(file: file, format: "warc", entries: summary.responses + summary.revisits,
                                  revisits: summary.revisits, bodyBytes: summary.bodyBytes)
                }
                let (entries, bytes) = try await HARExport(store: store, selection: selection, path: file)
                    .run(version: CommandLineInterface.version)
                return Report(file: file, format: "har", entries: entries, revisits: 0, bodyBytes: bytes)
            } catch {
                throw CLIError("Could not export to '\(file)': \(ArchiveImport.reason(error))")
            }
        }
        if arguments.flag("json") {
            try JSONOutput.write(report, to: context.stdout)
        } else {
            let revisits = report.format == "warc" ? " (\(report.revisits) as revisit records)" : ""
            context.stdout.write(
                "Exported \(report.entries) entries\(revisits) and \(ValueParsers.formatBytes(report.bodyBytes)) of "
                    + "bodies to '\(file)'.\n")
        }
        return ExitCode.success
    }

    /// The files SQLite keeps beside a store, by suffix: the write-ahead log, its shared-memory index
    /// and the rollback journal.
    private static let storeCompanions = [("-wal", "the write-ahead log"), ("-shm", "the shared-memory index"),
                                          ("-journal", "the rollback journal")]

    /// Refuses an output that is not a file to create: `-` (standard output carries the summary),
    /// and the store being read or a file SQLite keeps beside it, which the archive would overwrite.
    /// Paths are compared after symbolic links, `.` and `..` are resolved, and existing files by
    /// device and inode (a hard link).
    private static func checkOutput(_ file: String, store: String?, command: CommandSpec) throws(UsageError) {
        if file == "-" {
            throw UsageError("The output file '-' is not standard output here: export writes the archive to a "
                             + "file and its summary to standard output. Give a file name ('./-' for a file "
                             + "named '-').", command: command)
        }
        guard let store else { return }
        let output = resolvedPath(file)
        let storeFile = resolvedPath(store)
        var outputStatus = stat()
        let outputExists = stat(output, &outputStatus) == 0
        for (suffix, role) in [("", "")] + storeCompanions {
            var status = stat()
            let same: Bool
            if outputExists, stat(storeFile + suffix, &status) == 0 {
                same = status.st_dev == outputStatus.st_dev && status.st_ino == outputStatus.st_ino
            } else {
                same = output == storeFile + suffix
            }
            guard same else { continue }
            let what = suffix.isEmpty ? "the store '\(store)'" : "'\(store + suffix)', \(role) of the store '\(store)'"
            throw UsageError("The output file '\(file)' is \(what): the export would overwrite it. Give another "
                             + "file.", command: command)
        }
    }

    /// `path` made absolute, with its folder's symbolic links, `.` and `..` resolved, and then the
    /// links its last name leads through, also to a file that is not there yet.
    private static func resolvedPath(_ path: String) -> String {
        var url = URL(fileURLWithPath: path)
        // At most as many links as the system follows in one path (Linux's MAXSYMLINKS).
        for _ in 0..<40 {
            let folder = url.deletingLastPathComponent().path
            let realFolder = realpath(folder, nil).map { pointer in
                defer { free(pointer) }
                return URL(fileURLWithPath: String(cString: pointer), isDirectory: true)
            } ?? URL(fileURLWithPath: folder, isDirectory: true)
            let resolved = realFolder.appendingPathComponent(url.lastPathComponent).path
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: resolved) else {
                return resolved
            }
            url = URL(fileURLWithPath: target, relativeTo: realFolder)
        }
        return url.standardizedFileURL.path
    }
}
