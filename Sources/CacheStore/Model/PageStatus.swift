/// How complete a page is offline.
public struct PageStatus: Sendable, Hashable {
    /// Whether the page itself has a stored entry.
    public var pageStored: Bool
    /// How many resources the page needs.
    public var resourceCount: Int
    /// How many of them have a stored entry (any method, any variant) in the page's partition.
    public var storedCount: Int
    /// The edges that recorded a failure.
    public var failures: [PageEdge]
    /// Resources without a stored entry, in URL order.
    public var missing: [String]

    /// Whether the page and all its resources are stored.
    public var isComplete: Bool { pageStored && storedCount == resourceCount }
}
