import Synchronization

extension CacheStore {
    /// A number that is different whenever something was committed to the store since the last
    /// call, by this process or by another: for a caller that keeps what it read in memory, to know
    /// when it may still use it. Asking costs much less than a lookup.
    ///
    /// Whatever a caller read after a call that returned `n` is still what the store holds as long
    /// as later calls return `n`. A store open for writing reads the header of its WAL index without
    /// a lock (``LogIndexWatch``): every commit rewrites it. Otherwise SQLite's data version changes
    /// on each reader connection for every commit made by another connection, each reader noted its
    /// version when the store opened, and a commit that a reader sees for the first time makes the
    /// number change, whichever reader it is.
    ///
    /// - Throws: ``CacheStore/Error`` when the store cannot be read.
    public nonisolated func changeCount() throws -> UInt64 {
        if let logIndexWatch {
            guard let count = logIndexWatch.count() else { throw closedError }
            return count
        }
        let changed = try read("check the store for changes") { connection in
            let version = try connection.int64("PRAGMA data_version") ?? 0
            defer { connection.seenDataVersion = version }
            return connection.seenDataVersion != version
        }
        if changed { return changes.add(1, ordering: .acquiringAndReleasing).newValue }
        return changes.load(ordering: .acquiring)
    }

    /// Whether the entries of `url` (a cache key) may differ between two of the store's change
    /// counts (``changeCount()``), `since` and the later `until`. `false` only when every commit
    /// between them was made by this store's own writer and changed no entry of `url`: a save, a
    /// 304's update, an invalidation, an eviction or a prune of other URLs, hits, page records, staged
    /// chunks. A commit of another process or connection, one that names more than 128 URLs (a large
    /// prune, a logout), a merge or anything else the writer does not name, and any change too far
    /// back to be remembered, may have changed every entry.
    ///
    /// A caller that keeps an answer read after the count `since` may serve it again at `until` when
    /// this is `false`, as it would when the count had not changed at all.
    public nonisolated func entriesMayHaveChanged(url: String, since: UInt64, until: UInt64) -> Bool {
        guard logIndexWatch != nil else { return since != until }
        return commitLedger.mayHaveChanged(url: url, since: since, until: until)
    }
}
