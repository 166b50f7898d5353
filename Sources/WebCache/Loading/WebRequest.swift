import FoundationEssentials
import HTTPCore

/// What to load: a URL (absolute, or relative to the configured instance URL), a method and headers.
public struct WebRequest: Sendable, Hashable {
    /// The URL as given; a relative reference resolves against the instance URL.
    public var url: String
    /// The request method; GET by default.
    public var method: HTTPMethod
    /// Header fields to send; they replace the transport's defaults of the same name.
    public var headers: HTTPHeaders
    /// Content for methods that carry one (POST, PUT, PATCH).
    public var body: Data?
    /// Content still arriving, sent as it comes instead of ``body``; for a safe method it is cancelled
    /// unread. It is sent once: a 307 or 308 redirect, which would need it again, is returned instead
    /// of followed, and a signed-in session whose token expired does not replay the request.
    public var bodyStream: RequestBodyStream?
    /// Whether redirects are followed (up to ``Loader/maximumRedirects``); when `false`, a 3xx is returned as is.
    public var followsRedirects: Bool
    /// The most body bytes to accept; a larger response fails with ``WebCacheError/Code/tooLarge``
    /// and nothing is stored.
    public var maximumBodySize: Int64?
    /// Whether to refuse connecting to a loopback, private or link-local address, whatever the host
    /// name resolves to at connection time (the preload engine sets it for what a public page
    /// references). Checked by ``CurlTransport`` when no proxy is in use, for hosts the
    /// configuration does not map itself (`resolve`, `connectTo`); other transports ignore it.
    public var refusesPrivateAddresses = false
    /// Whether the transport may ask for compressed content and hand it over decoded (the
    /// default). A proxy turns it off: it must pass content on as the origin coded it (RFC 9110
    /// §7.7). A stored response that its origin coded with gzip or deflate is decoded as it is read
    /// for a request that decodes; one stored decoded is served decoded either way, with its `ETag`
    /// made weak, except that a proxy's request gets a `no-transform` one fetched again as coded.
    public var decodesContent = true

    /// Creates a request for `url`.
    public init(
        _ url: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: Data? = nil,
        bodyStream: RequestBodyStream? = nil, followsRedirects: Bool = true, maximumBodySize: Int64? = nil
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.bodyStream = bodyStream
        self.followsRedirects = followsRedirects
        self.maximumBodySize = maximumBodySize
    }

    /// Creates a request for an absolute URL.
    public init(url: URL, method: HTTPMethod = .get, headers: HTTPHeaders = [:]) {
        self.init(url.absoluteString, method: method, headers: headers)
    }
}
