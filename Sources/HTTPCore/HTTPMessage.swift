import FoundationEssentials

/// An HTTP request method. Methods are case-sensitive tokens (RFC 9110 §9.1).
public struct HTTPMethod: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let get = HTTPMethod(rawValue: "GET")
    public static let head = HTTPMethod(rawValue: "HEAD")
    public static let post = HTTPMethod(rawValue: "POST")
    public static let put = HTTPMethod(rawValue: "PUT")
    public static let delete = HTTPMethod(rawValue: "DELETE")
    public static let patch = HTTPMethod(rawValue: "PATCH")
    public static let options = HTTPMethod(rawValue: "OPTIONS")

    /// Safe methods do not change the origin's state (RFC 9110 §9.2.1); the others invalidate
    /// stored responses (RFC 9111 §4.4).
    public var isSafe: Bool {
        ["GET", "HEAD", "OPTIONS", "TRACE"].contains(rawValue)
    }

    /// GET and HEAD: the methods a stored response answers (RFC 9111 §4). Other safe methods, such
    /// as OPTIONS and TRACE, go to the origin and leave the store as it is.
    public var isAnsweredFromStore: Bool {
        rawValue == "GET" || rawValue == "HEAD"
    }

    public var description: String { rawValue }
}

/// A request as the cache and the transport see it: method, absolute URL and header fields.
public struct HTTPRequest: Sendable, Hashable {
    public var method: HTTPMethod
    public var url: URL
    public var headers: HTTPHeaders
    /// The request content, for methods that carry one.
    public var body: Data?
    /// Content still arriving, sent as it comes instead of ``body``; a request with one is sent at most once.
    public var bodyStream: RequestBodyStream?
    /// Whether the transport must refuse to connect to an address that is not public
    /// (``NetworkAddress``), whatever the host name resolves to when it connects.
    public var refusesPrivateAddresses: Bool
    /// Whether the transport may ask for compressed content and hand it over decoded, as its
    /// configuration allows. When `false` it asks for no content coding and hands over the content
    /// as the server coded it, with its `Content-Encoding`. `CurlTransport` honours it;
    /// `URLSessionTransport` cannot (URLSession always decodes).
    public var decodesContent = true
    /// What must still hold when the request leaves (``SendCondition``); `nil` for none.
    public var sendCondition: SendCondition?

    /// Creates a request; `GET` with no headers unless told otherwise.
    public init(
        method: HTTPMethod = .get, url: URL, headers: HTTPHeaders = [:], body: Data? = nil,
        bodyStream: RequestBodyStream? = nil, refusesPrivateAddresses: Bool = false
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.bodyStream = bodyStream
        self.refusesPrivateAddresses = refusesPrivateAddresses
    }
}

/// The status line and header fields of a response.
public struct HTTPResponseHead: Sendable, Hashable {
    /// The status code, such as 200 or 304.
    public var status: Int
    public var headers: HTTPHeaders

    /// Creates a response head.
    public init(status: Int, headers: HTTPHeaders = [:]) {
        self.status = status
        self.headers = headers
    }
}
