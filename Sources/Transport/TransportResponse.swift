import FoundationEssentials
import HTTPCore

/// A response head that has arrived, with its body still streaming.
public struct TransportResponse: Sendable {
    /// The status and header fields as received, except that a decoded `Content-Encoding` is
    /// removed together with the encoded `Content-Length` (see ``CurlTransport/Configuration/decodeContent``).
    public var head: HTTPResponseHead
    /// The content coding the transport decoded the body from (the removed `Content-Encoding`),
    /// `nil` when the body comes as the origin sent it. The head's `ETag`, if strong, names the
    /// coded bytes, not these.
    public var decodedContentCoding: String?
    /// The content, chunk by chunk as it arrives. Dropping it, or cancelling the task that
    /// iterates it, cancels the transfer.
    public var body: ResponseBody
    /// When the request was handed to the network (RFC 9111 §4.2.3 `request_time`).
    public var requestTime: Date
    /// When the response head arrived (RFC 9111 §4.2.3 `response_time`).
    public var responseTime: Date
    /// The protocol version of the response, such as `HTTP/1.1` or `HTTP/2`.
    public var httpVersion: String
    /// The URL that was requested.
    public var url: URL
    /// The IP address the connection went to, when it is the address the URL's host resolved to;
    /// `nil` through a proxy, for a host the configuration maps to an address (`resolve`,
    /// `connectTo`), or when the transport does not know it.
    public var remoteAddress: String?

    /// Creates a response; transports make these, tests may make them for fake transports.
    public init(
        head: HTTPResponseHead,
        body: ResponseBody,
        requestTime: Date,
        responseTime: Date,
        httpVersion: String = "HTTP/1.1",
        url: URL,
        remoteAddress: String? = nil,
        decodedContentCoding: String? = nil
    ) {
        self.head = head
        self.body = body
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.httpVersion = httpVersion
        self.url = url
        self.remoteAddress = remoteAddress
        self.decodedContentCoding = decodedContentCoding
    }
}
