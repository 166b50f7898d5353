import CSQLite
import FoundationEssentials
import HTTPCore

/// A damaged store opened read-only for ``CacheStore/salvage(from:into:configuration:)``. Every read
/// tolerates errors: a scan keeps the rows it got before an error and reports the error as a sentence;
/// a failed read of one entry becomes a ``RowFailure`` that costs that entry alone.
final class SalvageSource {
    /// Why one entry could not be salvaged: a sentence naming the entry.
    struct RowFailure: Swift.Error, CustomStringConvertible {
        var message: String
        var description: String { message }
    }

    /// A body row of the damaged store.
    struct Body {
        var id: Int64
        var hash: Data
        var size: Int64
        var chunkCount: Int64
    }

    /// An entry row of the damaged store: the values of the copied columns, and its body.
    struct EntryRow {
        var id: Int64
        var url: String
        var partition: String
        var values: [DatabaseValue]
        var body: Body

        /// How loss messages name the entry: its URL, and its partition unless it is the guests'.
        var name: String {
            partition == "guest" ? url : "\(url) (partition \(partition))"
        }
    }

    /// What went wrong with a read, in words: SQLite's own sentence without the SQL, which names
    /// nothing a user knows, and that the file is damaged there when that is what SQLite says.
    static func reason(_ error: any Swift.Error) -> String {
        guard let error = error as? SQLiteError else { return "\(error)" }
        return error.isCorruption ? "the file is damaged there (\(error.message))" : error.message
    }

    let path: String
    private let connection: Connection
    /// A sentence when a part of the damaged store was left unread on opening it: its write-ahead
    /// log, or what a newer version's schema holds.
    let openingProblem: String?

    // MARK: - Opening

    /// Refuses a file that holds nothing SQLite can read: missing, not a regular file, empty, or
    /// without the SQLite header.
    static func checkHeader(path: String) throws(CacheStore.Error) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: path) else {
            throw CacheStore.Error(
                code: .fileSystem, message: "The damaged store '\(path)' does not exist or cannot be read."
            )
        }
        guard attributes[.type] as? FileAttributeType == .typeRegular else {
            throw CacheStore.Error(
                code: .notADatabase, message: "The damaged store path '\(path)' is not a regular file."
            )
        }
        guard let handle = OpenFile(forReadingAtPath: path) else {
            throw CacheStore.Error(
                code: .fileSystem, message: "The damaged store '\(path)' cannot be opened for reading."
            )
        }
        defer { try? handle.close() }
        let header = (try? handle.read(upToCount: 16)) ?? Data()
        if header.isEmpty {
            throw CacheStore.Error(
                code: .notADatabase, message: "The file '\(path)' is empty; nothing can be salvaged from it."
            )
        }
        guard header == Data("SQLite format 3\0".utf8) else {
            throw CacheStore.Error(
                code: .notADatabase,
                message: "The file '\(path)' is not an SQLite database; nothing can be salvaged from it."
            )
        }
    }

    /// Opens `path` read-only, or as immutable when SQLite cannot open it read-only (a write-ahead log
    /// without a shared-memory file beside a store whose folder cannot be written), and checks it is a
    /// webcache store. Immutable reading leaves the write-ahead log out, which ``openingProblem`` says
    /// when the log holds anything.
    init(path: String) throws(CacheStore.Error) {
        self.path = path
        var opened: Connection?
        var lastError: SQLiteError?
        var immutable = false
        for parameter in ["mode=ro", "immutable=1"] {
            do {
                let candidate = try Connection(
                    path: "\(StoreFile.fileURI(path))?\(parameter)", flags: SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
                )
                // A truncated file whose header counts more pages than it has is refused as corrupt
                // unless the schema is "writable"; the connection is read-only, so nothing is written.
                try candidate.execute(sql: "PRAGMA writable_schema = ON")
                _ = try candidate.int64("SELECT count(*) FROM sqlite_schema")
                opened = candidate
                immutable = parameter == "immutable=1"
                break
            } catch {
                lastError = error
                // SQLite could not open or make the -wal and -shm files: CANTOPEN as root, READONLY otherwise.
                if error.primaryCode != SQLITE_CANTOPEN && error.primaryCode != SQLITE_READONLY { break }
            }
        }
        guard let opened else {
            let cause = lastError.map { "\($0)" } ?? "unknown error"
            throw CacheStore.Error(
                code: lastError?.isCorruption == true ? .corrupt : .database,
                message: "The schema of the damaged store '\(path)' cannot be read, so nothing can be salvaged "
                    + "from it (\(cause)).",
                cause: lastError
            )
        }
        connection = opened
        let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
        let version = (try? connection.int64("PRAGMA user_version")) ?? nil
        if immutable && log > 0 {
            openingProblem =
                "The write-ahead log '\(path)-wal' was not read: SQLite cannot read it without making its index "
                + "beside the store, in a folder that cannot be written, so the changes in it were not salvaged."
        } else if let version, version > Int64(Schema.latestVersion) {
            // What a newer version added (tables, columns) is not known here, so it cannot be copied.
            openingProblem =
                "The store '\(path)' was written by a newer version of webcache (schema version \(version); this "
                + "one knows \(Schema.latestVersion)): only what this version knows of it was salvaged; salvage it "
                + "with the newer version to keep the rest."
        } else {
            openingProblem = nil
        }
        let applicationID = (try? connection.int64("PRAGMA application_id")) ?? nil
        guard applicationID == Int64(Schema.applicationID) else {
            throw CacheStore.Error(
                code: .notAStore,
                message: "The SQLite database '\(path)' is not a webcache store (its application id is "
                    + "\(applicationID.map(String.init) ?? "unreadable")); nothing can be salvaged from it."
            )
        }
    }

    // MARK: - Scans

    /// The entry ids found by three scans (row id forwards, backwards, and the identity index), with a
    /// sentence for each scan that stopped early.
    func entryIDs() -> (Set<Int64>, [String]) {
        var ids = Set<Int64>()
        var problems: [String] = []
        let scans = [
            ("in row order", "SELECT id FROM entry ORDER BY id"),
            ("in reverse row order", "SELECT id FROM entry ORDER BY id DESC"),
            ("by identity", "SELECT id FROM entry ORDER BY partition, method, url, vary_key"),
        ]
        for (name, sql) in scans {
            do {
                try connection.forEachRow(sql) { row in ids.insert(row.int64(0)) }
            } catch {
                problems.append("Reading the entries of '\(path)' \(name) stopped early: \(Self.reason(error)).")
            }
        }
        return (ids, problems)
    }

    /// The entry count of the running totals, if that row can be read.
    func recordedEntryCount() -> Int? {
        ((try? connection.int64("SELECT entry_count FROM store_totals WHERE id = 1")) ?? nil).map { Int($0) }
    }

    /// The names of the entry table's columns.
    func entryColumns() -> Set<String> {
        var names = Set<String>()
        try? connection.forEachRow("SELECT name FROM pragma_table_info('entry')") { row in names.insert(row.text(0)) }
        return names
    }

    /// Calls `copy` with every readable page edge as (partition, page_url, resource_url, kind,
    /// failure), one at a time, in key order; when that scan stops early, again from the end in
    /// reverse order (so `copy` may see an edge twice, and must keep it once). Returns a sentence for
    /// each scan that stopped early.
    ///
    /// - Throws: What `copy` throws, which ends the scans.
    func forEachPageEdge(_ copy: ([DatabaseValue]) throws -> Void) throws -> [String] {
        var problems: [String] = []
        let columns = "partition, page_url, resource_url, kind, failure"
        let scans = [
            ("in order", "SELECT \(columns) FROM page_edge ORDER BY partition, page_url, resource_url"),
            (
                "in reverse order",
                "SELECT \(columns) FROM page_edge ORDER BY partition DESC, page_url DESC, resource_url DESC"
            ),
        ]
        for (name, sql) in scans {
            var copyFailure: (any Swift.Error)?
            do {
                try connection.forEachRow(sql) { row in
                    do {
                        try copy((0..<5).map { row.value(Int32($0)) })
                    } catch {
                        copyFailure = error
                        throw error
                    }
                }
                // Read whole in order: the reverse scan would find nothing more.
                break
            } catch {
                if let copyFailure { throw copyFailure }
                problems.append("Reading the page edges of '\(path)' \(name) stopped early: \(Self.reason(error)).")
            }
        }
        return problems
    }

    // MARK: - One entry

    /// Entry `id` with the values of `columns` and its body row.
    func entryRow(id: Int64, columns: [String]) throws(RowFailure) -> EntryRow {
        var found: EntryRow?
        do {
            try connection.forEachRow(
                "SELECT url, body_id, partition, \(columns.joined(separator: ", ")) FROM entry WHERE id = ?",
                [.integer(id)]
            ) { row in
                let values = (0..<columns.count).map { row.value(Int32($0 + 3)) }
                found = EntryRow(
                    id: id, url: row.text(0), partition: row.text(2), values: values,
                    body: Body(id: row.int64(1), hash: Data(), size: 0, chunkCount: 0)
                )
            }
        } catch {
            throw RowFailure(
                message: "An entry (row \(id)) was lost: its row cannot be read because \(Self.reason(error)).")
        }
        guard var entry = found else {
            throw RowFailure(message: "An entry (row \(id)) was lost: its row cannot be found again.")
        }
        var body: Body?
        do {
            try connection.forEachRow(
                "SELECT hash, size, chunk_count FROM body WHERE id = ?", [.integer(entry.body.id)]
            ) { row in
                body = Body(id: entry.body.id, hash: row.blob(0), size: row.int64(1), chunkCount: row.int64(2))
            }
        } catch {
            throw RowFailure(
                message: "\(entry.name) was lost: the record of its body cannot be read because \(Self.reason(error)).")
        }
        guard let body, body.hash.count == 32 else {
            throw RowFailure(message: "\(entry.name) was lost: its body is missing.")
        }
        entry.body = body
        return entry
    }

    /// The parts of partial entry `entry` (none for a complete one), in order, each with its body's
    /// record: where the part starts in the representation.
    func parts(of entry: EntryRow) throws(RowFailure) -> [(first: Int64, body: Body)] {
        var parts: [(first: Int64, body: Body)] = []
        do {
            try connection.forEachRow(
                """
                SELECT p.first, b.id, b.hash, b.size, b.chunk_count FROM entry_part p \
                JOIN body b ON b.id = p.body_id WHERE p.entry_id = ? ORDER BY p.first
                """,
                [.integer(entry.id)]
            ) { row in
                parts.append((row.int64(0), Body(id: row.int64(1), hash: row.blob(2), size: row.int64(3),
                                                 chunkCount: row.int64(4))))
            }
        } catch {
            throw RowFailure(message: "\(entry.name) was lost: the record of its parts cannot be read because "
                                 + "\(Self.reason(error)).")
        }
        if parts.contains(where: { $0.body.hash.count != 32 }) {
            throw RowFailure(message: "\(entry.name) was lost: the body of one of its parts is missing.")
        }
        return parts
    }

    /// Copies the chunks of `entry`'s body, or of the body of its part from byte `part` on, into
    /// `destination` under `bodyID`, checking their order, total size and SHA-256. A problem of the
    /// damaged store throws ``RowFailure``; an error of `destination` is rethrown as it is.
    func copyChunks(
        of entry: EntryRow, part: (first: Int64, body: Body)? = nil, into destination: Connection, bodyID: Int64
    ) throws {
        let body = part?.body ?? entry.body
        let its = part.map { "the body of its part from byte \($0.first)" } ?? "its body"
        let lost = "\(entry.name) was lost"
        let statement: Statement
        do {
            statement = try connection.cachedStatement(
                sql: "SELECT seq, data FROM body_chunk WHERE body_id = ? ORDER BY seq"
            )
        } catch {
            throw RowFailure(message: "\(lost): \(its) cannot be read because \(Self.reason(error)).")
        }
        statement.bind([.integer(body.id)])
        defer { statement.reset() }
        var hasher = SHA256()
        var size: Int64 = 0
        var seq: Int64 = 0
        while true {
            let hasRow: Bool
            do {
                hasRow = try statement.step()
            } catch {
                throw RowFailure(
                    message: "\(lost): part \(seq + 1) of \(its) cannot be read because \(Self.reason(error)).")
            }
            guard hasRow else { break }
            guard statement.int64(0) == seq else {
                throw RowFailure(message: "\(lost): part \(seq + 1) of \(its) is missing.")
            }
            let data = statement.blob(1)
            hasher.update(data)
            size += Int64(data.count)
            try CacheStore.insertChunk(destination, bodyID: bodyID, seq: seq, data: data)
            seq += 1
        }
        guard seq == body.chunkCount, size == body.size else {
            throw RowFailure(
                message: "\(lost): \(its) has \(seq) parts of \(size) bytes in all, not the \(body.chunkCount) "
                    + "parts of \(body.size) bytes recorded."
            )
        }
        guard hasher.finalize() == body.hash else {
            throw RowFailure(message: "\(lost): \(its) no longer hashes to its SHA-256.")
        }
    }
}

@available(*, unavailable)
extension SalvageSource: Sendable {}
