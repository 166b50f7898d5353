import FoundationEssentials
import HTTPCore

/// A request as a client sent it to the gateway, its body still arriving.
struct ProxyRequest: Sendable {
    /// The method, such as `GET` or `CONNECT`.
    var method: HTTPMethod
    /// The request target exactly as sent: `/path?query` (origin-form), `http://host/path`
    /// (absolute-form), `host:443` (authority-form, with `CONNECT`) or `*`.
    var target: String
    /// The URL the target maps to (``RequestTarget/url(for:upstream:)``), or why it maps to none.
    var url: Result<URL, RequestTarget.Unmappable>
    /// The header fields in the order received.
    var headers: HTTPHeaders
    /// The content as it arrives, if the request has any.
    var bodyStream: RequestBodyStream?
    /// Whether a forward request (absolute-form) may reach only public addresses: the client is not
    /// loopback. Checked on the address the transport connects to.
    var refusesPrivateAddresses = false
    /// The most bytes the response's head may take (``ConnectionBuffer/responseBytes(_:)``): the
    /// room left beside the request's head in its connection's buffer.
    var responseHeadRoom = Int.max
}
