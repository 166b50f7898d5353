import CSQLite
import Foundation
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// The writer's WAL hook: it counts the log its commits add, and checkpoints the log at its limit in
/// place of SQLite's automatic checkpoint, which installing it turns off.
@Suite struct LogGrowthTests {
    private static let pageSize: Int64 = 4_096

    /// A connection to a new WAL database with one table, and the hook on it.
    private static func observedConnection(in folder: TemporaryFolder, _ growth: LogGrowth) throws -> Connection {
        let connection = try Connection(
            path: folder.path("log.sqlite"), flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try connection.execute(sql: "PRAGMA page_size = \(pageSize)")
        #expect(try connection.text("PRAGMA journal_mode = WAL") == "wal")
        try connection.execute(sql: "CREATE TABLE t (x BLOB NOT NULL)")
        growth.observe(connection)
        return connection
    }

    /// Inserts a blob of three pages in a transaction of its own: at least three frames of log.
    private static func commitThreePages(_ connection: Connection) throws {
        try connection.run("INSERT INTO t (x) VALUES (zeroblob(?))", [.integer(3 * pageSize)])
    }

    @Test func aStepIsTakenForEveryStepOfFramesTheCommitsAdd() throws {
        let folder = try TemporaryFolder()
        let growth = LogGrowth(
            pageSize: Self.pageSize, stepBytes: 8 * Self.pageSize, checkpointBytes: 1 << 30, ledger: CommitLedger())
        let connection = try Self.observedConnection(in: folder, growth)
        #expect(!growth.takeStep(), "nothing committed through the hook yet")

        var steps = 0
        for _ in 0..<40 {
            try Self.commitThreePages(connection)
            if growth.takeStep() { steps += 1 }
        }
        // 40 commits of three frames or more: 15 steps of eight at least; a step is taken at most
        // every other commit, so never more than 20.
        #expect((15...20).contains(steps), "\(steps) steps")
        #expect(try connection.int64("SELECT count(*) FROM t") == 40)
    }

    @Test func aCommitThatFillsTheLogToItsLimitCheckpointsItSoThatTheLogStartsOver() throws {
        let folder = try TemporaryFolder()
        let growth = LogGrowth(
            pageSize: Self.pageSize, stepBytes: 1 << 30, checkpointBytes: 16 * Self.pageSize, ledger: CommitLedger())
        let connection = try Self.observedConnection(in: folder, growth)
        for _ in 0..<60 {
            try Self.commitThreePages(connection)
        }

        // Without the hook's checkpoint nothing would be checkpointed (the hook turns SQLite's own
        // off), and the log would hold all 180 frames and more.
        let log = try FileManager.default.attributesOfItem(atPath: folder.path("log.sqlite") + "-wal")
        let logBytes = try #require((log[.size] as? NSNumber)?.int64Value)
        let frameBytes = Self.pageSize + 24
        #expect(logBytes < 32 * frameBytes, "the log file holds \(logBytes / frameBytes) frames")
        #expect(try connection.int64("SELECT count(*) FROM t") == 60)
    }
}
