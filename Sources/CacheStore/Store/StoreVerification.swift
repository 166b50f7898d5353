import FoundationEssentials
import HTTPCore

/// The checks of ``CacheStore/verify()``, run on one reader connection inside one read transaction.
///
/// Where SQLite reports a part of the file damaged, that part becomes a problem and the checks go on
/// with what can still be read: a table is read in row order and, from its end, in reverse row order,
/// so that one damaged page costs only the rows it holds; a body that cannot be read costs that body.
/// Problems about a body name the URLs of the entries that use it.
final class StoreVerification {
    /// An entry row as the checks need it.
    private struct EntryRow {
        var url: String
        var bodyID: Int64
        var bodySize: Int64
        /// Whether it is a partial entry, whose size is that of its parts, not of its body.
        var isPartial: Bool
    }

    /// A body row as the checks need it; `hash` is `nil` for a body still being written.
    private struct BodyRow {
        var hash: Data?
        var size: Int64
        var chunkCount: Int64
        var refCount: Int64
    }

    private let connection: Connection
    /// How a chunk's checksum is read: `checksum`, or `NULL` in a store of a version before 4.
    private let checksumColumn: String
    /// Whether the store has partial entries' parts (schema version 6).
    private let hasParts: Bool
    private let cancellation: CancellationFlag
    private var report = VerifyReport(problems: [], checkedBodies: 0, checkedEntries: 0)
    /// The URLs of the entries that use each body, among the entries that could be read.
    private var urlsByBody: [Int64: [String]] = [:]
    /// The bodies of each partial entry's parts, by entry id; `nil` when the parts could not be read.
    private var partBodies: [Int64: [Int64]]?

    init(connection: Connection, checksumColumn: String, hasParts: Bool, cancellation: CancellationFlag) {
        self.connection = connection
        self.checksumColumn = checksumColumn
        self.hasParts = hasParts
        self.cancellation = cancellation
    }

    /// Runs every check and returns what they found.
    ///
    /// - Throws: `CancellationError` when cancelled (checked between steps and bodies); an
    ///   ``SQLiteError`` that is not about damage to the file.
    func run() throws -> VerifyReport {
        try readable("SQLite's integrity check stopped") {
            try connection.forEachRow("PRAGMA integrity_check") { row in
                let line = row.text(0)
                if line != "ok" { problem(.integrity, "SQLite integrity check: \(line)") }
            }
        }
        try cancellation.check()
        try readable("SQLite's foreign key check stopped") {
            try connection.forEachRow("PRAGMA foreign_key_check") { row in
                problem(
                    .integrity, "Row \(row.int64(1)) of table \(row.text(0)) breaks a foreign key to \(row.text(2)).")
            }
        }
        let partial = hasParts ? "complete_length IS NOT NULL" : "0"
        let entries = try scan("entries", "SELECT id, url, body_id, body_size, \(partial) FROM entry") { row in
            EntryRow(url: row.text(1), bodyID: row.int64(2), bodySize: row.int64(3), isPartial: row.int64(4) != 0)
        }
        for id in entries.rows.keys.sorted() {
            if let entry = entries.rows[id] { urlsByBody[entry.bodyID, default: []].append(entry.url) }
        }
        if hasParts {
            // A part's body is used by its partial entry, as an entry's body is.
            var parts: [Int64: [Int64]] = [:]
            let read: Void? = try readable("The parts of partial entries cannot be read") {
                try connection.forEachRow(
                    """
                    SELECT p.body_id, e.url, p.entry_id FROM entry_part p JOIN entry e ON e.id = p.entry_id \
                    ORDER BY p.body_id
                    """
                ) { row in
                    urlsByBody[row.int64(0), default: []].append(row.text(1))
                    parts[row.int64(2), default: []].append(row.int64(0))
                }
            }
            partBodies = read.map { parts }
        }
        report.checkedEntries = entries.rows.count
        let bodies = try scan("bodies", "SELECT id, hash, size, chunk_count, ref_count FROM body") { row in
            BodyRow(hash: row.isNull(1) ? nil : row.blob(1), size: row.int64(2), chunkCount: row.int64(3),
                    refCount: row.int64(4))
        }
        for id in bodies.rows.keys.sorted() {
            guard let body = bodies.rows[id], let hash = body.hash else { continue }
            try cancellation.check()
            if try checkChunks(of: id, body, hash: hash) { report.checkedBodies += 1 }
        }
        if entries.isComplete {
            checkReferenceCounts(bodies.rows)
        }
        checkBodiesOfEntries(entries.rows, bodies: bodies)
        if entries.isComplete, bodies.isComplete {
            try checkTotals(entries.rows, bodies.rows)
        }
        return report
    }

    // MARK: - Checks

    /// Re-hashes the chunks of body `id`, checks their CRC-32s, and compares their order, size and
    /// hash with its record; returns whether they could be read.
    private func checkChunks(of id: Int64, _ body: BodyRow, hash: Data) throws -> Bool {
        let subject = describe(body: id)
        var hasher = SHA256()
        var size: Int64 = 0
        var expectedSeq: Int64 = 0
        var chunksInOrder = true
        var checksummed = 0
        var mismatched: [Int64] = []
        let read: Void? = try readable("\(subject.text) cannot be read", urls: subject.urls) {
            try connection.forEachRow(
                "SELECT seq, data, \(checksumColumn) FROM body_chunk WHERE body_id = ? ORDER BY seq", [.integer(id)]
            ) { row in
                let seq = row.int64(0)
                if seq != expectedSeq { chunksInOrder = false }
                expectedSeq += 1
                let data = row.blob(1)
                size += Int64(data.count)
                hasher.update(data)
                guard !row.isNull(2) else { return }
                checksummed += 1
                if ChunkChecksum(of: data).value(bodyID: id, seq: seq) != row.int64(2) { mismatched.append(seq) }
            }
        }
        guard read != nil else { return false }
        if !chunksInOrder || expectedSeq != body.chunkCount {
            problem(
                .bodyChunks, "\(subject.text) has \(expectedSeq) chunks, not 0..<\(body.chunkCount) in order.",
                urls: subject.urls)
        }
        if size != body.size {
            problem(.bodySize, "\(subject.text) has \(size) bytes, not the \(body.size) recorded.", urls: subject.urls)
        }
        if hasher.finalize() != hash {
            problem(.bodyHash, "\(subject.text) does not hash to its SHA-256.", urls: subject.urls)
        }
        if !mismatched.isEmpty {
            let list = Self.listing(mismatched.map(String.init), atMost: 10)
            problem(
                .chunkChecksum, "\(subject.text) has chunks that do not match their CRC-32 (\(list)).",
                urls: subject.urls)
        }
        if checksummed != 0, checksummed != Int(expectedSeq) {
            problem(
                .chunkChecksum,
                "\(subject.text) has a CRC-32 on \(checksummed) of its \(expectedSeq) chunks, not on all or none.",
                urls: subject.urls)
        }
        return true
    }

    /// Compares each complete body's reference count with the entries that use it.
    private func checkReferenceCounts(_ bodies: [Int64: BodyRow]) {
        for id in bodies.keys.sorted() {
            guard let body = bodies[id], body.hash != nil else { continue }
            let users = urlsByBody[id]?.count ?? 0
            guard body.refCount != Int64(users) || users == 0 else { continue }
            let subject = describe(body: id)
            problem(
                .referenceCount, "\(subject.text) records \(body.refCount) references but \(users) entries use it.",
                urls: subject.urls)
        }
    }

    /// Checks that every entry's body exists and has the size the entry records, and that the parts
    /// of a partial entry hold the bytes it records.
    private func checkBodiesOfEntries(_ entries: [Int64: EntryRow], bodies: ScanResult<BodyRow>) {
        for id in entries.keys.sorted() {
            guard let entry = entries[id] else { continue }
            if entry.isPartial, let partBodies, bodies.isComplete {
                checkParts(of: id, entry, bodies: partBodies[id] ?? [], sizes: bodies.rows)
            }
            if let body = bodies.rows[entry.bodyID] {
                if body.size != entry.bodySize, !entry.isPartial {
                    problem(
                        .bodySize, "Entry \(id) for \(entry.url) records a body size that differs from its body.",
                        urls: [entry.url])
                }
            } else if bodies.isComplete {
                problem(.missingBody, "Entry \(id) for \(entry.url) points at a missing body.", urls: [entry.url])
            }
        }
    }

    /// Compares the bytes that partial entry `id` records with those its parts' bodies hold.
    private func checkParts(of id: Int64, _ entry: EntryRow, bodies: [Int64], sizes: [Int64: BodyRow]) {
        let held = bodies.reduce(0) { $0 + (sizes[$1]?.size ?? 0) }
        guard held != entry.bodySize else { return }
        let subject = "Partial entry \(id) for \(entry.url) records \(entry.bodySize) bytes in parts"
        if bodies.isEmpty {
            problem(.missingBody, "\(subject), but has no parts.", urls: [entry.url])
        } else {
            problem(.bodySize, "\(subject), but its parts hold \(held).", urls: [entry.url])
        }
    }

    /// Compares the running totals with the rows, naming each figure that differs.
    private func checkTotals(_ entries: [Int64: EntryRow], _ bodies: [Int64: BodyRow]) throws {
        let read = try readable("The running totals cannot be read") { try CacheStore.recordedTotals(connection) }
        guard let read else { return }
        guard let totals = read else {
            problem(.totals, "The running totals are missing from the store.")
            return
        }
        let complete = bodies.values.filter { $0.hash != nil }
        let scanned = StoreTotals(
            entryCount: Int64(entries.count), entryBytes: entries.values.reduce(0) { $0 + $1.bodySize },
            bodyCount: Int64(complete.count), bodyBytes: complete.reduce(0) { $0 + $1.size })
        let differences = totals.differences(fromCounted: scanned)
        if !differences.isEmpty {
            problem(.totals, "The running totals disagree with the rows: \(differences.joined(separator: ", ")).")
        }
    }

    // MARK: - Reading what can be read

    /// The rows of one table, and whether every row could be read.
    private struct ScanResult<Row> {
        var rows: [Int64: Row] = [:]
        var isComplete = true
    }

    /// Reads the rows of `select` (which selects `id` first) in row order; when that stops at a
    /// damaged part, reads them again from the end, in reverse row order, and reports the rows
    /// between the two as unreadable.
    private func scan<Row>(
        _ name: String, _ select: String, _ decode: (Statement) -> Row
    ) throws -> ScanResult<Row> {
        var result = ScanResult<Row>()
        var lastForward: Int64?
        let forward = try attempt {
            try connection.forEachRow("\(select) ORDER BY id") { row in
                lastForward = row.int64(0)
                result.rows[row.int64(0)] = decode(row)
            }
        }
        guard let error = forward else { return result }
        result.isComplete = false
        var lastBackward: Int64?
        _ = try attempt {
            try connection.forEachRow("\(select) ORDER BY id DESC") { row in
                let id = row.int64(0)
                if let lastForward, id <= lastForward { return }
                lastBackward = id
                result.rows[id] = decode(row)
            }
        }
        let range =
            switch (lastForward, lastBackward) {
            case let (first?, last?): " between rows \(first) and \(last)"
            case let (first?, nil): " after row \(first)"
            case let (nil, last?): " before row \(last)"
            case (nil, nil): ""
            }
        problem(.unreadable, "The \(name)\(range) cannot be read: the store file is damaged there (\(error.message)).")
        return result
    }

    /// Returns what `body` returns, or `nil` after reporting `failure` (such as "The body of … cannot
    /// be read") as a problem when SQLite finds the file damaged, so that the checks go on.
    @discardableResult
    private func readable<T>(_ failure: String, urls: [String] = [], _ body: () throws -> T) throws -> T? {
        var value: T?
        if let error = try attempt({ value = try body() }) {
            problem(.unreadable, "\(failure): the store file is damaged there (\(error.message)).", urls: urls)
        }
        return value
    }

    /// Runs `body`, and returns the error that stopped it when SQLite found the file damaged.
    private func attempt(_ body: () throws -> Void) throws -> SQLiteError? {
        do {
            try body()
            return nil
        } catch let error as SQLiteError where error.isCorruption {
            return error
        }
    }

    // MARK: - Wording

    private func problem(_ kind: VerifyReport.Problem.Kind, _ message: String, urls: [String] = []) {
        report.problems.append(VerifyReport.Problem(kind: kind, message: message, urls: urls))
    }

    /// How a message names body `id`: by the URLs of the entries that use it (the first three, and
    /// how many more), and its id.
    private func describe(body id: Int64) -> (text: String, urls: [String]) {
        let urls = urlsByBody[id] ?? []
        guard !urls.isEmpty else { return ("Body \(id)", []) }
        return ("The body of \(Self.listing(urls, atMost: 3)) (body \(id))", urls)
    }

    /// The first `limit` of `items`, separated by commas, and how many more there are.
    private static func listing(_ items: [String], atMost limit: Int) -> String {
        let named = items.prefix(limit).joined(separator: ", ")
        return items.count > limit ? "\(named) and \(items.count - limit) more" : named
    }
}

@available(*, unavailable)
extension StoreVerification: Sendable {}
