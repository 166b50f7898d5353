import CacheStore
import FoundationEssentials

/// `webcache import FILE...`: stores the responses of WARC, WACZ and HAR files. Exits 1 when any
/// record was damaged, the store could not take a sound one (a full disk), or any file could not be
/// imported (missing, unreadable, not an archive); the others are imported. SIGINT or SIGTERM stop
/// it cleanly: the saves under way end, the summary of what was committed says it was interrupted,
/// and the exit code is the shell's for the signal (130 or 143); a second signal ends it at once.
enum ImportCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        let files = context.arguments.positionals
        _ = try context.makeLogger()
        try CacheStore.createFolder(forStoreAt: context.storePath)
        let stderr = context.stderr
        let signals = TerminationSignals()
        defer { signals.stop() }
        let (result, signal) = try await withCacheStore(at: context.storePath) { store in
            await signals.cancelling(reporting: {
                stderr.write("webcache: stopping on signal \($0) (a second one stops at once)\n")
            }) {
                let importer = ArchiveImport(store: store) { stderr.write($0 + "\n") }
                for file in files where !Task.isCancelled { await importer.importFile(file) }
                return importer.summary
            }
        }
        var summary = result
        summary.interrupted = signal != nil
        if context.arguments.flag("json") {
            try JSONOutput.write(summary, to: context.stdout)
        } else {
            context.stdout.write(summaryLine(summary))
        }
        var problems: [String] = []
        if summary.filesNotImported > 0 {
            problems.append(
                ValueParsers.formatCount(summary.filesNotImported, "file", "files") + " could not be imported")
        }
        if summary.damaged > 0 {
            problems.append(ValueParsers.formatCount(summary.damaged, "record was", "records were")
                + " damaged and not imported")
        }
        if summary.notStored > 0 {
            problems.append(ValueParsers.formatCount(summary.notStored, "sound record", "sound records")
                + " could not be stored (the store's reason is given for each)")
        }
        if !problems.isEmpty {
            let rest = signal == nil ? "everything else was imported" : "the import was stopped before its end"
            context.stderr.write("Error: \(problems.joined(separator: " and ")); \(rest).\n")
        }
        if let signal { return ExitCode.interrupted(by: signal) }
        return problems.isEmpty ? ExitCode.success : ExitCode.failure
    }

    /// `Imported 7 entries (1 from a revisit record, 294.3 KiB of bodies); skipped 2 records that are
    /// not HTTP responses to store; 0 damaged.`, with the parts of partial entries after the entries,
    /// the reasons of the responses the cache's rule refuses after the records skipped (`(among them:
    /// 1 response has no-store)`), the entries 304 responses refreshed, the responses older than the
    /// store's and the files not imported when there are any; `Interrupted: imported …` when a signal
    /// stopped the import.
    private static func summaryLine(_ summary: ArchiveImport.Summary) -> String {
        let entries = ValueParsers.formatCount(summary.imported, "entry", "entries")
            + (summary.parts == 0 ? "" : " and "
                + ValueParsers.formatCount(summary.parts, "part of a partial entry", "parts of partial entries"))
        let revisits = summary.fromRevisits == 1 ? "a revisit record" : "revisit records"
        let skipped = summary.skipped == 1
            ? "1 record that is not an HTTP response" : "\(summary.skipped) records that are not HTTP responses"
        let reasons = summary.notStorable.isEmpty ? "" : " (among them: "
            + summary.notStorable.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: "; ")
            + ")"
        let refreshed = summary.refreshed == 0
            ? "" : "; refreshed " + ValueParsers.formatCount(summary.refreshed, "stored entry", "stored entries")
            + " by 304 responses"
        let older = summary.older == 0 ? "" : "; \(summary.older) older than the store's, left out"
        let files = summary.filesNotImported == 0
            ? "" : "; " + ValueParsers.formatCount(summary.filesNotImported, "file", "files") + " not imported"
        let notStored = summary.notStored == 0 ? "" : "; \(summary.notStored) not stored"
        let verb = summary.interrupted ? "Interrupted: imported" : "Imported"
        return "\(verb) \(entries) (\(summary.fromRevisits) from \(revisits), "
            + "\(ValueParsers.formatBytes(summary.bodyBytes)) of bodies); skipped \(skipped) to store\(reasons); "
            + "\(summary.damaged) damaged\(notStored)\(refreshed)\(older)\(files).\n"
    }
}
