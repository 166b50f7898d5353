import Archive
import CacheStore
import Foundation

/// `webcache import FILE...`: stores the responses of WARC, WACZ and HAR files. Exits 1 when any
/// record was damaged (the others are imported).
enum ImportCommand {
    static func run(_ context: CommandContext) async throws -> Int32 {
        let files = context.arguments.positionals
        for file in files where !FileManager.default.isReadableFile(atPath: file) {
            throw CLIError("The archive '\(file)' does not exist or cannot be read.")
        }
        _ = try context.makeLogger()
        try CacheStore.createFolder(forStoreAt: context.storePath)
        let stderr = context.stderr
        let summary = try await withCacheStore(at: context.storePath) { store in
            let importer = ArchiveImport(store: store) { stderr.write($0 + "\n") }
            for file in files {
                let lower = file.lowercased()
                if lower.hasSuffix(".har") {
                    await importer.importHAR(path: file, name: file)
                } else if lower.hasSuffix(".wacz") || lower.hasSuffix(".zip") {
                    await importer.importWACZ(path: file, name: file)
                } else {
                    do {
                        await importer.importWARC(from: try FileByteSource(path: file), name: file)
                    } catch {
                        stderr.write("\(file): \(ArchiveImport.reason(error))\n")
                    }
                }
            }
            return importer.summary
        }
        if context.arguments.flag("json") {
            try JSONOutput.write(summary, to: context.stdout)
        } else {
            context.stdout.write(
                "Imported \(summary.imported) entries (\(summary.fromRevisits) from revisit records, "
                    + "\(ValueParsers.formatBytes(summary.bodyBytes)) of bodies); skipped \(summary.skipped) records "
                    + "that are not HTTP responses to store; \(summary.damaged) damaged.\n")
        }
        guard summary.damaged == 0 else {
            let noun = summary.damaged == 1 ? "record was" : "records were"
            context.stderr.write("Error: \(summary.damaged) \(noun) damaged and not imported; the rest was.\n")
            return ExitCode.failure
        }
        return ExitCode.success
    }
}
