/// What ``CacheStore/setPinned(_:page:partition:)`` did to a page's stored entries.
public struct PinChange: Sendable, Hashable {
    /// The page's stored entries: the page and the stored resources of its edges.
    public var entries: Int
    /// Those whose pin changed (the others were pinned, or unpinned, already).
    public var changed: Int
    /// When unpinning, those left pinned because another pinned page needs them.
    public var neededByPinnedPages: Int

    /// Creates a change.
    public init(entries: Int, changed: Int, neededByPinnedPages: Int = 0) {
        self.entries = entries
        self.changed = changed
        self.neededByPinnedPages = neededByPinnedPages
    }
}
