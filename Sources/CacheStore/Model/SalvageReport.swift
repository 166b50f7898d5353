/// What ``CacheStore/salvage(from:into:configuration:)`` recovered from a damaged store.
public struct SalvageReport: Sendable, Hashable {
    /// The damaged store that was read.
    public var sourcePath: String
    /// The new store that received the recovered entries.
    public var destinationPath: String
    /// Entries copied with a body whose chunks still hash to its SHA-256 and add up to its size.
    public var savedEntries: Int
    /// Entries known to exist in the damaged store (from its rows or its running totals) that could
    /// not be copied.
    public var lostEntries: Int
    /// Page → resource edges copied.
    public var savedEdges: Int
    /// One sentence per entry or table part that could not be read, in the order met: an entry is
    /// named by its URL, and the reason is given in words.
    public var problems: [String]

    /// Whether everything was copied: no entry lost, and no part of the damaged store unreadable.
    public var isComplete: Bool { lostEntries == 0 && problems.isEmpty }
}
