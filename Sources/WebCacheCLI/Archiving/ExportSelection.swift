import CacheStore
import FoundationEssentials

/// Which entries an export writes: every entry in a scope (a partition, a host), walked page by page
/// so that memory stays flat, or one page with the resources it needs.
struct ExportSelection: Sendable {
    /// The partition and host the entries must be in.
    var scope: EntryScope
    /// With `--page`: the page's URL.
    var pageURL: String?

    /// Calls `body` with the selected entries, a batch at a time, in id order (page first for `--page`).
    func forEachBatch(in store: CacheStore, _ body: ([CacheEntry]) async throws -> Void) async throws {
        if let pageURL {
            for batch in try pageBatches(pageURL, in: store) {
                try await body(batch)
            }
            return
        }
        var lastID: Int64 = 0
        while true {
            let batch = try store.entries(after: lastID, limit: 64, in: scope)
            guard let last = batch.last?.id else { return }
            lastID = last
            try await body(batch)
        }
    }

    /// The parts of partial `entry`, ordered by position, each with bytes.
    ///
    /// - Throws: ``ExportFailure`` when they cannot be read, are gone, or one is empty.
    static func parts(of entry: CacheEntry, in store: CacheStore) throws(ExportFailure) -> [EntryPart] {
        let variants = try ExportFailure.reading {
            try store.partialVariants(partition: entry.partition, method: entry.method, url: entry.url)
        }
        guard let parts = variants.first(where: { $0.entry.id == entry.id })?.parts, !parts.isEmpty else {
            throw ExportFailure(reason: "The partial entry has no parts in the store any more.")
        }
        guard parts.allSatisfy({ $0.length > 0 }) else {
            throw ExportFailure(reason: "A part of the partial entry is empty.")
        }
        return parts
    }

    /// The page's entries, then those of every resource it needs, in each partition the page is in.
    private func pageBatches(_ pageURL: String, in store: CacheStore) throws -> [[CacheEntry]] {
        var batches: [[CacheEntry]] = []
        var pages = try store.pages(partition: scope.partition, url: pageURL)
        if pages.isEmpty { pages = [StoredPage(partition: scope.partition ?? "guest", url: pageURL)] }
        var seen = Set<Int64>()
        for page in pages {
            let urls = [page.url] + (try store.edges(forPage: page.url, partition: page.partition).map(\.resourceURL))
            for url in urls {
                let entries = try store.entries(url: url, partition: page.partition).filter {
                    (scope.host == nil || $0.host == scope.host) && seen.insert($0.id ?? 0).inserted
                }
                if !entries.isEmpty { batches.append(entries) }
            }
        }
        return batches
    }
}

/// Why one entry could not be exported (its body cannot be read, or is not what its entry
/// records): reported with the entry's URL, and the export goes on with the next entry.
struct ExportFailure: Error {
    /// What is wrong, as a sentence.
    var reason: String

    /// Runs `read`, a read of the store, making what it throws the entry's failure.
    static func reading<T>(_ read: () throws -> T) throws(ExportFailure) -> T {
        do {
            return try read()
        } catch {
            throw ExportFailure(reason: ArchiveImport.reason(error))
        }
    }
}
