import CSQLite
import FoundationEssentials

extension CacheStore {
    // MARK: - Salvage

    /// Copies every entry of the damaged store at `damagedPath` whose body still verifies (a partial
    /// entry with every part), with the page → resource edges, into a new store at `newPath`.
    ///
    /// The damaged file is opened read-only (and, if SQLite cannot open it so, as immutable) and is
    /// never written. Entries are found through three scans (by row id forwards and backwards, and
    /// through the identity index), so that one damaged page of the table hides as few rows as
    /// possible. An entry is copied in one transaction of the new store, with its metadata, pin and
    /// hit count, only when its body's chunks are in order, add up to its recorded size and hash to
    /// its SHA-256; any row that cannot be read costs that entry alone.
    ///
    /// ```swift
    /// let report = try await CacheStore.salvage(from: "store.sqlite", into: "recovered.sqlite")
    /// print("\(report.savedEntries) saved, \(report.lostEntries) lost")
    /// ```
    ///
    /// - Parameters:
    ///   - damagedPath: The damaged store; it must be an SQLite file with a readable webcache schema.
    ///   - newPath: Where to create the new store; nothing may exist there yet. Its folder is created
    ///     (mode 0700, as it holds private data) when it does not exist.
    ///   - configuration: The new store's configuration.
    /// - Returns: What was saved and lost, with a sentence per problem.
    /// - Throws: ``CacheStore/Error``: ``Error/Code/fileSystem`` when `newPath` exists or the damaged
    ///   file cannot be read, ``Error/Code/notADatabase`` or ``Error/Code/notAStore`` when nothing in
    ///   the file can be salvaged, or the new store's errors (such as a full disk). On an error the new
    ///   store is removed again.
    public static func salvage(
        from damagedPath: String,
        into newPath: String,
        configuration: Configuration = Configuration()
    ) async throws -> SalvageReport {
        try SalvageSource.checkHeader(path: damagedPath)
        guard !FileManager.default.fileExists(atPath: newPath) else {
            throw Error(
                code: .fileSystem,
                message: "The file '\(newPath)' already exists; salvage writes into a new store only."
            )
        }
        try createFolder(forStoreAt: newPath)
        // Made under a private name and given `newPath` once complete: an interrupted salvage leaves
        // no store that looks whole, and no other process's store at that path is ever written or removed.
        let building = privatePath(for: newPath)
        defer { removeFiles(ofStoreAt: building) }
        var report: SalvageReport
        do {
            report = try await CacheStore(path: building, configuration: configuration).closing {
                try await $0.copySalvageable(from: damagedPath)
            }
        } catch var error as Error {
            // Named as the user named it: the private name is no concern of theirs.
            error.message = error.message.replacing(building, with: newPath)
            throw error
        }
        guard try publish(building, as: newPath) else {
            throw Error(
                code: .fileSystem,
                message: "The file '\(newPath)' was created by another process during the salvage; "
                    + "salvage writes into a new store only."
            )
        }
        report.destinationPath = newPath
        return report
    }

    /// Copies what can be read from `damagedPath` into this store; see ``salvage(from:into:configuration:)``.
    private func copySalvageable(from damagedPath: String) throws -> SalvageReport {
        let source = try SalvageSource(path: damagedPath)
        var report = SalvageReport(
            sourcePath: damagedPath, destinationPath: path, savedEntries: 0, lostEntries: 0, savedEdges: 0, problems: []
        )
        report.problems += source.openingProblem.map { [$0] } ?? []
        let (ids, scanProblems) = source.entryIDs()
        report.problems += scanProblems
        let columns = try copiedEntryColumns(source)
        for id in ids.sorted() {
            // A signal stops the salvage between entries; the private store is then removed.
            if Task.isCancelled { throw CancellationError() }
            do {
                try copyEntry(id: id, columns: columns, from: source)
                report.savedEntries += 1
            } catch let failure as SalvageSource.RowFailure {
                report.problems.append(failure.message)
            }
        }
        // Rows a scan could not reach still count as lost, by the running totals; when every scan
        // read the whole table, the rows found are all there is, and totals that say more are wrong.
        let known = scanProblems.isEmpty ? ids.count : max(ids.count, source.recordedEntryCount() ?? 0)
        report.lostEntries = known - report.savedEntries

        // Copied as they are read, not gathered first: a store's edges are several a page (400,000 held
        // twice took 165 MB at 200,000 pages). An edge read twice is kept once, by its key.
        var edgeProblems: [String] = []
        report.savedEdges = try write("copy page edges") { connection in
            var count = 0
            edgeProblems = try source.forEachPageEdge { edge in
                try connection.run(
                    """
                    INSERT OR IGNORE INTO page_edge (partition, page_url, resource_url, kind, failure) \
                    VALUES (?, ?, ?, ?, ?)
                    """,
                    edge
                )
                count += Int(connection.changes)
            }
            return count
        }
        report.problems += edgeProblems
        return report
    }

    /// The entry columns both stores have, other than the row id and the body id (which are renumbered).
    private func copiedEntryColumns(_ source: SalvageSource) throws -> [String] {
        guard let writer else { throw writeRefusal }
        var ours: [String] = []
        do {
            try writer.forEachRow("SELECT name FROM pragma_table_info('entry')") { row in ours.append(row.text(0)) }
        } catch {
            throw storeError(error, action: "read the entry columns")
        }
        let theirs = source.entryColumns()
        return ours.filter { $0 != "id" && $0 != "body_id" && theirs.contains($0) }
    }

    /// Copies entry `id` and its body in one transaction, or throws ``SalvageSource/RowFailure`` and
    /// leaves this store unchanged. Errors of this store itself (a full disk) are rethrown as they are.
    private func copyEntry(id: Int64, columns: [String], from source: SalvageSource) throws {
        let entry = try source.entryRow(id: id, columns: columns)
        // A partial entry's bytes are its parts: it comes with all of them, whose sizes add up to its
        // own, or not at all.
        let parts = try source.parts(of: entry)
        let held = parts.reduce(0) { $0 + $1.body.size }
        if let length = columns.firstIndex(of: "complete_length"), entry.values[length] != .null,
            let size = columns.firstIndex(of: "body_size"), case .integer(let recorded) = entry.values[size],
            held != recorded
        {
            throw SalvageSource.RowFailure(
                message: "\(entry.name) was lost: its parts hold \(held) bytes, not the \(recorded) it records.")
        }
        let now = configuration.clock()
        do {
            try write("save the salvaged entry for \(entry.url)") { connection in
                // The id in this store of the entry's body, or of its `part`'s: found by its hash, or
                // made and its chunks copied.
                func copied(part: (first: Int64, body: SalvageSource.Body)?) throws -> Int64 {
                    let body = part?.body ?? entry.body
                    if let existing = try Self.bodyID(withHash: body.hash, connection) { return existing }
                    try connection.run(
                        "INSERT INTO body (hash, size, chunk_count, created_at) VALUES (?, ?, ?, ?)",
                        [.blob(body.hash), .integer(body.size), .integer(body.chunkCount), .date(now)]
                    )
                    let bodyID = connection.lastInsertedRowID
                    try source.copyChunks(of: entry, part: part, into: connection, bodyID: bodyID)
                    return bodyID
                }
                let bodyID = try copied(part: nil)
                let names = (columns + ["body_id"]).joined(separator: ", ")
                let marks = Array(repeating: "?", count: columns.count + 1).joined(separator: ", ")
                try connection.run(
                    "INSERT INTO entry (\(names)) VALUES (\(marks))", entry.values + [.integer(bodyID)]
                )
                let entryID = connection.lastInsertedRowID
                for part in parts {
                    let partBodyID = try copied(part: part)
                    try connection.run(
                        "INSERT INTO entry_part (entry_id, first, body_id) VALUES (?, ?, ?)",
                        [.integer(entryID), .integer(part.first), .integer(partBodyID)]
                    )
                }
            }
        } catch let error as Error {
            if let failure = error.cause as? SalvageSource.RowFailure { throw failure }
            if let cause = error.cause as? SQLiteError, cause.primaryCode == SQLITE_CONSTRAINT {
                throw SalvageSource.RowFailure(
                    message: "\(entry.name) was lost: it breaks a rule of the new store (\(cause.message))."
                )
            }
            throw error
        }
    }
}
