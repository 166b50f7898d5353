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
        // Well past the log growth after which the store checkpoints, so that checkpoints read the log
        // ahead while later bodies are written.
        var bodies: [String: Data] = [:]
        for index in 0..<40 {
            let url = "https://example.test/\(index)"
            let body = makeBody(size: Self.sizes[index % Self.sizes.count] + index, seed: UInt8(index))
            bodies[url] = body
            try await store.save(makeEntry(url), body: body)
        }
        let report = try await store.verify()
        #expect(report.isSound, "\(report.problems)")
        #expect(report.checkedBodies == 40)
        // Everything copied into the database file and the log emptied: another process reads the file.
        _ = try await store.compact()
        let reader = BodyHashReader(storePath: store.path)
        #expect(try reader.integrityCheck() == "ok")
        for (url, body) in bodies {
            #expect(try reader.hash(of: url) == Self.hex(body), "\(url)")
        }
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
