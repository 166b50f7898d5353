import CacheStore
import Foundation

extension CommandCatalog {
    static let salvage = CommandSpec(
        name: "salvage",
        abstract: "Copy what is still sound in a damaged store into a new store.",
        discussion: """
            The damaged store is opened read-only and never changed. Every entry whose body still hashes to its \
            SHA-256 is copied with its metadata and pin, and so are the pages' lists of resources. The counts of \
            entries saved and lost are printed, with the reason for each loss. Preload again to fetch what was lost.
            """,
        arguments: [
            ArgumentSpec(name: "damaged-store", help: "The damaged store file."),
            ArgumentSpec(name: "new-store", help: "Where to create the new store; nothing may exist there yet."),
        ],
        options: [OptionSpec(names: ["--json"], kind: .flag, help: "Write JSON to standard output.")]
            + CommonOptions.logging
    )
}

/// `webcache salvage DAMAGED NEW`: copies every entry whose body still verifies from a damaged store
/// into a new one. Exits 0 when the new store was written (however much was lost), 1 when nothing
/// could be read at all.
enum SalvageCommand {
    /// The report, as JSON.
    struct Report: Encodable {
        var source: String
        var destination: String
        var saved: Int
        var lost: Int
        var edges: Int
        var problems: [String]
    }

    static func run(_ context: CommandContext) async throws -> Int32 {
        let damaged = context.arguments.positionals[0]
        let destination = context.arguments.positionals[1]
        let result: SalvageReport
        do {
            result = try await CacheStore.salvage(from: damaged, into: destination)
        } catch {
            throw CLIError(
                "Could not salvage the store '\(damaged)' into '\(destination)': \(CLIError.describe(error))")
        }
        if context.arguments.flag("json") {
            try JSONOutput.write(
                Report(source: damaged, destination: destination, saved: result.savedEntries, lost: result.lostEntries,
                       edges: result.savedEdges, problems: result.problems),
                to: context.stdout)
            return ExitCode.success
        }
        var text = "Salvaged \(result.savedEntries) of \(result.savedEntries + result.lostEntries) entries "
        text += "and \(result.savedEdges) page edges from '\(damaged)' into '\(destination)'; "
        text += "\(result.lostEntries) lost.\n"
        for problem in result.problems {
            text += "  \(problem)\n"
        }
        context.stdout.write(text)
        return ExitCode.success
    }
}
