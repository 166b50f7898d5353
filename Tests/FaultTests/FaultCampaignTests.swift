import ChildProcess
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Runs `scripts/fault-campaign.sh --short` against the built `webcache` and `webcache-origin`, and
/// fails when any campaign lost an entry, failed an integrity check, crashed, or wrote an unclear error.
@Suite(.timeLimit(.minutes(3)))
struct FaultCampaignTests {
    /// One row of the campaign table.
    struct Row: Sendable {
        var campaign: String
        var trials: Int
        var faults: Int
        var lost: Int
        var integrity: Int
        var crashes: Int
        var unclear: Int
        var note: String
    }

    /// How the script ended, its whole output, and its table.
    struct Outcome: Sendable {
        var termination: ChildProcess.Termination
        var output: String
        var rows: [String: Row]
    }

    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The folder of the built executables: the test bundle's folder.
    static let binaryFolder = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()

    /// Runs the campaign in the package root, with its standard error merged into its output.
    /// `finish()` waits on a thread of its own, so the tests beside it keep the cooperative pool.
    static func runCampaign() async throws -> Outcome {
        var environment = ProcessInfo.processInfo.environment
        environment["WEBCACHE_BIN"] = binaryFolder.path
        let script = packageRoot.appendingPathComponent("scripts/fault-campaign.sh").path
        let child = try ChildProcess.spawn(
            "/bin/sh", ["-c", "cd \"$1\" && exec /bin/bash \"$0\" --short 2>&1", script, packageRoot.path],
            environment: environment, output: .pipe)
        let result = await child.finish()
        let output = String(decoding: result.output, as: UTF8.self)
        return Outcome(termination: result.termination, output: output, rows: parseTable(output))
    }

    /// The rows of the table the script prints after its `campaign trials faults …` header.
    static func parseTable(_ output: String) -> [String: Row] {
        var rows: [String: Row] = [:]
        var inTable = false
        for line in output.split(separator: "\n", omittingEmptySubsequences: false) {
            let fields = line.split(separator: " ", maxSplits: 7, omittingEmptySubsequences: true).map(String.init)
            if fields.first == "campaign", fields.dropFirst().first == "trials" {
                inTable = true
                continue
            }
            guard inTable else { continue }
            guard fields.count >= 7, let trials = Int(fields[1]), let faults = Int(fields[2]),
                let lost = Int(fields[3]), let integrity = Int(fields[4]), let crashes = Int(fields[5]), let unclear = Int(fields[6])
            else {
                inTable = false
                continue
            }
            let note = fields.count > 7 ? fields[7].trimmingCharacters(in: .whitespaces) : ""
            rows[fields[0]] = Row(
                campaign: fields[0], trials: trials, faults: faults, lost: lost, integrity: integrity, crashes: crashes,
                unclear: unclear, note: note
            )
        }
        return rows
    }

    @Test func theShortCampaignLosesNothingAndErrsClearly() async throws {
        let outcome = try await Self.runCampaign()
        #expect(outcome.termination == .exited(0), "\(outcome.output)")
        #expect(outcome.output.contains("RESULT: PASS"), "\(outcome.output)")
        for name in ["sigkill", "full-disk", "read-only", "corruption", "concurrency"] {
            let row = try #require(outcome.rows[name], "No row for \(name) in:\n\(outcome.output)")
            #expect(row.lost == 0, "\(name): \(outcome.output)")
            #expect(row.integrity == 0, "\(name): \(outcome.output)")
            #expect(row.crashes == 0, "\(name): \(outcome.output)")
            #expect(row.unclear == 0, "\(name): \(outcome.output)")
            // Only the campaigns that mount file systems may be skipped, and only without root.
            let mayBeSkipped = (name == "full-disk" || name == "read-only") && getuid() != 0
            if row.note.hasPrefix("skipped:") {
                #expect(mayBeSkipped, "\(name) was skipped: \(row.note)")
            } else {
                #expect(row.trials > 0, "\(name)")
                #expect(row.faults > 0, "\(name) injected no fault:\n\(outcome.output)")
            }
        }
    }

    @Test func theTableParserReadsRowsAndStopsAfterTheTable() {
        let output = """
            fault campaign: mode short, seed 1

            campaign       trials  faults   lost  integrity  crashes  unclear  note
            sigkill             5       4      0          0        1        0  random delay < 700 ms
            full-disk           0       0      0          0        0        0  skipped: needs root

            RESULT: FAIL
            """
        let rows = Self.parseTable(output)
        #expect(rows.count == 2)
        #expect(rows["sigkill"]?.crashes == 1)
        #expect(rows["sigkill"]?.note == "random delay < 700 ms")
        #expect(rows["full-disk"]?.note == "skipped: needs root")
    }
}
