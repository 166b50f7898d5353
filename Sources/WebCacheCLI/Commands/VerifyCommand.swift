import CacheStore
import FoundationEssentials

/// `webcache verify [--repair]`: SQLite's integrity check and every body re-hashed. Prints `ok: …`, or
/// each problem (naming the entries' URLs where they are known) and a closing line with their count
/// and how to put them right; exits 1 when there is any problem, or when the file is not a webcache
/// store at all. With `--repair`, running totals that disagree with the rows are recomputed from
/// them in one transaction (the one problem put right in place), and no longer count as a problem.
enum VerifyCommand {
    /// The report, as JSON.
    struct Report: Encodable {
        struct Problem: Encodable {
            var kind: String
            var message: String
            var urls: [String]

            init(_ problem: VerifyReport.Problem) {
                kind = problem.kind.rawValue
                message = problem.message
                urls = problem.urls
            }
        }

        var store: String
        var ok: Bool
        var entries: Int
        var bodies: Int
        var problems: [Problem]
        /// With `--repair`: the problems put right.
        var repaired: [Problem]?
    }

    static func run(_ context: CommandContext) async throws -> Int32 {
        let repairs = context.arguments.flag("repair")
        // The checks only read, so that they work on a store that cannot be written; a repair writes.
        return try await context.withExistingStore(readOnly: !repairs) { store in
            let result = try await store.verify()
            let repaired = repairs ? result.problems.filter { $0.kind == .totals } : []
            if !repaired.isEmpty { try await store.recomputeTotals() }
            let problems = result.problems.filter { $0.kind != .totals || !repairs }
            let report = Report(
                store: store.path, ok: problems.isEmpty, entries: result.checkedEntries, bodies: result.checkedBodies,
                problems: problems.map(Report.Problem.init),
                repaired: repairs ? repaired.map(Report.Problem.init) : nil)
            if context.arguments.flag("json") {
                try JSONOutput.write(report, to: context.stdout)
            } else {
                let fixed = repaired.map { "repaired: \($0) They were recomputed from the rows.\n" }
                context.stdout.write(fixed.joined())
                if report.ok {
                    let entries = ValueParsers.formatCount(report.entries, "entry", "entries")
                    let bodies = ValueParsers.formatCount(report.bodies, "body", "bodies")
                    context.stdout.write("ok: \(entries), \(bodies) checked\n")
                } else {
                    context.stdout.write(problems.map { "problem: \($0)\n" }.joined())
                }
            }
            guard report.ok else {
                let noun = problems.count == 1 ? "problem" : "problems"
                // Totals that disagree with the rows are put right in place; anything else in a new store.
                let remedy = problems.allSatisfy { $0.kind == .totals }
                    ? "'webcache verify --repair --store \(store.path)' recomputes the running totals from the rows"
                    : "'webcache salvage \(store.path) NEW' copies what is still sound into a new store"
                context.stderr.write("Error: The store '\(store.path)' has \(problems.count) \(noun); \(remedy).\n")
                return ExitCode.failure
            }
            return ExitCode.success
        }
    }
}
