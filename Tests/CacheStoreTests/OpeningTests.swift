import CSQLite
import Foundation
import HTTPCore
import Testing
import WebCacheTestSupport

@testable import CacheStore

struct OpeningTests {
    let folder: TemporaryFolder

    init() throws {
        folder = try TemporaryFolder()
    }

    // MARK: - Schema

    @Test func migrationsBuildExactlyTheSchemaANewStoreIsBuiltWith() throws {
        // Given a new store, built from the newest schema's text in one transaction
        let newPath = folder.path("new.sqlite")
        _ = try CacheStore(path: newPath)
        let new = try Connection(path: newPath, flags: SQLITE_OPEN_READWRITE)
        // When another database is built by the migrations in order
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        let migratedPath = folder.path("migrated.sqlite")
        let migrated = try Connection(path: migratedPath, flags: flags)
        try Migration.migrate(migrated, with: Schema.migrations, retryingFor: 1, path: migratedPath)
        // Then both have the same tables, columns, constraints, indexes and triggers, version and id
        let definitions = try schemaDefinitions(new)
        #expect(definitions.count >= 15, "tables, indexes and triggers: \(definitions)")
        #expect(try schemaDefinitions(migrated) == definitions)
        for pragma in ["PRAGMA user_version", "PRAGMA application_id"] {
            #expect(try new.int64(pragma) == migrated.int64(pragma), "\(pragma)")
        }
        #expect(try new.int64("PRAGMA user_version") == Int64(Schema.latestVersion))
        #expect(try new.text("PRAGMA journal_mode") == "wal")
        #expect(Schema.migrations.first?.sql == Schema.version1)
    }

    /// Every schema object as "type name: SQL", the SQL without comments, quotes or layout.
    private func schemaDefinitions(_ connection: Connection) throws -> [String] {
        var definitions: [String] = []
        let query = "SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL ORDER BY type, name"
        try connection.forEachRow(query) { row in
            let lines = row.text(2).split(separator: "\n").map { line in
                line.range(of: "--").map { line[..<$0.lowerBound] } ?? line
            }
            let sql = lines.joined(separator: " ").replacingOccurrences(of: "\"", with: "")
            let words = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            definitions.append("\(row.text(0)) \(row.text(1)): \(words)")
        }
        return definitions
    }

    @Test func migratesAVersion1StoreKeepingEntriesBodiesAndIDs() async throws {
        // Given a store of schema version 1: two entries share a body, a second body was deleted
        // (so ids went up to 2), and a writer of that version left staged chunks
        let path = folder.path("version1.sqlite")
        let kept = Data("kept body".utf8)
        do {
            let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            try connection.execute(sql: "PRAGMA journal_mode = WAL")
            try Migration.migrate(connection, with: [Schema.migrations[0]], retryingFor: 1, path: path)
            try connection.execute(sql: "PRAGMA foreign_keys = ON")
            for body in [kept, Data("gone".utf8)] {
                try connection.run(
                    "INSERT INTO body (hash, size, chunk_count, created_at) VALUES (?, ?, 1, 0)",
                    [.blob(SHA256.hash(body)), .integer(Int64(body.count))]
                )
                try connection.run("INSERT INTO body_chunk VALUES (last_insert_rowid(), 0, ?)", [.blob(body)])
            }
            try connection.run("DELETE FROM body WHERE id = 2")
            for url in ["https://v1.test/a", "https://v1.test/b"] {
                try connection.run(
                    """
                    INSERT INTO entry (method, url, host, status, headers, request_time, response_time, \
                    fresh_until, stored_at, last_access, body_id, body_size) \
                    VALUES ('GET', ?, 'v1.test', 200, '', 0, 0, 0, 0, 0, 1, ?)
                    """,
                    [.text(url), .integer(Int64(kept.count))]
                )
            }
            try connection.run("INSERT INTO staging VALUES ('old-writer', 1, 0)")
            try connection.run("INSERT INTO staging_chunk VALUES ('old-writer', 0, x'00')")
        }
        // When this version opens it
        let store = try CacheStore(path: path)
        // Then it is at the latest version, sound, and the entries read their body
        #expect(try store.read("version") { try $0.int64("PRAGMA user_version") } == Int64(Schema.latestVersion))
        #expect(try await store.verify().isSound)
        let entry = try #require(try store.entry(url: "https://v1.test/b"))
        #expect(entry.bodyID == 1)
        #expect(try store.bodyData(bodyID: 1) == kept)
        let size = Int64(kept.count)
        #expect(try store.totals() == StoreTotals(entryCount: 2, entryBytes: 2 * size, bodyCount: 1, bodyBytes: size))
        #expect(try rowCount(store, "staging") == 0)
        // And a new body gets an id never used before: 3, not the deleted 2
        let saved = try await store.save(makeEntry("https://v1.test/new"), body: Data("new".utf8))
        #expect(saved.bodyID == 3)
        #expect(try await store.verify().isSound)
        // And only the new body's chunk carries a checksum; the old one is still read against its SHA-256
        let unchecked = try store.read("chunks") {
            try $0.text("SELECT group_concat(body_id) FROM body_chunk WHERE checksum IS NULL")
        }
        #expect(unchecked == "1")
        #expect(try store.bodyData(bodyID: 3) == Data("new".utf8))
        try await store.close()
    }

    @Test func version11NarrowsTheIndexByResourceAndKeepsEveryPageRecord() async throws {
        // Given a store of schema version 10 with two pages' records: each page's own edge and one to
        // a shared stylesheet
        let path = folder.path("version10.sqlite")
        let pages = ["https://v10.test/a", "https://v10.test/b"]
        do {
            let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            try connection.execute(sql: "PRAGMA journal_mode = WAL")
            try Migration.migrate(connection, with: Array(Schema.migrations[0..<10]), retryingFor: 1, path: path)
            for page in pages {
                for (resource, kind) in [(page, "page"), ("https://v10.test/site.css", "stylesheet")] {
                    try connection.run(
                        "INSERT INTO page_edge (partition, page_url, resource_url, kind) VALUES ('guest', ?, ?, ?)",
                        [.text(page), .text(resource), .text(kind)])
                }
            }
        }
        // When this version opens it
        let store = try CacheStore(path: path)
        // Then the index holds the edges to other URLs only, and every record reads as before
        let indexed = try store.read("index") { connection in
            try connection.int64("SELECT count(*) FROM page_edge INDEXED BY page_edge_by_resource WHERE page_url != resource_url")
        }
        let definition = try store.read("definition") { connection in
            try connection.text("SELECT sql FROM sqlite_schema WHERE name = 'page_edge_by_resource'")
        }
        #expect(indexed == 2)
        #expect(definition?.hasSuffix("WHERE page_url != resource_url") == true)
        #expect(try store.read("version") { try $0.int64("PRAGMA user_version") } == Int64(Schema.latestVersion))
        #expect(try store.pages().map(\.url) == pages)
        for page in pages {
            #expect(try store.edges(forPage: page).map(\.resourceURL) == [page, "https://v10.test/site.css"])
        }
        #expect(try await store.verify().isSound)
        try await store.close()
    }

    @Test func createsAStoreAtTheLatestVersionWithEveryTable() async throws {
        let path = folder.path("new.sqlite")
        let store = try CacheStore(path: path)
        let version = try store.read("version") { try $0.int64("PRAGMA user_version") }
        let applicationID = try store.read("id") { try $0.int64("PRAGMA application_id") }
        let journal = try store.read("journal") { try $0.text("PRAGMA journal_mode") }
        let tables = try store.read("tables") { connection in
            var names: Set<String> = []
            try connection.forEachRow("SELECT name FROM sqlite_schema WHERE type = 'table'") {
                names.insert($0.text(0))
            }
            return names
        }
        #expect(version == Int64(Schema.migrations.count))
        #expect(applicationID == Int64(Schema.applicationID))
        #expect(journal == "wal")
        #expect(Schema.requiredTables.isSubset(of: tables))
        // The writer's checkpoint tuning.
        let journalLimit = try await store.write("journal limit") { try $0.int64("PRAGMA journal_size_limit") }
        let pageSize = try #require(try store.read("page size") { try $0.int64("PRAGMA page_size") })
        #expect(Int64(try #require(store.logGrowth).checkpointFrames) == CacheStore.walSizeLimit / pageSize)
        #expect(journalLimit == CacheStore.walSizeLimit)
        try await store.close()
        // Reopening applies nothing again and keeps the data
        let again = try CacheStore(path: path)
        #expect(try again.totals().entryCount == 0)
        try await again.close()
    }

    @Test func manyOpenersCreatingTheSameStoreAgreeOnOneFile() async throws {
        let path = folder.path("race.sqlite")
        let created = try await withThrowingTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 {
                group.addTask { try StoreFile.createIfMissing(path: path, retryingFor: 5) }
            }
            return try await group.reduce(into: 0) { count, created in count += created ? 1 : 0 }
        }
        #expect(created == 1)
        let stores = try (0..<4).map { _ in try CacheStore(path: path) }
        try await stores[0].save(makeEntry("https://example.test/race"), body: Data("x".utf8))
        #expect(try stores[3].totals().entryCount == 1)
        for store in stores { try await store.close() }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(leftovers == ["race.sqlite"])
    }

    @Test func creatingAStoreRemovesTheFilesOfCreationsWhoseProcessIsGone() async throws {
        // Given files a killed creation left (no process has this id; Linux's ids stop at 2^22),
        // beside those of a creation still running here, a recent one, and another store's
        let path = folder.path("store.sqlite")
        let gone = path + StoreFile.creatingMark + "2147483647-\(UUID().uuidString)"
        let running = path + StoreFile.creatingMark + "\(getpid())-\(UUID().uuidString)"
        let recent = path + StoreFile.creatingMark + "2147483647-\(UUID().uuidString)"
        let otherStore = folder.path("other.sqlite") + StoreFile.creatingMark + "2147483647-\(UUID().uuidString)"
        let hourAgo = Date().addingTimeInterval(-3600)
        for file in [gone, gone + "-wal", gone + "-shm", running, recent, otherStore] {
            #expect(FileManager.default.createFile(atPath: file, contents: Data("partial".utf8)))
            if file != recent {
                try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: file)
            }
        }
        // When the store is created
        let store = try CacheStore(path: path)
        try await store.close()
        // Then the abandoned creation's files are gone, and the others stay
        let names = Set(try FileManager.default.contentsOfDirectory(atPath: folder.url.path))
        for file in [gone, gone + "-wal", gone + "-shm"] {
            #expect(!names.contains(URL(fileURLWithPath: file).lastPathComponent), "\(file)")
        }
        for file in [running, recent, otherStore] {
            #expect(names.contains(URL(fileURLWithPath: file).lastPathComponent), "\(file)")
        }
        #expect(names.contains("store.sqlite"))
    }

    @Test func removingAStoresFilesRemovesEveryCompanionFileWithIt() throws {
        // Given a store file with a write-ahead log, its index and a rollback journal left beside it
        let path = folder.path("left.sqlite")
        for suffix in ["", "-wal", "-shm", "-journal"] {
            try Data("x".utf8).write(to: URL(fileURLWithPath: path + suffix))
        }
        // When
        CacheStore.removeFiles(ofStoreAt: path)
        // Then none is left for a store created at the path later to read
        for suffix in ["", "-wal", "-shm", "-journal"] {
            #expect(!FileManager.default.fileExists(atPath: path + suffix), "\(suffix)")
        }
    }

    @Test func aStoreTellsWhetherItsFileIsStillTheOneAtItsPath() async throws {
        let path = folder.path("watched.sqlite")
        let store = try CacheStore(path: path, configuration: configuration())
        try await store.save(makeEntry("https://example.test/a"), body: Data("a".utf8))
        #expect(store.isStillAtItsPath)
        // Moved away and back: the same file
        try FileManager.default.moveItem(atPath: path, toPath: path + ".moved")
        #expect(!store.isStillAtItsPath)
        try FileManager.default.moveItem(atPath: path + ".moved", toPath: path)
        #expect(store.isStillAtItsPath)
        // Another store created at the path after the file was removed
        try FileManager.default.removeItem(atPath: path)
        let other = try CacheStore(path: path, configuration: configuration())
        #expect(other.isStillAtItsPath)
        #expect(!store.isStillAtItsPath)
        try await other.close()
        try await store.close()
    }

    @Test func aNewStoreIsNotReadThroughTheLogOfARemovedOne() async throws {
        // Given a store whose writer stopped with its log not yet copied into the file (its -wal and
        // -shm as they were while it ran, as a writer killed mid-run leaves them), then its file
        // deleted, as a user starting over does
        let path = folder.path("again.sqlite")
        let old = try CacheStore(path: path)
        for index in 0..<40 {
            _ = try await old.save(makeEntry("https://example.com/\(index)"),
                                   body: makeBody(size: 3_000, seed: UInt8(index)))
        }
        let leftovers = try ["-wal", "-shm"].map { ($0, try Data(contentsOf: URL(fileURLWithPath: path + $0))) }
        try await old.close()
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        for (suffix, bytes) in leftovers { try bytes.write(to: URL(fileURLWithPath: path + suffix)) }
        #expect(leftovers[0].1.count > 32 * 1_024, "the log held the old store's pages")
        // When a store is created at the same path and given one entry
        let store = try CacheStore(path: path)
        _ = try await store.save(makeEntry("https://example.com/new"), body: Data("new".utf8))
        // Then it holds that entry alone, and is sound
        #expect(try store.totals().entryCount == 1)
        let report = try await store.verify()
        #expect(report.isSound, "\(report.problems)")
        try await store.close()
    }

    @Test func anOpenStoreLeavesCreationFilesAlone() async throws {
        // Given an existing store and an abandoned creation's file beside it
        let path = folder.path("store.sqlite")
        try await CacheStore(path: path).close()
        let gone = path + StoreFile.creatingMark + "2147483647-\(UUID().uuidString)"
        #expect(FileManager.default.createFile(atPath: gone, contents: Data("partial".utf8)))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: gone)
        // When the store is opened again, nothing is created, and nothing is swept
        try await CacheStore(path: path).close()
        #expect(FileManager.default.fileExists(atPath: gone))
        // Then the next creation of that store would sweep it
        StoreFile.removeAbandonedCreations(of: path)
        #expect(!FileManager.default.fileExists(atPath: gone))
    }

    @Test func version3DeletesEntriesKeyedByAPlainCredentialAndLeavesNoTraceOfIt() async throws {
        // Given a store of schema version 2 with responses that varied on Cookie and Authorization,
        // stored under the plain values as that version did, beside ones that varied on other fields
        let path = folder.path("version2.sqlite")
        let shared = Data("shared body".utf8)
        let privateBody = Data("private page of the session".utf8)
        do {
            let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            try connection.execute(sql: "PRAGMA journal_mode = WAL")
            try Migration.migrate(connection, with: Array(Schema.migrations[0..<2]), retryingFor: 1, path: path)
            try connection.execute(sql: "PRAGMA foreign_keys = ON")
            for body in [shared, privateBody] {
                try connection.run(
                    "INSERT INTO body (hash, size, chunk_count, created_at) VALUES (?, ?, 1, 0)",
                    [.blob(SHA256.hash(body)), .integer(Int64(body.count))])
                try connection.run("INSERT INTO body_chunk VALUES (last_insert_rowid(), 0, ?)", [.blob(body)])
            }
            let entries: [(String, String, Int64)] = [
                ("https://v2.test/cookie", "cookie: id=secret-cookie", 2),
                ("https://v2.test/both", "accept-language: fr\nauthorization: Bearer secret-token", 1),
                ("https://v2.test/proxy", "proxy-authorization: Basic secret-basic", 1),
                ("https://v2.test/language", "accept-language: fr", 1),
                ("https://v2.test/plain", "", 1),
                ("https://v2.test/absent", "accept\ncookie", 1),
            ]
            for (url, key, body) in entries {
                try connection.run(
                    """
                    INSERT INTO entry (method, url, host, status, headers, request_time, response_time, \
                    fresh_until, stored_at, last_access, body_id, body_size, vary_key) \
                    VALUES ('GET', ?, 'v2.test', 200, '', 0, 0, 0, 0, 0, ?, ?, ?)
                    """,
                    [.text(url), .integer(body), .integer(body == 1 ? Int64(shared.count) : Int64(privateBody.count)),
                     .text(key)])
            }
        }
        // When this version opens it
        let store = try CacheStore(path: path)
        // Then the entries keyed by a plain credential are gone, with the body only they used
        #expect(try store.read("version") { try $0.int64("PRAGMA user_version") } == Int64(Schema.latestVersion))
        let urls = try store.read("urls") { connection in
            var urls: [String] = []
            try connection.forEachRow("SELECT url FROM entry ORDER BY url") { urls.append($0.text(0)) }
            return urls
        }
        #expect(urls == ["https://v2.test/absent", "https://v2.test/language", "https://v2.test/plain"])
        let size = Int64(shared.count)
        #expect(try store.totals() == StoreTotals(entryCount: 3, entryBytes: 3 * size, bodyCount: 1, bodyBytes: size))
        #expect(try rowCount(store, "body_chunk") == 1)
        #expect(try await store.verify().isSound)
        try await store.close()
        // And once closed, the file holds none of the secrets nor the private body
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for secret in ["secret-cookie", "secret-token", "secret-basic", "private page of the session"] {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "the store file still holds '\(secret)'")
        }
    }

    @Test func migrationsRunInOrderOnceEachAndAFailingStepRollsBack() throws {
        let connection = try Connection(
            path: folder.path("migrate.sqlite"), flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        let steps = [
            Migration(version: 1, sql: "CREATE TABLE a (x INTEGER) STRICT"),
            Migration(version: 2, sql: "ALTER TABLE a ADD COLUMN y TEXT"),
        ]
        try Migration.migrate(connection, with: steps, retryingFor: 1, path: "migrate.sqlite")
        #expect(try connection.int64("PRAGMA user_version") == 2)
        // Running them again changes nothing (ALTER would fail if it ran twice)
        try Migration.migrate(connection, with: steps, retryingFor: 1, path: "migrate.sqlite")
        // A broken third step leaves version 2 and no half-applied table
        let broken = steps + [Migration(version: 3, sql: "CREATE TABLE b (x INTEGER) STRICT; CREATE TABLE a (x)")]
        #expect(throws: SQLiteError.self) {
            try Migration.migrate(connection, with: broken, retryingFor: 1, path: "migrate.sqlite")
        }
        #expect(try connection.int64("PRAGMA user_version") == 2)
        #expect(try connection.int64("SELECT count(*) FROM sqlite_schema WHERE name = 'b'") == 0)
    }

    @Test func opensACurrentStoreWhileAnotherProcessHoldsItsWriteLock() async throws {
        // Given a store at the latest version, and another connection in a write transaction on it
        // (as a merge holds one for a whole source)
        let path = folder.path("busy.sqlite")
        let first = try CacheStore(path: path)
        _ = try await first.save(makeEntry("https://example.com/a"), body: Data("a".utf8))
        try await first.close()
        let holder = try Connection(path: path, flags: SQLITE_OPEN_READWRITE)
        try holder.execute(sql: "BEGIN IMMEDIATE")
        defer { try? holder.execute(sql: "ROLLBACK") }
        // When it is opened with no patience for a lock
        var configuration = CacheStore.Configuration()
        configuration.busyTimeoutMilliseconds = 10
        configuration.busyRetryLimit = 0
        let store = try CacheStore(path: path, configuration: configuration)
        // Then it opens (no migration is due, so no write lock is asked for) and reads what it holds
        #expect(try store.variants(partition: "guest", method: .get, url: "https://example.com/a").count == 1)
        try await store.close()
    }

    @Test func aSaveThatFindsTheStoreLockedForWritingTooLongSaysSo() async throws {
        // Given a store, and another connection that holds its write lock
        let path = folder.path("locked.sqlite")
        var configuration = CacheStore.Configuration()
        configuration.busyTimeoutMilliseconds = 10
        configuration.busyRetryLimit = 0.2
        let store = try CacheStore(path: path, configuration: configuration)
        let holder = try Connection(path: path, flags: SQLITE_OPEN_READWRITE)
        try holder.execute(sql: "BEGIN IMMEDIATE")
        // When a save waits past its limit
        let error = await #expect(throws: CacheStore.Error.self) {
            try await store.save(makeEntry("https://example.com/a"), body: Data("a".utf8))
        }
        // Then it says that another process held the store, which one, and for how long
        #expect(error?.message.contains("another process kept the cache store '\(path)' locked for writing") == true,
                "\(error?.message ?? "")")
        #expect(error?.message.contains("0.2 s") == true, "\(error?.message ?? "")")
        try holder.execute(sql: "ROLLBACK")
        try await store.close()
    }

    @Test func refusesAStoreOfANewerVersion() async throws {
        let path = folder.path("newer.sqlite")
        try await CacheStore(path: path).close()
        try withRawConnection(path) { try $0.execute(sql: "PRAGMA user_version = 99") }
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = try #require(throws: CacheStore.Error.self) { try CacheStore(path: path) }
        #expect(error.code == .newerVersion)
        #expect(error.message.contains(path))
        #expect(error.message.contains("99"))
        #expect(error.message.contains("version \(Schema.migrations.count)"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    // MARK: - Files that are not stores

    @Test(arguments: [
        ("empty", Data(), CacheStore.Error.Code.notADatabase),
        ("text", Data("Hello, this is a text file and not a database at all.\n".utf8), .notADatabase),
        ("short", Data("SQLite format 3\0".utf8), .notADatabase),
        ("random", Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }), .notADatabase),
    ])
    func refusesFilesThatAreNotSQLite(name: String, contents: Data, code: CacheStore.Error.Code) throws {
        let path = folder.path(name)
        try contents.write(to: URL(fileURLWithPath: path))
        try expectRefusal(path: path, code: code)
    }

    @Test func refusesAForeignSQLiteDatabase() throws {
        let path = folder.path("foreign.sqlite")
        try withRawConnection(path) {
            try $0.execute(sql: "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x')")
        }
        try expectRefusal(path: path, code: .notAStore, mentioning: "notes")
    }

    @Test func refusesAnSQLiteDatabaseWithAnotherApplicationID() throws {
        let path = folder.path("other-app.sqlite")
        try withRawConnection(path) { connection in
            try connection.execute(sql: "PRAGMA application_id = 42; PRAGMA user_version = 1; CREATE TABLE entry (x)")
        }
        try expectRefusal(path: path, code: .notAStore)
    }

    @Test func refusesATruncatedStore() async throws {
        let path = folder.path("truncated.sqlite")
        let store = try CacheStore(path: path)
        for index in 0..<20 {
            try await store.save(
                makeEntry("https://example.test/\(index)"), body: makeBody(size: 20_000, seed: UInt8(index)))
        }
        try await store.close()
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: 8_192)
        try handle.close()
        try expectRefusal(path: path, code: .corrupt, mentioning: "truncated")
    }

    @Test func refusesAStoreWithADamagedSchemaPage() async throws {
        let path = folder.path("damaged.sqlite")
        try await CacheStore(path: path).close()
        // Overwrite page 1 after the 100-byte header: the schema b-tree page.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        for offset in 100..<1_000 { bytes[offset] = 0xA5 }
        try bytes.write(to: URL(fileURLWithPath: path))
        try expectRefusal(path: path, code: .corrupt)
    }

    @Test func namesAPathThatCannotBeCreatedOrIsADirectory() throws {
        let missingFolder = folder.path("no-such-folder/store.sqlite")
        let createError = try #require(throws: CacheStore.Error.self) { try CacheStore(path: missingFolder) }
        #expect(createError.code == .fileSystem)
        #expect(createError.message.contains(missingFolder))

        let directory = folder.path("a-directory")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let directoryError = try #require(throws: CacheStore.Error.self) { try CacheStore(path: directory) }
        #expect(directoryError.code == .notADatabase)
        #expect(directoryError.message.contains(directory))
    }

    // MARK: - Permissions

    @Test func createsTheStoreAndItsWALFilesWithMode0600() async throws {
        let path = folder.path("private.sqlite")
        let store = try CacheStore(path: path)
        try await store.save(makeEntry("https://example.test/token"), body: Data("secret".utf8))
        for file in [path, path + "-wal", path + "-shm"] {
            let attributes = try FileManager.default.attributesOfItem(atPath: file)
            let mode = try #require(attributes[.posixPermissions] as? NSNumber).intValue
            #expect(mode == 0o600, "\(file) has mode \(String(mode, radix: 8))")
        }
        try await store.close()
    }

    // MARK: - Helpers

    private func expectRefusal(
        path: String, code: CacheStore.Error.Code, mentioning detail: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = try #require(throws: CacheStore.Error.self, sourceLocation: sourceLocation) {
            try CacheStore(path: path)
        }
        #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        #expect(error.message.contains(path), sourceLocation: sourceLocation)
        if let detail {
            #expect(error.message.contains(detail), "\(error)", sourceLocation: sourceLocation)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, sourceLocation: sourceLocation)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), sourceLocation: sourceLocation)
    }

    private func withRawConnection(_ path: String, _ body: (Connection) throws -> Void) throws {
        let connection = try Connection(path: path, flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try body(connection)
    }
}
