import CacheStore
import Foundation

/// `webcache verify`: SQLite's integrity check and every body re-hashed. Prints `ok: …`, or each
/// problem (naming the entries' URLs where they are known) and a closing line with their count and
/// how to salvage the store; exits 1 when there is any problem, or when the file is not a webcache
/// store at all.
enum VerifyCommand {
    /// The report, as JSON.
    struct Report: Encodable {
        struct Problem: Encodable {
            var kind: String
            var message: String
            var urls: [String]
        }

        var store: String
        var ok: Bool
        var entries: Int
        var bodies: Int
        var problems: [Problem]
    }

    static func run(_ context: CommandContext) async throws -> Int32 {
        try await context.withExistingStore(readOnly: true) { store in
            let result = try await store.verify()
            let report = Report(
                store: store.path, ok: result.isSound, entries: result.checkedEntries, bodies: result.checkedBodies,
                problems: result.problems.map {
                    Report.Problem(kind: $0.kind.rawValue, message: $0.message, urls: $0.urls)
                })
            if context.arguments.flag("json") {
                try JSONOutput.write(report, to: context.stdout)
            } else if report.ok {
                let entries = ValueParsers.formatCount(report.entries, "entry", "entries")
                let bodies = ValueParsers.formatCount(report.bodies, "body", "bodies")
                context.stdout.write("ok: \(entries), \(bodies) checked\n")
            } else {
                context.stdout.write(result.problems.map { "problem: \($0)\n" }.joined())
            }
            guard report.ok else {
                let noun = report.problems.count == 1 ? "problem" : "problems"
                context.stderr.write(
                    "Error: The store '\(store.path)' has \(report.problems.count) \(noun); 'webcache salvage "
                        + "\(store.path) NEW' copies what is still sound into a new store.\n")
                return ExitCode.failure
            }
            return ExitCode.success
        }
    }
}
