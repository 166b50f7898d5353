/// How complete a page is offline.
public struct PageStatus: Sendable, Hashable {
    /// Whether the page itself has a stored entry that is not an error answer (status below 400).
    public var pageStored: Bool
    /// How many resources the page needs.
    public var resourceCount: Int
    /// How many of them have a stored entry (any method, any variant) in the page's partition that
    /// is not an error answer: a cacheable 404 is in the store, but it is not what the page needs.
    public var storedCount: Int
    /// The edges that recorded a failure.
    public var failures: [PageEdge]
    /// Resources without a stored entry, or stored only as an error answer, in URL order.
    public var missing: [String]

    /// Whether the page and all its resources are stored, and none of them failed on its last fetch.
    public var isComplete: Bool { pageStored && storedCount == resourceCount && failures.isEmpty }
}
