import CSQLite

extension Connection {
    /// Copies the `count` bytes of the blob in `column` of row `rowid` of `table` into `buffer`,
    /// straight from the database pages (incremental blob I/O): a large value read through a
    /// statement is first gathered in memory of SQLite's own, then copied again. Runs in the read
    /// transaction of a statement of this connection still stepping, if there is one.
    ///
    /// Related SQLite documentation: <https://www.sqlite.org/c3ref/blob_open.html>
    func readBlob(
        table: String, column: String, rowid: Int64, into buffer: UnsafeMutableRawPointer?, count: Int
    ) throws(SQLiteError) {
        var blob: OpaquePointer?
        var code = sqlite3_blob_open(handle, "main", table, column, rowid, 0, &blob)
        // "Calling this routine with a null pointer is a harmless no-op."
        defer { sqlite3_blob_close(blob) }
        if code == SQLITE_OK, count > 0 {
            let stored = Int(sqlite3_blob_bytes(blob))
            code = count <= stored ? sqlite3_blob_read(blob, buffer, Int32(count), 0) : SQLITE_ERROR
        }
        guard code == SQLITE_OK else {
            throw SQLiteError(extendedCode: code, message: String(cString: sqlite3_errmsg(handle)))
        }
    }
}
