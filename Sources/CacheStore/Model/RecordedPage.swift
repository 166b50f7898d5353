/// A page whose recorded edges stand for a preload as they are: recorded from the entries the
/// store holds now, by a preload that looked for them the same way, every one fresh and none failed
/// (``CacheStore/recordedPages(partition:urls:discovery:at:confirmed:)``).
public struct RecordedPage: Sendable, Hashable {
    /// One recorded edge with the fresh entry that answers it.
    public struct Edge: Sendable, Hashable {
        /// The resource's URL.
        public var resourceURL: String
        /// What the page uses it as (`page` for the page's own edge, `stylesheet`, `image`, …).
        public var kind: String
        /// The entry that answers a `GET` of it.
        public var entryID: Int64
        /// The entry's status code.
        public var status: Int
        /// The entry's stored `Content-Type`, if any.
        public var contentType: String?
        /// The entry's body size in bytes.
        public var bodySize: Int64
    }

    /// The page's edges in the order of their resource URLs' bytes, its own (kind `page`) among them.
    public var edges: [Edge]
}
