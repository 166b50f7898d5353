import FoundationEssentials
import HTTPCore
import WebCache

/// What the HTTP server has read of one request so far. It is used by the callbacks of its
/// connection, which run one at a time, is created when the request line arrives and released when
/// the request completes, and is reached from the server's callbacks through a context pointer.
final class ConnectionRequest {
    /// The request target exactly as the client sent it.
    let target: String
    var method = HTTPMethod.get
    var headers: HTTPHeaders = [:]
    /// The bytes of the head as sent (``GatewayServer/headBytes(of:)``), once it has arrived.
    var headBytes = 0
    /// The bytes of the connection's buffer left for the response's head beside this request's
    /// (``ConnectionBuffer``), once its head has arrived.
    var responseHeadRoom = Int.max
    /// The body as it arrives, handed on to the submitted request; `nil` without content.
    var bodyStream: RequestBodyStream?
    /// How many body bytes have arrived.
    var bodyBytes = 0
    /// Whether the access handler has seen the head.
    var started = false
    /// Whether the request is HTTP/1.0, which may come without `Host`.
    var isHTTP10 = false
    /// Whether the request was read to its end and is answered or submitted: the connection now
    /// waits for the head of its response.
    var awaitsHead = false
    /// Whether the body is larger than the gateway accepts.
    var tooLarge = false
    /// The client's IP address (4 or 16 bytes; empty when unknown).
    var client: [UInt8] = []
    /// The exchange carrying the response, once the request was submitted.
    var exchange: Exchange?
    /// What was answered from the store, when the request was (logged once the response is over).
    var storedHit: StoredHit?
    /// The URL the target maps to, or why it maps to none, once ``url(upstream:)`` worked it out.
    private var mapping: Result<URL, RequestTarget.Unmappable>?

    /// The URL the target maps to with `upstream` (``RequestTarget/url(for:upstream:)``), worked out on
    /// first use only: a request that misses the store needs it for the store, the loader and the log.
    func url(upstream: URL?) -> Result<URL, RequestTarget.Unmappable> {
        if let mapping { return mapping }
        let mapped = Result { () throws(RequestTarget.Unmappable) in
            try RequestTarget.url(for: target, upstream: upstream)
        }
        mapping = mapped
        return mapped
    }

    /// A request answered from the store in its connection's callback, for the access log.
    struct StoredHit {
        /// The URL the request was mapped to.
        var url: String
        var status: Int
        var source: ResponseSource
        /// The body bytes the whole response carries.
        var bodyBytes: Int64
        /// The body being copied from the store, for one larger than a chunk.
        var stream: StoredBodyStream?
    }

    init(target: String) {
        self.target = target
    }
}
