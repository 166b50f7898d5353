import FoundationEssentials
import HTTPCore

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
