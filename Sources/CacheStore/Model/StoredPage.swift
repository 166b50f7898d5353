import FoundationEssentials

/// A page that has recorded page → resource edges, in one partition.
public struct StoredPage: Sendable, Hashable {
    /// The partition the page's edges belong to.
    public var partition: String
    /// The page URL's absolute string.
    public var url: String

    /// Creates a page reference.
    public init(partition: String, url: String) {
        self.partition = partition
        self.url = url
    }
}

/// Where a listing of the pages read a piece at a time goes on (``CacheStore/pages(after:limit:)``):
/// after the page it read last, by the bytes the store holds for it.
public struct PageListPosition: Sendable, Hashable {
    let partition: Data
    let url: Data
}
