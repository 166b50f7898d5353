import FoundationEssentials
import HTTPCore

/// A response from ``WebCache``: the head, where it came from, and a streamed body.
public struct WebResponse: Sendable {
    /// The URL that answered, after redirects were followed.
    public var url: URL
    /// The status code, such as 200.
    public var status: Int
    /// The response header fields, as stored (merged with a 304's fields after a revalidation).
    public var headers: HTTPHeaders
    /// Where the response came from.
    public var source: ResponseSource
    /// The response's current age in seconds (RFC 9111 §4.2.3); 0 for a response straight from the network.
    public var age: TimeInterval
    /// The URLs of the redirects followed to get here, in order (empty if none).
    public var redirects: [URL]
    /// The body, streamed; iterate it once.
    public var body: Body
    /// The IP address the response's connection went to, when it came over the network (or was
    /// revalidated) and went to the address its host resolved to; `nil` for a response from the
    /// store, through a proxy, or from a host the transport configuration maps to an address.
    public var remoteAddress: String?
    /// The protocol version the response came over, such as `HTTP/1.1` or `HTTP/2`, when it came over
    /// the network (or was revalidated); `nil` for a response from the store.
    public var httpVersion: String?
    /// Why the loader does not store this network response, such as "response has no-store" (RFC
    /// 9111 §3); `nil` when it is stored as its body is read, or came from the store.
    public var notStoredReason: String?

    /// Creates a response.
    public init(
        url: URL, status: Int, headers: HTTPHeaders, source: ResponseSource, age: TimeInterval = 0,
        redirects: [URL] = [], body: Body
    ) {
        self.url = url
        self.status = status
        self.headers = headers
        self.source = source
        self.age = age
        self.redirects = redirects
        self.body = body
    }
}

/// A response whose body has been read into memory.
public struct LoadedResponse: Sendable {
    /// The URL that answered, after redirects were followed.
    public var url: URL
    /// The status code, such as 200.
    public var status: Int
    /// The response header fields.
    public var headers: HTTPHeaders
    /// Where the response came from.
    public var source: ResponseSource
    /// The response's current age in seconds.
    public var age: TimeInterval
    /// The URLs of the redirects followed to get here, in order.
    public var redirects: [URL]
    /// The whole body.
    public var body: Data
}
