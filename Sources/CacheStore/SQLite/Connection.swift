import CSQLite
import FoundationEssentials

/// The raw SQLite handle; it never appears in public API.
typealias SQLiteConnection = OpaquePointer

/// One SQLite connection with its statement cache, confined to one owner (an actor's queue or a
/// reader lane's lock), as GRDB confines its `Database`.
final class Connection {
    let handle: SQLiteConnection
    let path: String
    private var statements: [String: Statement] = [:]
    /// The statements of ``SQLQuery`` values, by their number.
    private var queryStatements: [Int: Statement] = [:]
    /// The data version this connection last reported to ``CacheStore/changeCount()``.
    var seenDataVersion: Int64?
    /// The header fields of the entries this connection read lately (see ``DecodedHeaderCache``).
    let decodedHeaders = DecodedHeaderCache()
    /// What SQLite's callbacks on this connection refer to, kept until it closes.
    private var callbackContexts: [AnyObject] = []
    /// The VFS every connection opens with, set up once with SQLite's process-wide settings before
    /// the first connection opens: the write-combining VFS (`write_combining_vfs.h`), which writes
    /// SQLite's runs of log frames with one system call each and reads the log ahead during a
    /// checkpoint, or SQLite's default when it cannot be registered.
    private static let vfsName: String? = {
        csqlite_disable_memory_statistics()
        return csqlite_register_combining_vfs() == SQLITE_OK ? CSQLITE_COMBINING_VFS_NAME : nil
    }()

    /// Opens `path` with `flags` (`SQLITE_OPEN_NOMUTEX` is added: the connection is never shared).
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/open.html>
    init(path: String, flags: Int32) throws(SQLiteError) {
        var connection: SQLiteConnection?
        let code = sqlite3_open_v2(path, &connection, flags | SQLITE_OPEN_NOMUTEX, Self.vfsName)
        guard code == SQLITE_OK, let connection else {
            let message =
                connection.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(code))
            // "Whether or not an error occurs when it is opened, resources associated with the database
            // connection handle should be released by passing it to sqlite3_close()."
            sqlite3_close(connection)
            throw SQLiteError(extendedCode: code, message: message)
        }
        self.handle = connection
        self.path = path
        sqlite3_extended_result_codes(connection, 1)
    }

    deinit {
        // Unfinalized statements would make sqlite3_close return SQLITE_BUSY.
        statements.removeAll()
        queryStatements.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Keeps `context` alive until the connection closes, for a callback that SQLite calls with it.
    func keep(_ context: AnyObject) {
        callbackContexts.append(context)
    }

    /// Sets the busy timeout, after which a lock conflict is reported as `SQLITE_BUSY`.
    func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    // MARK: - Statements

    /// A prepared statement for `sql`, reset and with cleared bindings, from the connection's cache.
    func cachedStatement(sql: String) throws(SQLiteError) -> Statement {
        try statement(sql: sql, cachedIn: &statements, as: sql)
    }

    /// The prepared statement of `query`, as ``cachedStatement(sql:)``, found by the query's number.
    func cachedStatement(_ query: SQLQuery) throws(SQLiteError) -> Statement {
        try statement(sql: query.sql, cachedIn: &queryStatements, as: query.number)
    }

    /// The statement for `sql` kept in `cache` under `key`, reset; prepared and kept there the first time.
    private func statement<Key: Hashable>(sql: String, cachedIn cache: inout [Key: Statement], as key: Key)
        throws(SQLiteError) -> Statement
    {
        if let statement = cache[key] {
            // Its last use reset it, unless that use failed to.
            if statement.isInUse { statement.reset() }
            return statement
        }
        let statement = try Statement(connection: handle, sql: sql, persistent: true)
        cache[key] = statement
        return statement
    }

    /// The system's error number behind `code`, the last error of `handle`, when it is an I/O error:
    /// the one the VFS kept from a write, truncation or sync the system refused, else SQLite's own
    /// (`sqlite3_system_errno`, which is not always set for those, and stays from an earlier error).
    /// 0 for any other error.
    static func systemErrno(_ handle: SQLiteConnection, for code: Int32) -> Int32 {
        let kept = csqlite_combining_take_errno(handle)
        guard [SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN].contains(code & 0xFF) else { return 0 }
        return kept != 0 ? kept : sqlite3_system_errno(handle)
    }

    /// Runs one or several SQL statements without parameters (DDL, pragmas, transaction control).
    func execute(sql: String) throws(SQLiteError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if code != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errorMessage)
            let extendedCode = sqlite3_extended_errcode(handle)
            throw SQLiteError(
                extendedCode: extendedCode, message: message, sql: sql,
                systemErrno: Self.systemErrno(handle, for: extendedCode))
        }
    }

    /// Runs one statement with `values` bound, ignoring any rows.
    func run(_ sql: String, _ values: [DatabaseValue] = []) throws(SQLiteError) {
        try run(cachedStatement(sql: sql), values)
    }

    /// Runs a query made once (``SQLQuery``) with `values` bound, ignoring any rows.
    func run(_ query: SQLQuery, _ values: [DatabaseValue] = []) throws(SQLiteError) {
        try run(cachedStatement(query), values)
    }

    private func run(_ statement: Statement, _ values: [DatabaseValue]) throws(SQLiteError) {
        try statement.withBindings(values) { () throws(SQLiteError) in try statement.execute() }
    }

    /// Runs one query and calls `row` for each result row; the statement is valid only inside `row`.
    func forEachRow(
        _ sql: String,
        _ values: [DatabaseValue] = [],
        _ row: (Statement) throws -> Void
    ) throws {
        try forEachRow(of: cachedStatement(sql: sql), values, row)
    }

    /// ``forEachRow(_:_:_:)`` of a query made once (``SQLQuery``).
    func forEachRow(_ query: SQLQuery, _ values: [DatabaseValue] = [], _ row: (Statement) throws -> Void) throws {
        try forEachRow(of: cachedStatement(query), values, row)
    }

    private func forEachRow(of statement: Statement, _ values: [DatabaseValue], _ row: (Statement) throws -> Void)
        throws
    {
        // Reset also when `row` throws: a statement left mid-way keeps its read snapshot open,
        // which would stop checkpoints from moving past it.
        try statement.withBindings(values) {
            while try statement.step() {
                try row(statement)
            }
        }
    }

    /// The first column of the first row as an integer, `nil` when there is no row or it is NULL.
    func int64(_ sql: String, _ values: [DatabaseValue] = []) throws(SQLiteError) -> Int64? {
        try int64(cachedStatement(sql: sql), values)
    }

    /// The first column of the first row of a query made once (``SQLQuery``), as an integer.
    func int64(_ query: SQLQuery, _ values: [DatabaseValue] = []) throws(SQLiteError) -> Int64? {
        try int64(cachedStatement(query), values)
    }

    private func int64(_ statement: Statement, _ values: [DatabaseValue]) throws(SQLiteError) -> Int64? {
        try statement.withBindings(values) { () throws(SQLiteError) in
            guard try statement.step(), !statement.isNull(0) else { return nil }
            return statement.int64(0)
        }
    }

    /// The first column of the first row as text, `nil` when there is no row or it is NULL.
    func text(_ sql: String, _ values: [DatabaseValue] = []) throws(SQLiteError) -> String? {
        let statement = try cachedStatement(sql: sql)
        return try statement.withBindings(values) { () throws(SQLiteError) in
            guard try statement.step() else { return nil }
            return statement.optionalText(0)
        }
    }

    /// The number of rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int64 { sqlite3_changes64(handle) }

    /// The rowid of the last successful INSERT, or 0 after ``forgetLastInsertedRowID()``.
    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Sets ``lastInsertedRowID`` to 0, which no row of a table whose ids start at 1 has: a statement
    /// after it that inserts a row sets it again, one that updates a row does not.
    func forgetLastInsertedRowID() { sqlite3_set_last_insert_rowid(handle, 0) }

    // MARK: - Transactions

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back on any error.
    ///
    /// `BEGIN IMMEDIATE` takes the write lock up front: upgrading a deferred transaction can fail with
    /// an `SQLITE_BUSY` that the busy handler does not retry (GRDB `beginTransaction`).
    func immediateTransaction<T>(_ body: () throws -> T) throws -> T {
        try transaction(begin: "BEGIN IMMEDIATE", body)
    }

    /// Runs `body` inside a deferred read transaction, so that every query sees one snapshot.
    ///
    /// The transaction ends with `ROLLBACK`, which for one that wrote nothing is the same as `COMMIT`,
    /// except that it also ends one in which SQLite met a damaged page: `COMMIT` then fails with
    /// `SQLITE_CORRUPT`, which would throw away what `body` read from the rest of the file.
    ///
    /// Both ends are cached statements: a store hit runs one such transaction.
    func readTransaction<T>(_ body: () throws -> T) throws -> T {
        try run("BEGIN DEFERRED")
        defer { rollbackIfNeeded() }
        return try body()
    }

    /// Runs `body` between `begin` and `COMMIT`, rolling back on any error. Both ends are cached
    /// statements, as in ``readTransaction(_:)``: the store's writer runs one such transaction for
    /// every group of saves, and parsing the two statements each time cost as much as a tenth of it.
    private func transaction<T>(begin: String, _ body: () throws -> T) throws -> T {
        try run(begin)
        do {
            let result = try body()
            try run("COMMIT")
            return result
        } catch {
            rollbackIfNeeded()
            throw error
        }
    }

    /// Rolls back the open transaction, if SQLite has not already done so.
    func rollbackIfNeeded() {
        if sqlite3_get_autocommit(handle) == 0 {
            try? run("ROLLBACK")
        }
    }
}

@available(*, unavailable)
extension Connection: Sendable {}
