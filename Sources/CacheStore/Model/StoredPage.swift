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
