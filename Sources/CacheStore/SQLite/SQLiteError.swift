import CSQLite

/// An error reported by SQLite: the extended result code, SQLite's message and the SQL that failed.
///
/// Bound values are never part of the description, because URLs and headers can carry tokens.
/// The description reads like
/// `SQLite error 19: NOT NULL constraint failed: entry.url - while executing \`INSERT …\``.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code, such as `SQLITE_CONSTRAINT_UNIQUE` (2067).
    public var extendedCode: Int32
    /// The text of `sqlite3_errmsg` at the time of the failure.
    public var message: String
    /// The SQL that was executing, if any.
    public var sql: String?

    /// Creates an error from a result code, a message and the SQL that failed.
    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// The primary result code (`extendedCode & 0xFF`), such as `SQLITE_CONSTRAINT` (19).
    public var primaryCode: Int32 { extendedCode & 0xFF }

    /// Whether the failure is a lock conflict that a later attempt can overcome.
    var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }

    /// Whether the failure says the file is damaged or not a database at all.
    var isCorruption: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }

    public var description: String {
        var text = "SQLite error \(primaryCode): \(message)"
        if let sql {
            text += " - while executing `\(sql)`"
        }
        return text
    }
}
