import CacheStore
import Foundation

/// `webcache merge SOURCE... --into STORE`: adds each source store to one store, one transaction
/// per source. The sources are opened for reading only. A source that cannot be opened or merged is
/// named and the others are merged (exit code 1); the store is opened for the first source that can
/// be, and a store created for sources none of which could be merged is removed again.
enum MergeCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        guard let destination = context.arguments.value("into") else {
            throw UsageError("Missing expected option '--into <store>'", command: context.arguments.spec)
        }
        _ = try context.makeLogger()
        let isNew = !FileManager.default.fileExists(atPath: destination)
        var target: CacheStore?
        var reports: [MergeReport] = []
        var failures = 0
        for path in context.arguments.positionals {
            guard let source = openSource(path, into: destination, context) else {
                failures += 1
                continue
            }
            let store: CacheStore
            do {
                store = try target ?? openTarget(destination)
            } catch {
                try? await source.close()
                throw error
            }
            target = store
            do {
                reports.append(try await source.closing { try await store.merge(from: $0) })
            } catch {
                context.stderr.write(failure(merging: path, into: destination, error))
                failures += 1
            }
        }
        try await target?.close()
        if isNew, target != nil, reports.isEmpty {
            CacheStore.removeFiles(ofStoreAt: destination)
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
        return failures == 0 ? ExitCode.success : ExitCode.failure
    }

    /// Opens the source at `path` for reading only; `nil` after writing why it cannot be.
    private static func openSource(_ path: String, into destination: String, _ context: CommandContext) -> CacheStore? {
        guard FileManager.default.fileExists(atPath: path) else {
            context.stderr.write("Error: There is no store at '\(path)'.\n")
            return nil
        }
        var readOnly = CacheStore.Configuration()
        readOnly.readOnly = true
        do {
            return try CacheStore(path: path, configuration: readOnly)
        } catch {
            context.stderr.write(failure(merging: path, into: destination, error))
            return nil
        }
    }

    /// The line that names a source that could not be merged, and why.
    private static func failure(merging path: String, into destination: String, _ error: any Error) -> String {
        "Error: Could not merge '\(path)' into '\(destination)': \(CLIError.describe(error))\n"
    }

    /// Opens the store that the sources go into, creating it and its folder when they do not exist.
    private static func openTarget(_ path: String) throws -> CacheStore {
        try CacheStore.createFolder(forStoreAt: path)
        return try CacheStore(path: path)
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
