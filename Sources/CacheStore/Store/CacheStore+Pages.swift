import Foundation

extension CacheStore {
    /// The URLs of the preloaded pages (those with recorded requisites) in `partition`, sorted.
    ///
    /// - Throws: ``CacheStore/Error``.
    public nonisolated func pageURLs(partition: String = "guest") throws -> [String] {
        try read("list pages") { connection in
            var pages: [String] = []
            try connection.forEachRow(
                "SELECT DISTINCT page_url FROM page_edge WHERE partition = ? ORDER BY page_url", [.text(partition)]
            ) { row in
                pages.append(row.text(0))
            }
            return pages
        }
    }
}
