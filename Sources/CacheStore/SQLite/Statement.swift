import CSQLite
import FoundationEssentials

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A prepared statement, confined to the connection that prepared it.
///
/// Statements are obtained from ``Connection/cachedStatement(sql:)``, which resets them and clears
/// their bindings, and are valid only while their connection is open.
final class Statement {
    let handle: OpaquePointer
    let sql: String
    private let connection: SQLiteConnection

    init(connection: SQLiteConnection, sql: String, persistent: Bool) throws(SQLiteError) {
        var statement: OpaquePointer?
        let flags = persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let code = sqlite3_prepare_v3(connection, sql, -1, flags, &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw SQLiteError(extendedCode: code, message: String(cString: sqlite3_errmsg(connection)), sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.connection = connection
    }

    /// The bytes of the text and blob values of the last binding, up to ``maximumInPlaceBytes``
    /// each, which SQLite reads in place (`SQLITE_STATIC`) rather than copying each into a memory
    /// cell of its own (a `malloc` and a `free` a value: the system SQLite is built without its
    /// lookaside allocator). Valid until the next binding, reset or finalisation, which is as long
    /// as SQLite reads them.
    private var boundBytes: UnsafeMutableRawPointer?
    private var boundCapacity = 0
    /// A value larger than this (a body's chunk, say) is not copied into ``boundBytes``, which
    /// would keep a large buffer for each statement: ``withBindings(_:_:)`` lets SQLite read it from
    /// the value's own storage, and ``bind(_:)`` has SQLite copy it.
    static let maximumInPlaceBytes = 16 * 1024
    /// Whether the statement was bound or stepped since its last reset: ``Connection`` resets a
    /// statement it hands out only then (every use resets it after itself, so it seldom is).
    private(set) var isInUse = false

    deinit {
        sqlite3_finalize(handle)
        free(boundBytes)
    }

    // MARK: - Binding

    /// Resets the statement and forgets its bindings, ready for another use.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        isInUse = false
    }

    /// Binds `values` to parameters 1, 2, … in order, runs `body`, and resets the statement (also
    /// when `body` throws). A text or blob larger than ``maximumInPlaceBytes`` is read by SQLite
    /// from the value's own storage while `body` runs (`SQLITE_STATIC`), where ``bind(_:)`` has
    /// SQLite copy it first: every stored body's bytes pass through here, on the writer's thread.
    func withBindings<T, E: Error>(_ values: [DatabaseValue], _ body: () throws(E) -> T) throws(E) -> T {
        let large = bind(values, deferringLarge: true)
        guard large.isEmpty else { return try withLargeValuesBound(values, large[...], body).get() }
        defer { reset() }
        return try body()
    }

    /// Binds the values at `positions` from their own storage, each inside its own access to it,
    /// and runs `body` inside the last; the statement is reset and its bindings cleared before
    /// the accesses end, so that SQLite keeps no pointer into them.
    private func withLargeValuesBound<T, E: Error>(
        _ values: [DatabaseValue], _ positions: ArraySlice<Int>, _ body: () throws(E) -> T
    ) -> Result<T, E> {
        guard let position = positions.first else {
            defer { reset() }
            do { return .success(try body()) } catch { return .failure(error) }
        }
        let index = Int32(position + 1), rest = positions.dropFirst()
        func checked(_ code: Int32) {
            precondition(code == SQLITE_OK, "Binding parameter \(index) of `\(sql)` failed with code \(code).")
        }
        switch values[position] {
        case .text(var text):
            return text.withUTF8 { bytes in
                checked(sqlite3_bind_text(
                    handle, index, UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self),
                    Int32(bytes.count), nil))
                return withLargeValuesBound(values, rest, body)
            }
        case .blob(let data):
            return data.withUnsafeBytes { bytes in
                checked(sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), nil))
                return withLargeValuesBound(values, rest, body)
            }
        case .null, .integer, .real:
            preconditionFailure("Only text and blobs are bound from their own storage.")
        }
    }

    /// Binds `values` to parameters 1, 2, … in order; a failure is a programming error (GRDB treats
    /// it the same way).
    func bind(_ values: [DatabaseValue]) {
        _ = bind(values, deferringLarge: false)
    }

    /// Binds `values`, those larger than ``maximumInPlaceBytes`` copied by SQLite, or, when
    /// `deferringLarge`, left unbound and their positions returned.
    private func bind(_ values: [DatabaseValue], deferringLarge: Bool) -> [Int] {
        isInUse = true
        var large: [Int] = []
        var inPlace = 0
        var holdsLarge = false
        for value in values {
            let count = Self.byteCount(value)
            if count <= Self.maximumInPlaceBytes { inPlace += count } else { holdsLarge = true }
        }
        let deferring = deferringLarge && holdsLarge
        if inPlace > boundCapacity {
            // No parameter may still point into the buffer given back.
            sqlite3_clear_bindings(handle)
            free(boundBytes)
            boundCapacity = max(inPlace, 2 * boundCapacity, 256)
            boundBytes = malloc(boundCapacity)
            precondition(boundBytes != nil, "No memory for the \(boundCapacity) bytes bound to `\(sql)`.")
        }
        var offset = 0
        for (position, value) in values.enumerated() {
            let index = Int32(position + 1)
            if deferring, Self.byteCount(value) > Self.maximumInPlaceBytes {
                large.append(position)
                continue
            }
            let code: Int32
            switch value {
            case .null:
                code = sqlite3_bind_null(handle, index)
            case .integer(let integer):
                code = sqlite3_bind_int64(handle, index, integer)
            case .real(let real):
                code = sqlite3_bind_double(handle, index, real)
            case .text(var text):
                // Bound from the string's own bytes with their count: passing the string as a C
                // string would copy it into a new array first. An empty string still binds text,
                // not NULL.
                code = text.withUTF8 { bytes in
                    guard let base = bytes.baseAddress, !bytes.isEmpty else {
                        return sqlite3_bind_text(handle, index, "", 0, csqlite_transient())
                    }
                    let (pointer, destructor) = place(UnsafeRawBufferPointer(bytes), at: &offset)
                    return sqlite3_bind_text(
                        handle, index, (pointer ?? UnsafeRawPointer(base)).assumingMemoryBound(to: CChar.self),
                        Int32(bytes.count), destructor)
                }
            case .blob(let data):
                if data.isEmpty {
                    // An empty Data has no base address and would be stored as NULL.
                    code = sqlite3_bind_zeroblob(handle, index, 0)
                } else {
                    code = data.withUnsafeBytes { bytes in
                        let (pointer, destructor) = place(bytes, at: &offset)
                        return sqlite3_bind_blob(
                            handle, index, pointer ?? bytes.baseAddress, Int32(bytes.count), destructor)
                    }
                }
            }
            precondition(code == SQLITE_OK, "Binding parameter \(index) of `\(sql)` failed with code \(code).")
        }
        return large
    }

    /// The bytes of text or a blob `value`, 0 for the other kinds.
    private static func byteCount(_ value: DatabaseValue) -> Int {
        switch value {
        case .text(let text): text.utf8.count
        case .blob(let data): data.count
        case .null, .integer, .real: 0
        }
    }

    /// Copies `bytes` into ``boundBytes`` at `offset` when they are kept there: their copy and
    /// `SQLITE_STATIC`, or `nil` and `SQLITE_TRANSIENT` for SQLite to copy them itself.
    private func place(
        _ bytes: UnsafeRawBufferPointer, at offset: inout Int
    ) -> (UnsafeRawPointer?, sqlite3_destructor_type?) {
        guard bytes.count <= Self.maximumInPlaceBytes, let boundBytes, let base = bytes.baseAddress else {
            return (nil, csqlite_transient())
        }
        let copy = boundBytes + offset
        copy.copyMemory(from: base, byteCount: bytes.count)
        offset += bytes.count
        return (UnsafeRawPointer(copy), nil)
    }

    // MARK: - Stepping

    /// Advances to the next row; `true` when a row is available, `false` when the statement is done.
    func step() throws(SQLiteError) -> Bool {
        isInUse = true
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            return false
        default:
            let extendedCode = sqlite3_extended_errcode(connection)
            let error = SQLiteError(
                extendedCode: extendedCode,
                message: String(cString: sqlite3_errmsg(connection)),
                sql: sql,
                systemErrno: Connection.systemErrno(connection, for: extendedCode)
            )
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs the statement to completion, ignoring any rows.
    func execute() throws(SQLiteError) {
        while try step() {}
    }

    // MARK: - Reading the current row

    /// Whether column `index` of the current row is NULL.
    func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// Column `index` as an integer.
    func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// Column `index` as a double.
    func double(_ index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// Column `index` as a date, from seconds since 1970.
    func date(_ index: Int32) -> Date {
        Date(timeIntervalSince1970: sqlite3_column_double(handle, index))
    }

    /// Column `index` as a date, `nil` when NULL.
    func optionalDate(_ index: Int32) -> Date? {
        isNull(index) ? nil : date(index)
    }

    /// Column `index` as text; NULL reads as the empty string.
    func text(_ index: Int32) -> String {
        guard let pointer = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// Calls `body` with the bytes of column `index` as text, in place (valid only within `body`);
    /// NULL reads as no bytes.
    func withTextBytes<T>(_ index: Int32, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        guard let pointer = sqlite3_column_text(handle, index) else {
            return body(UnsafeBufferPointer(start: nil, count: 0))
        }
        return body(UnsafeBufferPointer(start: pointer, count: Int(sqlite3_column_bytes(handle, index))))
    }

    /// Whether column `index` holds the bytes of `text` (NULL reads as the empty string), compared
    /// in place.
    func textEquals(_ index: Int32, _ text: String) -> Bool {
        var text = text
        return withTextBytes(index) { column in text.withUTF8 { column.elementsEqual($0) } }
    }

    /// How column `index` sorts against `text` by SQLite's `BINARY` collation (their bytes, then the
    /// shorter first; NULL reads as the empty string): negative before it, zero equal, positive after.
    func compareText(_ index: Int32, _ text: String) -> Int {
        var text = text
        return withTextBytes(index) { column in text.withUTF8 { Self.binaryOrder(column, $0) } }
    }

    /// The order of `left` and `right` by SQLite's `BINARY` collation: `memcmp` of the bytes they
    /// share, then the shorter first.
    static func binaryOrder(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Int {
        let shared = min(left.count, right.count)
        if shared > 0, let leftBase = left.baseAddress, let rightBase = right.baseAddress {
            let order = memcmp(leftBase, rightBase, shared)
            if order != 0 { return Int(order) }
        }
        return left.count - right.count
    }

    /// Column `index` as text, `nil` when NULL.
    func optionalText(_ index: Int32) -> String? {
        isNull(index) ? nil : text(index)
    }

    /// Column `index` as bytes, copied out; a NULL pointer is an empty blob.
    func blob(_ index: Int32) -> Data {
        guard let pointer = sqlite3_column_blob(handle, index) else { return Data() }
        return Data(bytes: pointer, count: Int(sqlite3_column_bytes(handle, index)))
    }

    /// Column `index` through the value enum, for generic code.
    func value(_ index: Int32) -> DatabaseValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_NULL: .null
        case SQLITE_INTEGER: .integer(int64(index))
        case SQLITE_FLOAT: .real(double(index))
        case SQLITE_TEXT: .text(text(index))
        default: .blob(blob(index))
        }
    }
}

@available(*, unavailable)
extension Statement: Sendable {}
