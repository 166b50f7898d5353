import FoundationEssentials

extension CacheStore {
    /// Up to `limit` entries in `scope` with an id above `id`, in id order: a page of a listing
    /// that walks the whole store with flat memory (pass the last id of one page to get the next).
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func entries(after id: Int64, limit: Int, in scope: EntryScope = EntryScope()) throws
        -> [CacheEntry]
    {
        let selection = columns.entrySelection
        let (condition, values) = scope.condition
        return try read("list the entries") { connection in
            var entries: [CacheEntry] = []
            try connection.forEachRow(
                selection + " WHERE e.id > ?" + condition + " ORDER BY e.id LIMIT ?",
                [.integer(id)] + values + [.integer(Int64(limit))]
            ) { row in
                entries.append(CacheEntry(row: row))
            }
            return entries
        }
    }

    /// The complete entry in `scope` with the lowest id whose body is `bodyID`: the one an export
    /// writes the body with, the others referring to it. Partial entries, which point at the empty
    /// body and hold their bytes in parts, are never it.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func firstEntry(withBodyID bodyID: Int64, in scope: EntryScope = EntryScope()) throws
        -> CacheEntry?
    {
        let selection = columns.entrySelection
        let (condition, values) = scope.condition
        return try read("look up body \(bodyID)") { connection in
            var found: CacheEntry?
            try connection.forEachRow(
                selection + " WHERE e.body_id = ? AND e.complete_length IS NULL" + condition
                    + " ORDER BY e.id LIMIT 1",
                [.integer(bodyID)] + values
            ) { row in
                found = CacheEntry(row: row)
            }
            return found
        }
    }
}

extension CacheStore {
    /// The id of the complete body whose SHA-256 is `hash`, if stored.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func bodyID(forHash hash: Data) throws -> Int64? {
        try read("look up a body by its hash") { connection in
            try Self.bodyID(withHash: hash, connection)
        }
    }
}
