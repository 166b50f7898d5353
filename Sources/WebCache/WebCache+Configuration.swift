import FoundationEssentials
import HTTPCore
import Sessions
import Transport

extension WebCache {
    /// Everything a ``WebCache`` needs: where the store is, the instance, the network and the identity.
    ///
    /// ```swift
    /// var configuration = WebCache.Configuration()
    /// configuration.instanceURL = URL(string: "https://instance.example.com/")
    /// configuration.authorization = StaticTokenProvider(token: accessToken)
    /// let cache = try WebCache(configuration: configuration)
    /// ```
    public struct Configuration: Sendable {
        /// The store file; created with mode 0600 if missing. Defaults to ``WebCache/defaultStorePath(environment:)``.
        public var storePath: String
        /// The instance URL: relative URLs resolve against it, and it is where sessions start.
        public var instanceURL: URL?
        /// Settings for the default transport (curl's options: `--cacert`, `--resolve`, `--proxy`, …).
        public var transportConfiguration = CurlTransport.Configuration()
        /// A transport to use instead of a ``CurlTransport`` made from ``transportConfiguration``.
        public var transport: (any HTTPTransport)?
        /// Header fields sent with every request unless the request sets them itself (`-H` on the
        /// command line). They count as the request's own for the caching rules: a response that
        /// varies on one of them is stored under its value, and one fetched with `Authorization` is
        /// stored only as RFC 9111 §3.5 allows. Credential fields (`Authorization`, `Cookie`,
        /// `Proxy-Authorization`) are sent only to the origin of ``instanceURL``, never to the other
        /// hosts a page references; they need an instance URL.
        public var requestHeaders: HTTPHeaders = [:]
        /// Hands out tokens for a signed-in user; `nil` loads as a guest, sending no credentials.
        public var authorization: (any AuthorizationProviding)?
        /// The signed-in user's stable identifier, which names the store partition that keeps the
        /// user's responses apart from everyone else's. Required with ``authorization``.
        public var userID: String?
        /// How an expired session is recognised (the login page patterns, the expiry statuses).
        public var sessionPolicy = SessionPolicy()
        /// Keep the signed-in user's session cookies across runs, in a file next to the store
        /// (`<store>.cookies-<partition>.json`, mode 0600) saved when a session starts or is renewed,
        /// soon after the instance changes its cookies (a rotated session id), and by
        /// ``WebCache/close()``, and deleted by ``WebCache/logout()``. Off by default: cookies then
        /// live in memory only.
        public var persistsCookies = false
        /// Cookies of a session the instance already opened for ``userID``, such as the one
        /// ``WebCache/instanceUser(at:field:configuration:)`` opened to ask who the user is: the
        /// signed-in session carries it on (added after the saved cookies of ``persistsCookies``)
        /// instead of opening another with the bearer token. Ignored for a guest.
        public var sessionCookies: CookieJar.Snapshot?
        /// The most bytes of bodies the store keeps; least recently used entries are evicted past it.
        public var maximumStoreSize: Int64?
        /// The most bytes of fresh responses kept in memory, as a browser's memory cache sits in front of
        /// its disk cache: a fresh `200` without `Vary`, whose body fits in an eighth of this and in one
        /// stored chunk (``CacheStore/chunkSize``), is served again from memory for a plain `GET`,
        /// reading nothing from the store but whether it changed. A change of its URL's entries by
        /// this cache, any change by another process or connection, and the end of a response's
        /// freshness send the next load to the store again; the least recently served go first.
        /// 0 keeps none.
        public var memoryCacheSize = 8 * 1024 * 1024
        /// Opens the existing store for reading only (``CacheStore/Configuration/readOnly``), so that a
        /// store whose file or folder cannot be written can be read. Only loads of safe methods with
        /// ``CachePolicy/returnCacheDataDontLoad`` work then, as they write nothing; every other load
        /// fails with ``WebCacheError/Code/store``, and so do preloads and logout.
        public var readOnly = false
        /// Where the library logs; nothing by default.
        public var logger: Logger = .disabled

        /// The default configuration: the default store, no instance, curl, a guest.
        public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
            storePath = WebCache.defaultStorePath(environment: environment)
        }
    }

    /// `$XDG_CACHE_HOME/webcache/store.sqlite`, or `~/.cache/webcache/store.sqlite` when it is unset.
    public static func defaultStorePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base: String
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            base = cache
        } else {
            let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
            base = FilePathText.appending(".cache", to: home)
        }
        return FilePathText.appending("store.sqlite", to: FilePathText.appending("webcache", to: base))
    }
}

extension WebCache.Configuration {
    /// The first credential field of ``requestHeaders`` when there is no ``instanceURL`` to send it
    /// to; such a configuration is refused.
    public var credentialFieldWithoutInstance: String? {
        guard instanceURL == nil else { return nil }
        return HTTPHeaders.credentialNames.first(where: requestHeaders.contains)
    }

    /// Caps the default transport's connections at a preload's limits, so that the transport holds
    /// transfers to them and the preload engine can hand it the next fetches ahead of time.
    public mutating func limitConnections(to options: PreloadOptions) {
        transportConfiguration.maxConnections = options.concurrency
        transportConfiguration.maxConnectionsPerHost = min(options.perHostConcurrency, options.concurrency)
    }
}
