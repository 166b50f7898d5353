import Foundation
import HTTPCore

/// Running totals of the store, kept in the database and read without a scan.
public struct StoreTotals: Sendable, Hashable {
    /// Number of entries.
    public var entryCount: Int64
    /// Sum of the entries' body sizes (a shared body counts once per entry).
    public var entryBytes: Int64
    /// Number of distinct bodies.
    public var bodyCount: Int64
    /// Sum of the distinct bodies' sizes: the bytes the byte limit applies to.
    public var bodyBytes: Int64
}

/// A stored response with its whole body, as returned by ``CacheStore/lookup(partition:method:url:varyKey:at:)``.
public struct CachedResponse: Sendable, Hashable {
    /// The entry, as read before this hit was recorded.
    public var entry: CacheEntry
    /// The body bytes.
    public var body: Data
}

/// New metadata for a stored entry after a `304 Not Modified` (RFC 9111 §4.3.4): the caller merges
/// the headers and computes the new freshness; the body stays.
public struct MetadataUpdate: Sendable, Hashable {
    /// The entry to update.
    public var entryID: Int64
    /// The merged response headers.
    public var headers: HTTPHeaders
    /// When the validating request was sent.
    public var requestTime: Date
    /// When the 304 was received.
    public var responseTime: Date
    /// The new end of freshness.
    public var freshUntil: Date
    /// The new end of the stale window, if any.
    public var staleUntil: Date?

    /// Creates an update.
    public init(
        entryID: Int64, headers: HTTPHeaders, requestTime: Date, responseTime: Date,
        freshUntil: Date, staleUntil: Date? = nil
    ) {
        self.entryID = entryID
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.freshUntil = freshUntil
        self.staleUntil = staleUntil
    }
}

/// One resource a page needs: its URL, what kind of reference it is, and why it failed, if it did.
public struct PageEdge: Sendable, Hashable {
    /// The resource URL's absolute string.
    public var resourceURL: String
    /// The kind of reference, such as `"stylesheet"`, `"script"` or `"image"`.
    public var kind: String
    /// Why the resource could not be stored (`nil` when it was, or is not tried yet).
    public var failure: String?

    /// Creates an edge.
    public init(resourceURL: String, kind: String, failure: String? = nil) {
        self.resourceURL = resourceURL
        self.kind = kind
        self.failure = failure
    }
}

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

/// What ``CacheStore/prune(_:dryRun:)``, ``CacheStore/evict(toFit:)`` or
/// ``CacheStore/removeAll(partition:)`` removed, or would remove in a dry run.
public struct PruneResult: Sendable, Hashable {
    /// Number of entries.
    public var entryCount: Int
    /// Sum of the entries' body sizes.
    public var entryBytes: Int64
    /// Bytes of bodies actually deleted (0 in a dry run: shared bodies may stay).
    public var freedBytes: Int64
    /// The URLs of the entries, in removal order.
    public var urls: [String]

    static let empty = PruneResult(entryCount: 0, entryBytes: 0, freedBytes: 0, urls: [])
}
