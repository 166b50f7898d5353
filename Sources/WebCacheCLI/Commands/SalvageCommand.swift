import CacheStore
import FoundationEssentials

extension CommandCatalog {
    static let salvage = CommandSpec(
        name: "salvage",
        abstract: "Copy what is still sound in a damaged store into a new store.",
        discussion: """
            The damaged store is opened read-only and never changed. Every entry whose body still hashes to its \
            SHA-256 is copied with its metadata and pin, and so are the pages' lists of resources. The counts of \
            entries saved and lost are printed, with the URL of each entry lost and why. The folder of the new \
            store is created when it does not exist. Exits 1 when anything was lost or could not be read (the \
            new store then holds the rest); preload again to fetch what was lost.
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
/// into a new one. Exits 0 when everything was copied, 1 when anything was lost or could not be
/// read (a partial result counts as a failure, as with preload), or when nothing could be read at all.
enum SalvageCommand {
    /// The report, as JSON.
    struct Report: Encodable {
        var source: String
        var destination: String
        var saved: Int
        var lost: Int
        var edges: Int
        var complete: Bool
        var problems: [String]
    }

    static func run(_ context: CommandContext) async throws -> Int32 {
        let damaged = context.arguments.positionals[0]
        let destination = context.arguments.positionals[1]
        // The first SIGINT or SIGTERM stops the copy between entries; the new store is made under a
        // private name and given its path only when complete, so nothing is left at that path.
        let finish: TerminationSignals.Finish<SalvageReport>
        do {
            finish = try await TerminationSignals.finishing(
                stderr: context.stderr,
                interrupted: "Interrupted: nothing was salvaged; no store was made at '\(destination)'."
            ) {
                try await CacheStore.salvage(from: damaged, into: destination)
            }
        } catch {
            throw CLIError(
                "Could not salvage the store '\(damaged)' into '\(destination)': \(CLIError.describe(error))")
        }
        let result: SalvageReport
        switch finish {
        case .finished(let value): result = value
        case .stopped(let exitCode): return exitCode
        }
        let total = result.savedEntries + result.lostEntries
        if context.arguments.flag("json") {
            try JSONOutput.write(
                Report(source: damaged, destination: destination, saved: result.savedEntries, lost: result.lostEntries,
                       edges: result.savedEdges, complete: result.isComplete, problems: result.problems),
                to: context.stdout)
        } else {
            var text = "Salvaged \(result.savedEntries) of \(total) entries "
            text += "and \(result.savedEdges) page edges from '\(damaged)' into '\(destination)'; "
            text += "\(result.lostEntries) lost.\n"
            for problem in result.problems {
                text += "  \(problem)\n"
            }
            context.stdout.write(text)
        }
        guard result.isComplete else {
            if result.lostEntries > 0 {
                let verb = result.lostEntries == 1 ? "was" : "were"
                context.stderr.write(
                    "Error: \(result.lostEntries) of the \(total) entries of '\(damaged)' \(verb) lost "
                        + "(\(result.savedEntries) saved into '\(destination)'); preload again to fetch what was "
                        + "lost.\n")
            } else {
                context.stderr.write(
                    "Error: Parts of '\(damaged)' could not be read; what could be read is in '\(destination)'.\n")
            }
            return ExitCode.failure
        }
        return ExitCode.success
    }
}
