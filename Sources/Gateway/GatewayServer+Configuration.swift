import FoundationEssentials
import HTTPCore

extension GatewayServer {
    /// How the gateway listens, where origin-form requests go, and whether it may use the network.
    ///
    /// ```swift
    /// var configuration = GatewayServer.Configuration()
    /// configuration.upstream = URL(string: "https://instance.example.com/")
    /// configuration.offline = true
    /// ```
    public struct Configuration: Sendable {
        /// The IP address to listen on (IPv4 or IPv6 text). Loopback by default: the gateway serves
        /// the store of whoever runs it and should not be reachable from other machines.
        public var bindAddress = "127.0.0.1"
        /// The TCP port; 0 lets the system pick a free one (see ``GatewayServer/port``).
        public var port: UInt16 = 0
        /// Where origin-form requests (`GET /path`) go: the gateway is then a reverse proxy for this
        /// one origin. Absolute-form requests (`GET http://host/path`, as sent to a forward proxy)
        /// are served either way.
        public var upstream: URL?
        /// Never touch the network: serve what the store holds however stale, and answer 504 for
        /// anything missing and for unsafe methods.
        public var offline = false
        /// When the network fails (or answers 500, 502, 503 or 504), serve a stored response that
        /// is stale by at most this many seconds; `nil` allows only what `stale-if-error` allows.
        /// Ignored with ``offline``, which serves any stored response.
        public var maxStale: TimeInterval?
        /// The largest request body accepted (a POST or PUT being passed through); larger gets 413.
        /// Bodies stream through a bounded buffer, so this caps what an origin is sent, not memory:
        /// 1 GiB by default.
        public var maximumRequestBodySize = 1 << 30
        /// The most client connections open at once; each has its own thread.
        public var connectionLimit = 256
        /// Seconds an idle keep-alive connection stays open.
        public var idleTimeout = 60
        /// How often the hits the gateway serves are written to the store, so that `inspect` and
        /// least-recently-used eviction see a running gateway's use; they are also written when it
        /// stops. Hits are counted in memory between writes, so a hit never waits for a write.
        public var hitFlushInterval: Duration = .seconds(10)
        /// How often the gateway checks that its store's file is still at its path (a warning is
        /// logged once when it was removed or replaced).
        public var storeFileCheckInterval: Duration = .seconds(2)
        /// The most bytes of fresh answers kept in memory (bodies, and about a kilobyte per answer for
        /// its head), so that hits on them read nothing from the store but whether it changed (see
        /// docs/cli.md); 64 MiB by default, 0 keeps none. A body over an eighth of it is never kept.
        public var memoryCacheSize = 64 * 1024 * 1024
        /// Who may connect and send how much (see ``GatewayServer/Admission``).
        public var admission = Admission()
        /// Called once per answered request, after the body was sent or abandoned.
        public var accessLog: (@Sendable (AccessLogEntry) -> Void)?
        /// Where the gateway logs failures.
        public var logger: Logger = .disabled

        /// The default configuration: loopback, a free port, no upstream, online.
        public init() {}
    }
}
