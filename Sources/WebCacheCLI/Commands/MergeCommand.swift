import CacheStore
import FoundationEssentials
import HTTPCore

/// `webcache merge SOURCE... --into STORE`: adds each source store to one store, one transaction
/// per source. The sources are opened for reading only. A source that cannot be opened or merged is
/// named and the others are merged (exit code 1); the store is opened for the first source that can
/// be, and a store created for sources none of which could be merged is removed again. SIGINT or
/// SIGTERM stop it cleanly: the source being merged is left out whole, no other one is started, and
/// the summary says which sources were merged.
enum MergeCommand {
    /// What became of one source.
    enum Outcome: Sendable {
        case merged(MergeReport)
        /// It could not be merged, for the reason given.
        case failed(String)
        /// A signal stopped the merge before this source was merged.
        case interrupted
    }

    static func run(_ context: CommandContext) async throws -> Int32 {
        let destination = context.arguments.value("into") ?? ""
        guard !destination.isEmpty else {
            throw UsageError(
                "The value '' is invalid for '--into <store>': give the path of the store to merge into",
                command: context.arguments.spec)
        }
        let sources = context.arguments.positionals
        for source in sources where sameFile(source, destination) {
            throw UsageError(
                "The source '\(source)' is the store '\(destination)' that --into names: a store cannot be merged "
                    + "into itself", command: context.arguments.spec)
        }
        _ = try context.makeLogger()
        let json = context.arguments.flag("json")
        let signals = TerminationSignals()
        defer { signals.stop() }
        let stderr = context.stderr
        let (result, signal) = await signals.cancellingCatching(reporting: { number in
            stderr.write("webcache: stopping on signal \(number): the source being merged is left out "
                         + "(a second one stops at once)\n")
        }) {
            try await merge(sources, into: destination, context, printing: !json)
        }
        let outcomes = try result.get()
        if json {
            try JSONOutput.write(zip(sources, outcomes).map(Report.init), to: context.stdout)
        } else if signal != nil {
            context.stdout.write(interruptedLine(zip(sources, outcomes), into: destination))
        }
        if let signal { return ExitCode.interrupted(by: signal) }
        let failed = outcomes.contains { if case .failed = $0 { true } else { false } }
        return failed ? ExitCode.failure : ExitCode.success
    }

    /// Merges `sources` into `destination` in turn, writing each one's summary line (with `printing`)
    /// or the reason it could not be merged as it goes; stops starting sources once the task is
    /// cancelled. Throws when the store at `destination` cannot be opened.
    private static func merge(
        _ sources: [String], into destination: String, _ context: CommandContext, printing: Bool
    ) async throws -> [Outcome] {
        // A new store is made under a private name and given its path only once a source is merged
        // into it: a merge that merges nothing leaves no store, and never removes a store that
        // another process made at that path meanwhile.
        let isNew = !FileManager.default.fileExists(atPath: destination)
        let building = isNew ? CacheStore.privatePath(for: destination) : destination
        defer { if isNew { CacheStore.removeFiles(ofStoreAt: building) } }
        // What failed, naming the store as the user named it.
        func describe(_ error: any Error) -> String {
            CLIError.describe(error).replacing(building, with: destination)
        }
        var target: CacheStore?
        var outcomes: [Outcome] = []
        for path in sources {
            guard !Task.isCancelled else {
                outcomes.append(.interrupted)
                continue
            }
            let source: CacheStore
            switch openSource(path, into: destination) {
            case .success(let store):
                source = store
            case .failure(let failure):
                context.stderr.write(failure.line)
                outcomes.append(.failed(failure.reason))
                continue
            }
            let store: CacheStore
            do {
                store = try target ?? openTarget(building)
            } catch {
                try? await source.close()
                throw CLIError("Could not open the store '\(destination)': \(describe(error))")
            }
            target = store
            do {
                let report = try await source.closing { try await store.merge(from: $0) }
                outcomes.append(.merged(report))
                if printing { context.stdout.write(summaryLine(report)) }
            } catch is CancellationError {
                outcomes.append(.interrupted)
            } catch {
                context.stderr.write(failure(merging: path, into: destination, reason: describe(error)))
                outcomes.append(.failed(describe(error)))
            }
        }
        try await target?.close()
        if isNew, target != nil, outcomes.contains(where: { if case .merged = $0 { true } else { false } }) {
            do {
                try await publish(building, as: destination)
            } catch {
                throw CLIError("Could not create the store '\(destination)': \(describe(error))")
            }
        }
        return outcomes
    }

    /// Gives the new store made at `building` the path `destination`; when another process made a
    /// store there meanwhile, merges it into that one instead.
    private static func publish(_ building: String, as destination: String) async throws {
        if try CacheStore.publish(building, as: destination) { return }
        let source: CacheStore
        switch openSource(building, into: destination) {
        case .success(let store): source = store
        case .failure(let failure): throw CLIError(failure.reason)
        }
        let store: CacheStore
        do {
            store = try openTarget(destination)
        } catch {
            try? await source.close()
            throw error
        }
        _ = try await store.closing { target in try await source.closing { try await target.merge(from: $0) } }
    }

    /// `Merged 'a.sqlite': 3 entries added or newer, 1 older left out, 0 parts of complete entries left
    /// out, 2 bodies copied, 1 page edge.`
    private static func summaryLine(_ report: MergeReport) -> String {
        let count = ValueParsers.formatCount
        return "Merged '\(report.sourcePath)': \(count(report.mergedEntries, "entry", "entries")) added or newer, "
            + "\(report.olderEntries) older left out, "
            + "\(count(report.heldWhole, "part of a complete entry", "parts of complete entries")) left out, "
            + "\(count(report.copiedBodies, "body", "bodies")) copied, "
            + "\(count(report.mergedEdges, "page edge", "page edges")).\n"
    }

    /// `Interrupted: merged 1 of 3 sources into 'site.sqlite'; not merged: 'b.sqlite', 'c.sqlite'.`
    private static func interruptedLine(
        _ outcomes: Zip2Sequence<[String], [Outcome]>, into destination: String
    ) -> String {
        var merged = 0
        var failed = 0
        var left: [String] = []
        for (path, outcome) in outcomes {
            switch outcome {
            case .merged: merged += 1
            case .failed: failed += 1
            case .interrupted: left.append("'\(path)'")
            }
        }
        let total = merged + failed + left.count
        var line = "Interrupted: merged \(merged) of \(ValueParsers.formatCount(total, "source", "sources")) "
            + "into '\(destination)'"
        if failed > 0 { line += ", \(failed) could not be" }
        if !left.isEmpty { line += "; not merged (nothing of them is in the store): " + left.joined(separator: ", ") }
        return line + ".\n"
    }

    /// Whether `path` and `other` are the same existing file (by device and inode, so through a
    /// symbolic link, a hard link or another spelling of the path).
    private static func sameFile(_ path: String, _ other: String) -> Bool {
        guard let identity = FileIdentity(path: path) else { return false }
        return identity == FileIdentity(path: other)
    }

    /// Why a source cannot be opened: the line for standard error, and the reason alone.
    struct SourceFailure: Error {
        var line: String
        var reason: String
    }

    /// Opens the source at `path` for reading only.
    private static func openSource(_ path: String, into destination: String) -> Result<CacheStore, SourceFailure> {
        guard FileManager.default.fileExists(atPath: path) else {
            return .failure(SourceFailure(
                line: "Error: There is no store at '\(path)'.\n", reason: "There is no store at '\(path)'."))
        }
        var readOnly = CacheStore.Configuration()
        readOnly.readOnly = true
        do {
            return .success(try CacheStore(path: path, configuration: readOnly))
        } catch {
            return .failure(SourceFailure(
                line: failure(merging: path, into: destination, reason: CLIError.describe(error)),
                reason: CLIError.describe(error)))
        }
    }

    /// The line that names a source that could not be merged, and why.
    private static func failure(merging path: String, into destination: String, reason: String) -> String {
        "Error: Could not merge '\(path)' into '\(destination)': \(reason)\n"
    }

    /// Opens the store that the sources go into, creating it and its folder when they do not exist.
    private static func openTarget(_ path: String) throws -> CacheStore {
        try CacheStore.createFolder(forStoreAt: path)
        return try CacheStore(path: path)
    }

    /// One source's report, as JSON: `status` is `merged` (with the counts), `failed` (with `error`)
    /// or `interrupted` (a signal stopped the merge first; nothing of it is in the store).
    struct Report: Encodable {
        var source: String
        var status: String
        var error: String?
        var merged: Int?
        var older: Int?
        var heldWhole: Int?
        var copiedBodies: Int?
        var edges: Int?

        init(_ source: String, _ outcome: Outcome) {
            self.source = source
            switch outcome {
            case .merged(let report):
                status = "merged"
                merged = report.mergedEntries
                older = report.olderEntries
                heldWhole = report.heldWhole
                copiedBodies = report.copiedBodies
                edges = report.mergedEdges
            case .failed(let reason):
                status = "failed"
                error = reason
            case .interrupted:
                status = "interrupted"
            }
        }
    }
}
