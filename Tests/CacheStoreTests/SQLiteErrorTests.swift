import CSQLite
import Foundation
import Testing
import WebCacheTestSupport

@testable import CacheStore

struct SQLiteErrorTests {
    @Test func describesCodeMessageAndSQLButNotBoundValues() throws {
        // Given
        let connection = try Connection(path: ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try connection.execute(sql: "CREATE TABLE t (url TEXT NOT NULL UNIQUE) STRICT")
        try connection.run("INSERT INTO t (url) VALUES (?)", [.text("https://example.test/?token=secret")])
        // When
        let error = try #require(throws: SQLiteError.self) {
            try connection.run("INSERT INTO t (url) VALUES (?)", [.text("https://example.test/?token=secret")])
        }
        // Then
        #expect(error.extendedCode == SQLITE_CONSTRAINT | (8 << 8))  // SQLITE_CONSTRAINT_UNIQUE
        #expect(error.primaryCode == SQLITE_CONSTRAINT)
        #expect(
            error.description
                == "SQLite error 19: UNIQUE constraint failed: t.url - while executing `INSERT INTO t (url) VALUES (?)`"
        )
        #expect(!error.description.contains("secret"))
    }

    @Test func wrapsStoreFailuresWithTheStorePath() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("store.sqlite")
        let store = try CacheStore(path: path)
        let error = try await #require(throws: CacheStore.Error.self) {
            try await store.write("break a constraint") { connection in
                try connection.run("INSERT INTO store_totals VALUES (2, 0, 0, 0, 0)")
            }
        }
        #expect(error.code == .database)
        #expect(error.message == "Could not break a constraint in the cache store '\(path)'.")
        #expect(error.cause is SQLiteError)
        try await store.close()
    }

    @Test func showsALongStatementOnOneLineCutShort() {
        let sql = """
            INSERT INTO entry (partition, method, url, host, vary_key, status, headers, request_time,
                               response_time, fresh_until, stale_until, stored_at, last_access)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        let error = SQLiteError(extendedCode: SQLITE_FULL, message: "database or disk is full", sql: sql)
        let statement = error.description.components(separatedBy: "while executing `")[1].dropLast()
        #expect(!error.description.contains("\n"))
        #expect(statement.count == SQLiteError.excerptLength)
        #expect(statement.hasPrefix("INSERT INTO entry (partition, method, url, host, vary_key, status, headers, "))
        #expect(statement.hasSuffix("…"))
    }

    /// A cause whose text ends its sentence is not given a second full stop.
    @Test func endsTheUnderlyingSentenceOnce() {
        struct Cause: Error, CustomStringConvertible {
            var description: String
        }
        let error = CacheStore.Error(
            code: .database, message: "Could not read the store.", cause: Cause(description: "The disk failed."))
        #expect(error.description == "Could not read the store. Underlying error: The disk failed.")
    }
}

