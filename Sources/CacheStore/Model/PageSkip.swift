/// A reference of a page that a preload left out for the device it fetched for, and why.
public struct PageSkip: Sendable, Hashable {
    /// The resource URL's absolute string.
    public var resourceURL: String
    /// The kind of reference, such as `"image"` or `"font"`.
    public var kind: String
    /// Why a browser on the device would not fetch it.
    public var reason: String

    /// Creates a skip.
    public init(resourceURL: String, kind: String, reason: String) {
        self.resourceURL = resourceURL
        self.kind = kind
        self.reason = reason
    }
}
