import CSQLite
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
}
