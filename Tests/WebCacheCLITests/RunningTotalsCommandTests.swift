import Foundation
import LocalOrigin
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// The real `webcache` executable on a store whose running totals no longer agree with its rows
/// (as damage to the file, or a change made around the store, leaves them): `inspect` counts the
/// rows and says the totals disagree, `verify` names each figure, and `verify --repair` recomputes
/// them.
@Suite(.timeLimit(.minutes(5)))
final class RunningTotalsCommandTests: OriginStoreFixture, @unchecked Sendable {
    /// How the totals are damaged, and what `verify` then says.
    enum Damage: String, CaseIterable, Sendable {
        case zeroedEntries
        case missingRow

        var sql: String {
            switch self {
            case .zeroedEntries: "UPDATE store_totals SET entry_count = 0, entry_bytes = 0"
            case .missingRow: "DELETE FROM store_totals"
            }
        }
    }

    /// The bytes of the page and the stylesheet, the two entries and bodies of the store.
    private let bytes = TestOrigin.page.utf8.count + TestOrigin.stylesheet.utf8.count

    /// Stores the page and its stylesheet with `get`, then damages the running totals.
    private func storeTwoEntries(damagedBy damage: Damage) async throws {
        for path in ["/page.html", "/style.css"] {
            let result = try await run("get", url(path))
            try #require(result.exitCode == 0, "get \(path) failed: \(result.stderr)")
        }
        try await withCacheStore(at: store) { store in
            try await store.write("damage the totals") { connection in try connection.execute(sql: damage.sql) }
        }
    }

    @Test(arguments: Damage.allCases)
    func inspectCountsTheRowsAndVerifyNamesAndRepairsTheTotals(damage: Damage) async throws {
        try await storeTwoEntries(damagedBy: damage)
        let differences =
            switch damage {
            case .zeroedEntries: "entries 0 (the rows hold 2), entry bytes 0 (the rows hold \(bytes))"
            case .missingRow:
                "entries 0 (the rows hold 2), entry bytes 0 (the rows hold \(bytes)), bodies 0 (the rows hold 2), "
                    + "body bytes 0 (the rows hold \(bytes))"
            }
        let problem =
            switch damage {
            case .zeroedEntries: "The running totals disagree with the rows: \(differences)."
            case .missingRow: "The running totals are missing from the store."
            }

        // inspect shows what the rows hold, and says the totals disagree
        let inspect = try await run("inspect")
        #expect(inspect.exitCode == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("Entries:     2 ("), "\(inspect.stdout)")
        #expect(inspect.stdout.contains("Bodies:      2 distinct ("), "\(inspect.stdout)")
        #expect(inspect.stderr == "webcache: warning: the running totals of the store disagree with its rows "
            + "(\(differences)); the figures here are counted from the rows, but eviction (prune --max-size) goes by "
            + "the totals. 'webcache verify --repair --store \(store)' recomputes them.\n")
        let json = try JSONSerialization.jsonObject(with: try await run("inspect", "--json").stdoutData)
        #expect((json as? [String: Any])?["entries"] as? Int == 2)

        // verify names the disagreement, and the repair
        let verify = try await run("verify")
        #expect(verify.exitCode == 1)
        #expect(verify.stdout == "problem: totals: \(problem)\n")
        #expect(verify.stderr == "Error: The store '\(store)' has 1 problem; 'webcache verify --repair --store "
            + "\(store)' recomputes the running totals from the rows.\n")

        // verify --repair recomputes them, and the store agrees with itself again
        let repair = try await run("verify", "--repair")
        #expect(repair.exitCode == 0, "\(repair.stderr)")
        #expect(repair.stdout == "repaired: totals: \(problem) They were recomputed from the rows.\n"
            + "ok: 2 entries, 2 bodies checked\n")
        let again = try await run("verify", "--repair", "--json")
        let report = try #require(try JSONSerialization.jsonObject(with: again.stdoutData) as? [String: Any])
        #expect(report["ok"] as? Bool == true)
        #expect((report["repaired"] as? [Any])?.isEmpty == true)
        #expect(try await run("inspect").stderr.isEmpty)
        let totals = try await withCacheStore(at: store) { store in try store.totals() }
        #expect(totals == StoreTotals(entryCount: 2, entryBytes: Int64(bytes), bodyCount: 2, bodyBytes: Int64(bytes)))
    }
}
