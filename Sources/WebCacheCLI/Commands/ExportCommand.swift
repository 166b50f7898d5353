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
}
