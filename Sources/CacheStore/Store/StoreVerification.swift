import FoundationEssentials
import HTTPCore

/// The checks of ``CacheStore/verify()``, run on one reader connection inside one read transaction.
///
/// Where SQLite reports a part of the file damaged, that part becomes a problem and the checks go on
/// with what can still be read: a table is read in row order and, from its end, in reverse row order,
/// so that one damaged page costs only the rows it holds; a body that cannot be read costs that body.
/// Problems about a body name the URLs of the entries that use it.
final class StoreVerification {
    /// An entry row as the checks need it: its URL is read again only for a problem that names it.
    private struct EntryRow {
        var id: Int64
        var bodyID: Int64
        var bodySize: Int64
        /// Whether it is a partial entry, whose size is that of its parts, not of its body.
        var isPartial: Bool
    }

    /// A body's recorded SHA-256, kept in four words rather than a `Data` of its own.
    private enum RecordedHash: Equatable {
        /// `NULL`: a body still being written, not checked.
        case pending
        case digest(UInt64, UInt64, UInt64, UInt64)
        /// Not 32 bytes, so no SHA-256 matches it.
        case malformed

        init(_ bytes: Data?) {
            guard let bytes else {
                self = .pending
                return
            }
            guard bytes.count == 32 else {
                self = .malformed
                return
            }
            let words = bytes.withUnsafeBytes { raw in (0..<4).map { raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self) } }
            self = .digest(words[0], words[1], words[2], words[3])
        }
    }

    /// A body row as the checks need it.
    private struct BodyRow {
        var id: Int64
        var hash: RecordedHash
        var size: Int64
        var chunkCount: Int64
        var refCount: Int64
    }

    /// What a problem's message names, read when the checks are done: the URLs of a body's entries,
    /// or an entry's URL.
    private enum Subject: Hashable {
        case none
        case body(Int64)
        case entry(Int64)
    }

    /// A problem found, whose message is written once the URLs it names are read.
    private struct Finding {
        var kind: VerifyReport.Problem.Kind
        var subject: Subject
        /// The message, given how the subject is named (empty for ``Subject/none``).
        var message: (String) -> String
    }

    private let connection: Connection
    /// How a chunk's checksum is read: `checksum`, or `NULL` in a store of a version before 4.
    private let checksumColumn: String
    /// Whether the store has partial entries' parts (schema version 6).
    private let hasParts: Bool
    private let cancellation: CancellationFlag
    private var findings: [Finding] = []
    private var checkedBodies = 0
    private var checkedEntries = 0
    /// How many of the entries that could be read, and of their parts, use each body.
    private var usersByBody: [Int64: Int32] = [:]
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
        let entries = try scan("entries", "SELECT id, body_id, body_size, \(partial) FROM entry", id: \.id) { row in
            EntryRow(id: row.int64(0), bodyID: row.int64(1), bodySize: row.int64(2), isPartial: row.int64(3) != 0)
        }
        for entry in entries.rows { usersByBody[entry.bodyID, default: 0] += 1 }
        if hasParts {
            // A part's body is used by its partial entry, as an entry's body is.
            var parts: [Int64: [Int64]] = [:]
            let read: Void? = try readable("The parts of partial entries cannot be read") {
                try connection.forEachRow(
                    "SELECT p.body_id, p.entry_id FROM entry_part p JOIN entry e ON e.id = p.entry_id ORDER BY p.body_id"
                ) { row in
                    usersByBody[row.int64(0), default: 0] += 1
                    parts[row.int64(1), default: []].append(row.int64(0))
                }
            }
            partBodies = read.map { parts }
        }
        checkedEntries = entries.rows.count
        let bodies = try scan("bodies", "SELECT id, hash, size, chunk_count, ref_count FROM body", id: \.id) { row in
            BodyRow(
                id: row.int64(0), hash: RecordedHash(row.isNull(1) ? nil : row.blob(1)), size: row.int64(2),
                chunkCount: row.int64(3), refCount: row.int64(4))
        }
        for body in bodies.rows where body.hash != .pending {
            try cancellation.check()
            if try checkChunks(of: body) { checkedBodies += 1 }
        }
        if entries.isComplete {
            checkReferenceCounts(bodies.rows)
        }
        checkBodiesOfEntries(entries.rows, bodies: bodies)
        if entries.isComplete, bodies.isComplete {
            try checkTotals(entries.rows, bodies.rows)
        }
        return try report()
    }

    // MARK: - Checks

    /// Re-hashes the chunks of `body`, checks their CRC-32s, and compares their order, size and hash
    /// with its record; returns whether they could be read.
    private func checkChunks(of body: BodyRow) throws -> Bool {
        let id = body.id
        var hasher = SHA256()
        var size: Int64 = 0
        var expectedSeq: Int64 = 0
        var chunksInOrder = true
        var checksummed = 0
        var mismatched: [Int64] = []
        let read: Void? = try readable({ "\($0) cannot be read" }, about: .body(id)) {
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
            finding(.bodyChunks, about: .body(id)) { [expectedSeq] in
                "\($0) has \(expectedSeq) chunks, not 0..<\(body.chunkCount) in order."
            }
        }
        if size != body.size {
            finding(.bodySize, about: .body(id)) { [size] in "\($0) has \(size) bytes, not the \(body.size) recorded." }
        }
        if RecordedHash(hasher.finalize()) != body.hash {
            finding(.bodyHash, about: .body(id)) { "\($0) does not hash to its SHA-256." }
        }
        if !mismatched.isEmpty {
            let list = Self.listing(mismatched.map(String.init), atMost: 10)
            finding(.chunkChecksum, about: .body(id)) { "\($0) has chunks that do not match their CRC-32 (\(list))." }
        }
        if checksummed != 0, checksummed != Int(expectedSeq) {
            finding(.chunkChecksum, about: .body(id)) { [checksummed, expectedSeq] in
                "\($0) has a CRC-32 on \(checksummed) of its \(expectedSeq) chunks, not on all or none."
            }
        }
        return true
    }

    /// Compares each complete body's reference count with the entries that use it.
    private func checkReferenceCounts(_ bodies: [BodyRow]) {
        for body in bodies where body.hash != .pending {
            let users = Int64(usersByBody[body.id] ?? 0)
            guard body.refCount != users || users == 0 else { continue }
            finding(.referenceCount, about: .body(body.id)) {
                "\($0) records \(body.refCount) references but \(users) entries use it."
            }
        }
    }

    /// Checks that every entry's body exists and has the size the entry records, and that the parts
    /// of a partial entry hold the bytes it records.
    private func checkBodiesOfEntries(_ entries: [EntryRow], bodies: ScanResult<BodyRow>) {
        for entry in entries {
            let id = entry.id
            if entry.isPartial, let partBodies, bodies.isComplete {
                checkParts(of: entry, bodies: partBodies[id] ?? [], among: bodies.rows)
            }
            if let body = Self.row(entry.bodyID, in: bodies.rows) {
                if body.size != entry.bodySize, !entry.isPartial {
                    finding(.bodySize, about: .entry(id)) {
                        "Entry \(id) for \($0) records a body size that differs from its body."
                    }
                }
            } else if bodies.isComplete {
                finding(.missingBody, about: .entry(id)) { "Entry \(id) for \($0) points at a missing body." }
            }
        }
    }

    /// Compares the bytes that partial `entry` records with those its parts' bodies hold.
    private func checkParts(of entry: EntryRow, bodies: [Int64], among rows: [BodyRow]) {
        let held = bodies.reduce(0) { $0 + (Self.row($1, in: rows)?.size ?? 0) }
        guard held != entry.bodySize else { return }
        let subject = { (url: String) in "Partial entry \(entry.id) for \(url) records \(entry.bodySize) bytes in parts" }
        if bodies.isEmpty {
            finding(.missingBody, about: .entry(entry.id)) { "\(subject($0)), but has no parts." }
        } else {
            finding(.bodySize, about: .entry(entry.id)) { "\(subject($0)), but its parts hold \(held)." }
        }
    }

    /// Compares the running totals with the rows, naming each figure that differs.
    private func checkTotals(_ entries: [EntryRow], _ bodies: [BodyRow]) throws {
        let read = try readable("The running totals cannot be read") { try CacheStore.recordedTotals(connection) }
        guard let read else { return }
        guard let totals = read else {
            problem(.totals, "The running totals are missing from the store.")
            return
        }
        // Counted in place: a filtered copy of the bodies was the verification's peak of memory.
        var (bodyCount, bodyBytes): (Int64, Int64) = (0, 0)
        for body in bodies where body.hash != .pending {
            bodyCount += 1
            bodyBytes += body.size
        }
        let scanned = StoreTotals(
            entryCount: Int64(entries.count), entryBytes: entries.reduce(0) { $0 + $1.bodySize },
            bodyCount: bodyCount, bodyBytes: bodyBytes)
        let differences = totals.differences(fromCounted: scanned)
        if !differences.isEmpty {
            problem(.totals, "The running totals disagree with the rows: \(differences.joined(separator: ", ")).")
        }
    }

    /// The row of `id` among `rows`, which are in id order.
    private static func row(_ id: Int64, in rows: [BodyRow]) -> BodyRow? {
        var lower = 0
        var upper = rows.count
        while lower < upper {
            let middle = (lower + upper) / 2
            if rows[middle].id < id { lower = middle + 1 } else { upper = middle }
        }
        return lower < rows.count && rows[lower].id == id ? rows[lower] : nil
    }

    // MARK: - Reading what can be read

    /// The rows of one table in id order, and whether every row could be read.
    private struct ScanResult<Row> {
        var rows: [Row] = []
        var isComplete = true
    }

    /// Reads the rows of `select` (which selects `id` first) in row order; when that stops at a
    /// damaged part, reads them again from the end, in reverse row order, and reports the rows
    /// between the two as unreadable (when the table has a `name` to report it by).
    private func scan<Row>(
        _ name: String?, _ select: String, id: (Row) -> Int64, _ decode: (Statement) -> Row
    ) throws -> ScanResult<Row> {
        var result = try scanInRowOrder(name, select, decode)
        // A damaged tree may give rows out of order or twice: the checks look rows up by id in order.
        if !zip(result.rows, result.rows.dropFirst()).allSatisfy({ id($0) < id($1) }) {
            var seen = Set<Int64>()
            result.rows = result.rows.filter { seen.insert(id($0)).inserted }.sorted { id($0) < id($1) }
        }
        return result
    }

    /// ``scan(_:_:id:_:)``'s rows as SQLite gives them.
    private func scanInRowOrder<Row>(
        _ name: String?, _ select: String, _ decode: (Statement) -> Row
    ) throws -> ScanResult<Row> {
        var result = ScanResult<Row>()
        var lastForward: Int64?
        let forward = try attempt {
            try connection.forEachRow("\(select) ORDER BY id") { row in
                lastForward = row.int64(0)
                result.rows.append(decode(row))
            }
        }
        guard let error = forward else { return result }
        result.isComplete = false
        var lastBackward: Int64?
        var fromTheEnd: [Row] = []
        _ = try attempt {
            try connection.forEachRow("\(select) ORDER BY id DESC") { row in
                let id = row.int64(0)
                if let lastForward, id <= lastForward { return }
                lastBackward = id
                fromTheEnd.append(decode(row))
            }
        }
        result.rows.append(contentsOf: fromTheEnd.reversed())
        guard let name else { return result }
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
    /// be read", given how `subject` is named) as a problem when SQLite finds the file damaged, so that
    /// the checks go on.
    @discardableResult
    private func readable<T>(
        _ failure: @escaping (String) -> String, about subject: Subject, _ body: () throws -> T
    ) throws -> T? {
        var value: T?
        if let error = try attempt({ value = try body() }) {
            finding(.unreadable, about: subject) { "\(failure($0)): the store file is damaged there (\(error.message))." }
        }
        return value
    }

    /// ``readable(_:about:_:)`` of a failure that names no entry.
    @discardableResult
    private func readable<T>(_ failure: String, _ body: () throws -> T) throws -> T? {
        try readable({ _ in failure }, about: .none, body)
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

    private func problem(_ kind: VerifyReport.Problem.Kind, _ message: String) {
        finding(kind, about: .none) { _ in message }
    }

    private func finding(_ kind: VerifyReport.Problem.Kind, about subject: Subject, _ message: @escaping (String) -> String) {
        findings.append(Finding(kind: kind, subject: subject, message: message))
    }

    /// The report: each finding's message, naming a body by the URLs of the entries that use it (the
    /// first three, and how many more) and its id, and an entry by its URL. The URLs are read now, for
    /// the findings alone, as the checks read the rows: past a damaged part where they can be.
    private func report() throws -> VerifyReport {
        var bodies: Set<Int64> = []
        var entries: Set<Int64> = []
        for finding in findings {
            switch finding.subject {
            case .none: break
            case .body(let id): bodies.insert(id)
            case .entry(let id): entries.insert(id)
            }
        }
        var urlsOfBody: [Int64: [String]] = [:]
        var urlOfEntry: [Int64: String] = [:]
        if !bodies.isEmpty || !entries.isEmpty {
            // In id order, as the checks read the entries; only the URLs named are copied out.
            let rows = try scan(nil, "SELECT id, url, body_id FROM entry", id: \.id) { row in
                let (id, bodyID) = (row.int64(0), row.int64(2))
                let named = entries.contains(id) || bodies.contains(bodyID)
                return (id: id, url: named ? row.text(1) : nil, bodyID: bodyID)
            }.rows
            for row in rows {
                guard let url = row.url else { continue }
                if entries.contains(row.id) { urlOfEntry[row.id] = url }
                if bodies.contains(row.bodyID) { urlsOfBody[row.bodyID, default: []].append(url) }
            }
            if hasParts, !bodies.isEmpty {
                _ = try attempt {
                    try connection.forEachRow(
                        "SELECT p.body_id, e.url FROM entry_part p JOIN entry e ON e.id = p.entry_id ORDER BY p.body_id"
                    ) { row in
                        if bodies.contains(row.int64(0)) { urlsOfBody[row.int64(0), default: []].append(row.text(1)) }
                    }
                }
            }
        }
        let problems = findings.map { finding in
            switch finding.subject {
            case .none:
                return VerifyReport.Problem(kind: finding.kind, message: finding.message(""), urls: [])
            case .body(let id):
                let urls = urlsOfBody[id] ?? []
                let name = urls.isEmpty ? "Body \(id)" : "The body of \(Self.listing(urls, atMost: 3)) (body \(id))"
                return VerifyReport.Problem(kind: finding.kind, message: finding.message(name), urls: urls)
            case .entry(let id):
                let url = urlOfEntry[id]
                return VerifyReport.Problem(
                    kind: finding.kind, message: finding.message(url ?? "a URL that cannot be read"),
                    urls: url.map { [$0] } ?? [])
            }
        }
        return VerifyReport(problems: problems, checkedBodies: checkedBodies, checkedEntries: checkedEntries)
    }

    /// The first `limit` of `items`, separated by commas, and how many more there are.
    private static func listing(_ items: [String], atMost limit: Int) -> String {
        let named = items.prefix(limit).joined(separator: ", ")
        return items.count > limit ? "\(named) and \(items.count - limit) more" : named
    }
}

@available(*, unavailable)
extension StoreVerification: Sendable {}
