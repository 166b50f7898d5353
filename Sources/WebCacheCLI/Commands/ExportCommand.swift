import CacheStore
import FoundationEssentials
import HTTPCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `webcache export --warc FILE | --har FILE [--page URL] [--host HOST] [--partition NAME]`: writes
/// stored entries to an archive. The store is opened for reading only. An entry that cannot be
/// exported is reported on standard error with its URL and left out; the exit code is then 1.
enum ExportCommand {
    /// The report, as JSON.
    struct Report: Encodable {
        var file: String
        var format: String
        /// Entries written, partial ones included.
        var entries: Int
        var revisits: Int
        var partialEntries: Int
        /// The 206 records (or HAR entries) the partial entries' parts were written as.
        var parts: Int
        /// Entries left out because they could not be read.
        var failed: Int
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
            selection.pageURL = CommandContext.storedForms(
                of: try arguments.requestURL(page, for: "--page <url>").absoluteString).last
        }
        let stderr = context.stderr
        let output = ArchiveOutput(path: file, target: resolvedPath(file))
        defer { output.discard() }
        // The first SIGINT or SIGTERM stops the export between entries: the archive written so far is
        // removed, and a file that was at its path before is left as it was.
        let finish = try await TerminationSignals.finishing(
            stderr: stderr, interrupted: "Interrupted: nothing was written to '\(file)'."
        ) { [selection] in
            try await export(context, selection: selection, warc: warc != nil, to: output)
        }
        let report: Report
        switch finish {
        case .finished(let value): report = value
        case .stopped(let exitCode): return exitCode
        }
        if arguments.flag("json") {
            try JSONOutput.write(report, to: context.stdout)
        } else {
            context.stdout.write(summaryLine(report))
        }
        guard report.failed == 0 else {
            context.stderr.write(
                "Error: \(ValueParsers.formatCount(report.failed, "entry", "entries")) could not be exported; "
                    + "'\(file)' holds the rest.\n")
            return ExitCode.failure
        }
        return ExitCode.success
    }

    /// Writes the selected entries of the store to `output` and gives it its name once complete.
    private static func export(
        _ context: CommandContext, selection: ExportSelection, warc: Bool, to output: ArchiveOutput
    ) async throws -> Report {
        let file = output.path
        let stderr = context.stderr
        return try await context.withExistingStore(readOnly: true) { store in
            // A partition or host that no entry is in is most likely mistyped: an empty archive would not say so.
            if selection.scope != EntryScope(), try store.entries(after: 0, limit: 1, in: selection.scope).isEmpty {
                let named = [selection.scope.partition.map { "the partition '\($0)'" },
                             selection.scope.host.map { "the host '\($0)'" }].compactMap { $0 }
                throw CLIError("No entry in the store '\(store.path)' is in \(named.joined(separator: " on "))"
                                   + "; 'webcache inspect' lists them. Nothing was written.")
            }
            // A page the store knows nothing of is most likely mistyped: an empty archive would not say so.
            if let page = selection.pageURL, try store.pages(partition: selection.scope.partition, url: page).isEmpty,
                try store.entries(url: page).isEmpty
            {
                throw CLIError("'\(page)' is neither a recorded page nor an entry in the store '\(store.path)'; "
                                   + "nothing was written.")
            }
            do {
                let report: Report
                if warc {
                    let summary = try await WARCExport(
                        store: store, selection: selection, path: file, writingPath: output.writingPath
                    ) { stderr.write($0 + "\n") }.run(version: CommandLineInterface.version)
                    report = Report(file: file, format: "warc",
                                    entries: summary.responses + summary.revisits + summary.partialEntries,
                                    revisits: summary.revisits, partialEntries: summary.partialEntries,
                                    parts: summary.parts, failed: summary.failed, bodyBytes: summary.bodyBytes)
                } else {
                    let summary = try await HARExport(store: store, selection: selection, path: output.writingPath) {
                        stderr.write($0 + "\n")
                    }.run(version: CommandLineInterface.version)
                    report = Report(file: file, format: "har", entries: summary.entries, revisits: 0,
                                    partialEntries: summary.partialEntries, parts: summary.parts,
                                    failed: summary.failed, bodyBytes: summary.bodyBytes)
                }
                try output.complete()
                return report
            } catch let cancelled as CancellationError {
                throw cancelled
            } catch {
                throw CLIError("Could not export to '\(file)': \(writeFailure(error))")
            }
        }
    }

    /// Why the archive could not be written, with the limits a user can do something about named.
    private static func writeFailure(_ error: any Error) -> String {
        switch (error as? OpenFile.Error)?.code {
        case EFBIG: "it reached the largest file this process may write (its file size limit, as `ulimit -f` sets it)."
        case ENOSPC: "the disk holding it is full."
        case EDQUOT: "the disk quota of its owner is used up."
        default: ArchiveImport.reason(error)
        }
    }

    /// `Exported 7 entries (1 as a revisit record) and 311.2 KiB of bodies to 'site.warc'.`, with the
    /// partial entries and their parts when there are any.
    private static func summaryLine(_ report: Report) -> String {
        var details: [String] = []
        if report.format == "warc" {
            details.append("\(report.revisits) as \(report.revisits == 1 ? "a revisit record" : "revisit records")")
        }
        if report.partialEntries > 0 {
            details.append(ValueParsers.formatCount(report.partialEntries, "partial entry", "partial entries")
                + " as " + ValueParsers.formatCount(report.parts, "part", "parts"))
        }
        let detail = details.isEmpty ? "" : " (" + details.joined(separator: ", ") + ")"
        return "Exported \(ValueParsers.formatCount(report.entries, "entry", "entries"))\(detail) and "
            + "\(ValueParsers.formatBytes(report.bodyBytes)) of bodies to '\(report.file)'.\n"
    }

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
        let outputIdentity = FileIdentity(path: output)
        for (suffix, role) in [("", "")] + CacheStore.companionFiles {
            let same: Bool
            if let outputIdentity, let identity = FileIdentity(path: storeFile + suffix) {
                same = identity == outputIdentity
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
