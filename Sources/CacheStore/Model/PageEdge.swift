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
