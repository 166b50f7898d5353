import CSQLite
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// The write-combining VFS the store's connections open with (`write_combining_vfs.h`): what SQLite
/// writes in runs is gathered, and must still be in the file whenever another connection or process
/// can see it, and a checkpoint that reads the log ahead must copy every page as it was.
@Suite(.timeLimit(.minutes(3)))
struct WriteCombiningTests {
    let folder: TemporaryFolder
    let store: CacheStore

    init() throws {
        folder = try TemporaryFolder()
        store = try CacheStore(path: folder.path("store.sqlite"), configuration: configuration())
    }

    /// Body sizes around the lengths that matter: a page, a run (31 frames, just under 128 KiB),
    /// a chunk (256 KiB), several of each.
    static let sizes = [1, 4_000, 4_096, 31 * 4_120, 131_071, 131_072, 262_144, 262_145, 700_000, 1_300_000]

    @Test func connectionsOpenThroughTheWriteCombiningVFS() throws {
        let connection = try Connection(path: store.path, flags: SQLITE_OPEN_READWRITE)
        var vfs: UnsafeMutablePointer<sqlite3_vfs>?
        #expect(sqlite3_file_control(connection.handle, "main", SQLITE_FCNTL_VFS_POINTER, &vfs) == SQLITE_OK)
        #expect(vfs.map { String(cString: $0.pointee.zName) } == "webcache-combining")
    }

    @Test func aCommitIsInTheLogBeforeTheWriterTouchesTheFileAgain() throws {
        // Straight after each commit another connection, with its own file descriptor, reads the row
        // from the file: the writer's gathered frames must be out by the time its commit returns.
        let path = folder.path("plain.sqlite")
        let writer = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try writer.execute(sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL")
        try writer.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, data BLOB)")
        let reader = try Connection(path: path, flags: SQLITE_OPEN_READONLY)
        for (index, size) in [100, 40_000, 300_000].enumerated() {
            let body = makeBody(size: size, seed: UInt8(index))
            try writer.run("INSERT INTO t (id, data) VALUES (?, ?)", [.integer(Int64(index)), .blob(body)])
            var seen: Data?
            try reader.forEachRow("SELECT data FROM t WHERE id = ?", [.integer(Int64(index))]) { seen = $0.blob(0) }
            #expect(seen == body, "row \(index) of \(size) bytes")
        }
    }

    @Test func everyCommitIsInTheFileWhenAnotherProcessCanSeeIt() async throws {
        let reader = BodyHashReader(storePath: store.path)
        for (index, size) in Self.sizes.enumerated() {
            let url = "https://example.test/\(index)"
            let body = makeBody(size: size, seed: UInt8(index))
            if index.isMultiple(of: 2) {
                try await store.save(makeEntry(url), body: body)
            } else {
                // Streamed: every full chunk commits on its own before the entry does.
                var writer = store.makeBodyWriter()
                for start in stride(from: 0, to: body.count, by: 50_000) {
                    try await writer.write(body[start..<min(start + 50_000, body.count)])
                }
                try await store.save(makeEntry(url), body: writer)
            }
            // Asked right after the save returned: another process's SQLite reads the log itself.
            #expect(try reader.hash(of: url) == Self.hex(body), "body \(index) of \(size) bytes")
        }
    }

    @Test func checkpointsCopyEveryPageAsItWasWhileWritesGoOn() async throws {
        // Half as much again as the log growth after which the store checkpoints, so that a
        // checkpoint reads the log ahead while later bodies are written.
        var bodies: [String: Data] = [:]
        var saved = 0
        while saved < CacheStore.checkpointStep + CacheStore.checkpointStep / 2 {
            let index = bodies.count
            let url = "https://example.test/\(index)"
            let body = makeBody(size: Self.sizes[index % Self.sizes.count] + index, seed: UInt8(index % 256))
            bodies[url] = body
            saved += body.count
            try await store.save(makeEntry(url), body: body)
        }
        let report = try await store.verify()
        #expect(report.isSound, "\(report.problems)")
        #expect(report.checkedBodies == bodies.count)
        // Everything copied into the database file and the log emptied: another process reads the file.
        _ = try await store.compact()
        let reader = BodyHashReader(storePath: store.path)
        #expect(try reader.integrityCheck() == "ok")
        for (url, body) in bodies {
            #expect(try reader.hash(of: url) == Self.hex(body), "\(url)")
        }
    }

    /// A checkpoint walks a log written in page order (a large value's pages, as one commit writes
    /// them) in order, and reads it ahead: a few reads for many pages.
    @Test func aCheckpointReadsALogWrittenInOrderAFewPagesARead() throws {
        let connection = try Self.databaseWithoutAutomaticCheckpoints(at: folder.path("in-order.sqlite"))
        try connection.run(
            "INSERT INTO t (key, data) VALUES ('large', ?)", [.blob(makeBody(size: 4 << 20, seed: 1))])
        try connection.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)")

        let reads = Self.checkpointReads(of: connection)
        #expect(reads.asked >= 4 << 20, "the checkpoint copied the value's pages")
        #expect(reads.calls * 8 <= reads.asked / 4_096, "\(reads.calls) reads for \(reads.asked) bytes")
        #expect(reads.read <= reads.asked + reads.asked / 4, "\(reads.read) bytes read for \(reads.asked)")
    }

    /// After many small commits, each changing a few pages of a table and its index, a checkpoint
    /// jumps from frame to frame of the log: it reads little more than the pages it copies, where a
    /// run read ahead at every jump would read many times as much.
    @Test func aCheckpointOfManySmallCommitsReadsLittleMoreThanItCopies() throws {
        let connection = try Self.databaseWithoutAutomaticCheckpoints(at: folder.path("scattered.sqlite"))
        try connection.execute(sql: "CREATE INDEX t_by_data ON t(data)")
        let value = makeBody(size: 200, seed: 2)
        for commit in 0..<400 {
            try connection.execute(sql: "BEGIN")
            for row in 0..<3 {
                // Keys spread over the whole table, so that each commit changes pages far apart.
                let key = String((commit * 3 + row) &* 2_654_435_761 % 4_294_967_291, radix: 16)
                try connection.run(
                    "INSERT INTO t (key, data) VALUES (?, ?)", [.text(key), .blob(value + Data(key.utf8))])
            }
            try connection.execute(sql: "COMMIT")
        }
        try connection.execute(sql: "PRAGMA wal_checkpoint(PASSIVE)")

        let reads = Self.checkpointReads(of: connection)
        #expect(reads.asked >= 100 * 4_096, "the checkpoint copied the tables' pages")
        #expect(reads.read <= 2 * reads.asked, "\(reads.read) bytes read for \(reads.asked) in \(reads.calls) reads")
    }

    /// A database of its own, in WAL mode through the store's VFS, whose log only an explicit
    /// checkpoint copies: a table `t (key TEXT PRIMARY KEY, data BLOB)`.
    private static func databaseWithoutAutomaticCheckpoints(at path: String) throws -> Connection {
        let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try connection.execute(
            sql: "PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA wal_autocheckpoint = 0")
        try connection.execute(sql: "CREATE TABLE t (key TEXT PRIMARY KEY, data BLOB)")
        return connection
    }

    /// What the checkpoints of `connection` asked of its log, and the reads of the file they made.
    private static func checkpointReads(of connection: Connection) -> (asked: Int64, calls: Int64, read: Int64) {
        var asked: sqlite3_int64 = 0
        var calls: sqlite3_int64 = 0
        var read: sqlite3_int64 = 0
        csqlite_combining_checkpoint_reads(connection.handle, &asked, &calls, &read)
        return (Int64(asked), Int64(calls), Int64(read))
    }

    static func hex(_ data: Data) -> String {
        var hasher = SHA256()
        hasher.update(data)
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }
}

/// Reads the store from a python3 process with its own SQLite, one run per question: the SHA-256 of
/// the body of a URL's entry, or the store's integrity check.
private struct BodyHashReader {
    let storePath: String

    init(storePath: String) { self.storePath = storePath }

    func hash(of url: String) throws -> String { try ask(url) }

    func integrityCheck() throws -> String { try ask("integrity") }

    private func ask(_ question: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            """
            import hashlib, sqlite3, sys
            db = sqlite3.connect(sys.argv[1], isolation_level=None)
            if sys.argv[2] == "integrity":
                print(db.execute("PRAGMA integrity_check").fetchone()[0])
                sys.exit(0)
            row = db.execute("SELECT body_id FROM entry WHERE url = ?", (sys.argv[2],)).fetchone()
            if row is None:
                print("missing")
                sys.exit(0)
            digest = hashlib.sha256()
            for (data,) in db.execute("SELECT data FROM body_chunk WHERE body_id = ? ORDER BY seq", row):
                digest.update(data)
            print(digest.hexdigest())
            """,
            storePath, question,
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let answer = try output.fileHandleForReading.readToEnd() ?? Data()
        process.waitUntilExit()
        return String(decoding: answer, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
