import CacheStore
import Foundation

/// `webcache merge SOURCE... --into STORE`: adds each source store to one store, one transaction
/// per source. The sources are opened for reading only.
enum MergeCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        guard let destination = context.arguments.value("into") else {
            throw UsageError("Missing expected option '--into <store>'", command: context.arguments.spec)
        }
        _ = try context.makeLogger()
        let sources = context.arguments.positionals
        for source in sources where !FileManager.default.fileExists(atPath: source) {
            throw CLIError("There is no store at '\(source)'.")
        }
        try CacheStore.createFolder(forStoreAt: destination)
        var readOnly = CacheStore.Configuration()
        readOnly.readOnly = true
        let reports = try await withCacheStore(at: destination) { store in
            var reports: [MergeReport] = []
            for path in sources {
                do {
                    let source = try CacheStore(path: path, configuration: readOnly)
                    reports.append(try await source.closing { try await store.merge(from: $0) })
                } catch {
                    throw CLIError("Could not merge '\(path)' into '\(destination)': \(CLIError.describe(error)) "
                        + "The sources before it were merged.")
                }
            }
            return reports
        }
        if context.arguments.flag("json") {
            try JSONOutput.write(reports.map(Report.init), to: context.stdout)
        } else {
            for report in reports {
                context.stdout.write(
                    "Merged '\(report.sourcePath)': \(report.mergedEntries) entries added or newer, "
                        + "\(report.olderEntries) older left out, \(report.heldWhole) parts of complete entries left "
                        + "out, \(report.copiedBodies) bodies copied, \(report.mergedEdges) page edges.\n")
            }
        }
        return ExitCode.success
    }

    /// One source's report, as JSON.
    struct Report: Encodable {
        var source: String
        var merged: Int
        var older: Int
        var heldWhole: Int
        var copiedBodies: Int
        var edges: Int

        init(_ report: MergeReport) {
            source = report.sourcePath
            merged = report.mergedEntries
            older = report.olderEntries
            heldWhole = report.heldWhole
            copiedBodies = report.copiedBodies
            edges = report.mergedEdges
        }
    }
}
