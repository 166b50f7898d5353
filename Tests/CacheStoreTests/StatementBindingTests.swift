import CSQLite
import Foundation
import HTTPCore
import Testing

@testable import CacheStore

struct StatementBindingTests {
    /// Text is bound from the string's own bytes with their count: whole (a NUL byte included, which
    /// a C string would end at), in any script, at any length, and an empty string as text, not NULL.
    @Test func textIsBoundWholeAndEmptyTextIsNotNull() throws {
        let connection = try Connection(path: ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try connection.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, value TEXT) STRICT")
        let values = [
            "", "plain", "é, 日本, 🙂", "a\u{0}b", String(repeating: "x", count: 100_000), String("sliced text".dropFirst(7)),
        ]
        for (id, value) in values.enumerated() {
            try connection.run("INSERT INTO t (id, value) VALUES (?, ?)", [.integer(Int64(id)), .text(value)])
        }
        for (id, value) in values.enumerated() {
            let key: [DatabaseValue] = [.integer(Int64(id))]
            #expect(try connection.int64("SELECT value IS NULL FROM t WHERE id = ?", key) == 0, "\(id)")
            #expect(try connection.int64("SELECT length(CAST(value AS BLOB)) FROM t WHERE id = ?", key)
                    == Int64(value.utf8.count), "\(id)")
            #expect(try connection.int64("SELECT value = ? FROM t WHERE id = ?", [.text(value)] + key) == 1, "\(id)")
            #expect(try connection.text("SELECT value FROM t WHERE id = ?", key) == value, "\(id)")
        }
    }

    /// Text and blobs up to ``Statement/maximumInPlaceBytes`` are bound from the statement's own
    /// buffer, larger ones copied by SQLite: rows written through one statement again and again,
    /// each with values of both kinds and sizes around the limit, so that the buffer grows between
    /// uses, must read back as written.
    @Test func valuesBoundInPlaceAndCopiedReadBackAsWritten() throws {
        let connection = try Connection(path: ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try connection.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b BLOB, c TEXT, d BLOB) STRICT")
        let limit = Statement.maximumInPlaceBytes
        let sizes = [0, 1, 15, 300, 4_000, limit - 1, limit, limit + 1, 3 * limit, 2, limit, 70_000, 5]
        var rows: [(String, [UInt8], String, [UInt8])] = []
        for (id, size) in sizes.enumerated() {
            let text = String(repeating: "é\(id % 10)", count: size / 3 + 1)
            let blob = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ id) }
            let other = String(repeating: "z", count: sizes[(id + 5) % sizes.count])
            let small = Array(blob.prefix(7).reversed())
            rows.append((text, blob, other, small))
            try connection.run(
                "INSERT INTO t (id, a, b, c, d) VALUES (?, ?, ?, ?, ?)",
                [.integer(Int64(id)), .text(text), .blob(Data(blob)), .text(other), .blob(Data(small))])
        }
        for (id, row) in rows.enumerated() {
            let key: [DatabaseValue] = [.integer(Int64(id))]
            #expect(try connection.text("SELECT a FROM t WHERE id = ?", key) == row.0, "a of \(id)")
            #expect(
                try connection.text("SELECT lower(hex(b)) FROM t WHERE id = ?", key) == Hex.lowercase(row.1),
                "b of \(id)")
            #expect(try connection.text("SELECT c FROM t WHERE id = ?", key) == row.2, "c of \(id)")
            #expect(
                try connection.text("SELECT lower(hex(d)) FROM t WHERE id = ?", key) == Hex.lowercase(row.3),
                "d of \(id)")
        }
    }

    /// Text and blobs larger than ``Statement/maximumInPlaceBytes`` are read by SQLite from the
    /// values' own storage while the statement runs: they are written and compared whole, a run
    /// that fails (a duplicate key) throws and the statement serves the next one, and once a run
    /// has ended, by returning or by throwing, the statement holds no binding that could point
    /// into storage that is gone.
    @Test func largeValuesReadInPlaceAreNotHeldAfterTheRun() throws {
        let connection = try Connection(path: ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try connection.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, a TEXT, b BLOB) STRICT")
        let insert = "INSERT INTO t (id, a, b) VALUES (?, ?, ?)"
        let large = Statement.maximumInPlaceBytes + 1
        func row(_ id: Int) -> (String, Data) {
            let blob = (0..<large + id).map { UInt8(truncatingIfNeeded: $0 &+ id) }
            return (String(repeating: "ü\(id)", count: large / 2), Data(blob))
        }
        // Asking the connection for its cached statement would clear the bindings: ask it once.
        let statement = try connection.cachedStatement(sql: insert)
        func boundValues() throws -> String {
            let expanded = try #require(sqlite3_expanded_sql(statement.handle))
            defer { sqlite3_free(expanded) }
            return String(cString: expanded)
        }
        for id in 0..<3 {
            let (text, blob) = row(id)
            try connection.run(insert, [.integer(Int64(id)), .text(text), .blob(blob)])
            #expect(try boundValues() == "INSERT INTO t (id, a, b) VALUES (NULL, NULL, NULL)", "after row \(id)")
        }
        let (text, blob) = row(1)
        #expect(throws: SQLiteError.self) {
            try connection.run(insert, [.integer(1), .text(text), .blob(blob)])
        }
        #expect(try boundValues() == "INSERT INTO t (id, a, b) VALUES (NULL, NULL, NULL)", "after the failed run")
        try connection.run(insert, [.integer(3), .text(row(3).0), .blob(row(3).1)])
        for id in 0..<4 {
            let (text, blob) = row(id)
            let values: [DatabaseValue] = [.text(text), .blob(blob), .integer(Int64(id))]
            #expect(try connection.int64("SELECT a = ? AND b = ? FROM t WHERE id = ?", values) == 1, "row \(id)")
        }
        #expect(try connection.int64("SELECT count(*) FROM t") == 4)
    }

    /// The connection resets a statement it hands out again only when a use left it bound or
    /// stepped: one left mid-way (with parameters or without), one run to its end without a reset,
    /// and one only bound all serve the next use whole; one whose use reset it is handed out as it is.
    @Test func aStatementLeftInUseIsResetWhenHandedOutAgain() throws {
        let connection = try Connection(path: ":memory:", flags: SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
        try connection.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY) STRICT")
        for id in 1...3 { try connection.run("INSERT INTO t (id) VALUES (?)", [.integer(Int64(id))]) }
        let query = "SELECT id FROM t WHERE id >= ? ORDER BY id"
        func ids(from first: Int64) throws -> [Int64] {
            var ids: [Int64] = []
            try connection.forEachRow(query, [.integer(first)]) { ids.append($0.int64(0)) }
            return ids
        }
        let statement = try connection.cachedStatement(sql: query)
        #expect(!statement.isInUse)

        statement.bind([.integer(1)])
        #expect(try statement.step())
        #expect(statement.isInUse)
        #expect(try ids(from: 2) == [2, 3], "after a use left mid-way")
        #expect(!statement.isInUse)

        statement.bind([.integer(3)])
        while try statement.step() {}
        #expect(statement.isInUse)
        #expect(try ids(from: 1) == [1, 2, 3], "after a use run to its end")

        statement.bind([.integer(2)])
        #expect(statement.isInUse)
        #expect(try ids(from: 3) == [3], "after a use that only bound")

        let again = try connection.cachedStatement(sql: query)
        #expect(again === statement)
        #expect(!again.isInUse)

        // A query without parameters is in use once stepped.
        let all = "SELECT id FROM t ORDER BY id"
        let unbound = try connection.cachedStatement(sql: all)
        #expect(try unbound.step())
        #expect(unbound.isInUse)
        var ids: [Int64] = []
        try connection.forEachRow(all) { ids.append($0.int64(0)) }
        #expect(ids == [1, 2, 3], "after a use of a query without parameters left mid-way")
    }
}
