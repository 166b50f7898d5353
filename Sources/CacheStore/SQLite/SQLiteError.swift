import CSQLite
import FoundationEssentials

/// An error reported by SQLite: the extended result code, SQLite's message and the SQL that failed.
///
/// Bound values are never part of the description, because URLs and headers can carry tokens.
/// The description reads like
/// `SQLite error 19: NOT NULL constraint failed: entry.url - while executing \`INSERT …\``, the
/// statement on one line and cut short; an I/O error adds the system's reason, as in
/// `SQLite error 10: disk I/O error (File too large) - …`.
public struct SQLiteError: Error, Sendable, CustomStringConvertible {
    /// The extended result code, such as `SQLITE_CONSTRAINT_UNIQUE` (2067).
    public var extendedCode: Int32
    /// The text of `sqlite3_errmsg` at the time of the failure.
    public var message: String
    /// The SQL that was executing, if any.
    public var sql: String?
    /// The operating system's error number behind an I/O error (`sqlite3_system_errno`), such as
    /// `EFBIG`; 0 when there is none or it is not known.
    public var systemErrno: Int32

    /// Creates an error from a result code, a message, the SQL that failed and the system's error number.
    public init(extendedCode: Int32, message: String, sql: String? = nil, systemErrno: Int32 = 0) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.systemErrno = systemErrno
    }

    /// The primary result code (`extendedCode & 0xFF`), such as `SQLITE_CONSTRAINT` (19).
    public var primaryCode: Int32 { extendedCode & 0xFF }

    /// Whether the failure is a lock conflict that a later attempt can overcome.
    var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }

    /// Whether the failure says the file is damaged or not a database at all.
    var isCorruption: Bool { primaryCode == SQLITE_CORRUPT || primaryCode == SQLITE_NOTADB }

    /// Whether a write found no room: a full disk, or a write the system refused for the file size
    /// limit (`EFBIG`) or the user's disk quota (`EDQUOT`), which SQLite reports as I/O errors.
    var isOutOfRoom: Bool {
        primaryCode == SQLITE_FULL || (primaryCode == SQLITE_IOERR && (systemErrno == EFBIG || systemErrno == EDQUOT))
    }

    public var description: String {
        var text = "SQLite error \(primaryCode): \(message)"
        if systemErrno != 0 { text += " (\(String(cString: strerror(systemErrno))))" }
        if let sql {
            text += " - while executing `\(Self.excerpt(of: sql))`"
        }
        return text
    }

    /// How much of a statement a description shows: the statement names what failed, and a
    /// statement of twenty lines repeated for each failed save buried the reasons.
    static let excerptLength = 100

    /// `sql` on one line (each run of whitespace one space), cut to ``excerptLength`` characters
    /// with an ellipsis.
    static func excerpt(of sql: String) -> String {
        let line = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        return line.count <= excerptLength ? line : String(line.prefix(excerptLength - 1)) + "…"
    }
}
