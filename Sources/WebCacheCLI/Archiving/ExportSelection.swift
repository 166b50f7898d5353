import CacheStore
import Foundation

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

    /// The page's entries, then those of every resource it needs, in each partition the page is in.
    private func pageBatches(_ pageURL: String, in store: CacheStore) throws -> [[CacheEntry]] {
        var batches: [[CacheEntry]] = []
        var pages = try store.pages(partition: scope.partition, url: pageURL)
        if pages.isEmpty { pages = [StoredPage(partition: scope.partition ?? "guest", url: pageURL)] }
        var seen = Set<Int64>()
        for page in pages {
            let urls = [page.url] + (try store.edges(forPage: page.url, partition: page.partition).map(\.resourceURL))
            for url in urls {
                let entries = try store.entries(url: url).filter {
                    $0.partition == page.partition && (scope.host == nil || $0.host == scope.host)
                        && seen.insert($0.id ?? 0).inserted
                }
                if !entries.isEmpty { batches.append(entries) }
            }
        }
        return batches
    }
}
