import HTTPCore

extension CurlTransport {
    /// The protocol versions a transport asks for.
    public enum HTTPVersion: Sendable, Hashable {
        /// HTTP/2 over TLS when the server offers it (ALPN), HTTP/1.1 otherwise and for `http://`.
        case http2OverTLS
        /// HTTP/1.1 only.
        case http1
    }

    /// Settings of a ``CurlTransport``, named after the curl command-line options they mirror.
    public struct Configuration: Sendable {
        /// A PEM file of CA certificates to verify servers with instead of the system's (`--cacert`).
        public var caCertificateFile: String?
        /// Fixed addresses for host names, as `HOST:PORT:ADDRESS` (`--resolve`).
        public var resolve: [String] = []
        /// Connect elsewhere than the URL says, as `HOST:PORT:CONNECT-TO-HOST:CONNECT-TO-PORT` (`--connect-to`).
        public var connectTo: [String] = []
        /// The proxy URL (`--proxy`); `nil` uses `http_proxy`, `https_proxy` and `no_proxy` from the
        /// environment, as curl does (read once, when the transport is made); an empty string uses
        /// no proxy at all.
        public var proxy: String?
        /// Header fields sent with every request unless the request sets the same name. A cache in
        /// front of the transport does not see them; fields that matter to caching or carry
        /// credentials belong in the request (in `WebCache.Configuration.requestHeaders`).
        public var defaultHeaders: HTTPHeaders = [:]
        /// The `User-Agent` sent when the request sets none (`--user-agent`); `nil` sends none.
        public var userAgent: String? = "webcache"
        /// Skips TLS certificate and host name verification (`--insecure`). Off by default; never
        /// turn it on outside tests.
        public var insecure = false
        /// The longest time to establish a connection (`--connect-timeout`).
        public var connectTimeout: Duration = .seconds(10)
        /// A transfer that receives nothing for this long fails (`--speed-limit 1 --speed-time`).
        public var idleTimeout: Duration = .seconds(30)
        /// The most connections to one host (`--parallel-max` per host).
        public var maxConnectionsPerHost = 8
        /// The most connections overall.
        public var maxConnections = 64
        /// The largest response head accepted, in bytes.
        public var maxHeaderBytes = 256 * 1024
        /// The largest response body accepted, in bytes (`--max-filesize`); `nil` for no limit.
        public var maxBodyBytes: Int64?
        /// Asks for compressed content (`--compressed`) and decodes it, for requests that allow
        /// it (`HTTPRequest.decodesContent`). The response head then no longer lists
        /// `Content-Encoding` or the encoded `Content-Length`, so it describes the body it comes
        /// with, and ``TransportResponse/decodedContentCoding`` says which coding was removed.
        public var decodeContent = true
        /// The protocol versions to ask for (`--http2` is the default).
        public var httpVersion: HTTPVersion = .http2OverTLS
        /// How many body bytes may wait for a slow consumer before the transfer is paused.
        public var bodyBufferBytes = 1024 * 1024

        /// Creates the default settings.
        public init() {}
    }
}
