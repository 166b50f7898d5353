import Discovery
import FoundationEssentials
import HTTPCore

/// How a preload runs: how much at once, how deep, what to fetch and what to leave.
public struct PreloadOptions: Sendable, Hashable {
    /// Transfers in flight at once. When the cache's transport holds its connections to these
    /// limits (``WebCache/Configuration/limitConnections(to:)``, as the command line does), the
    /// engine hands it the next fetches ahead of time, and the transport starts each the moment a
    /// connection is free; not while fetches that may run as HTTP/2 streams wait or run, since the
    /// connection caps do not hold streams.
    public var concurrency = 8
    /// Transfers in flight to one host at once (one host name and port, as libcurl counts them).
    public var perHostConcurrency = 6
    /// How many levels of same-site links (`a href`) to follow from the given pages; 0 follows none.
    public var depth = 0
    /// Whether sub-resources are fetched at all (`false` stores only the given pages).
    public var includesRequisites = true
    /// Whether audio and video sources are fetched (each at most ``maximumMediaSize`` and
    /// ``maximumResourceSize``).
    public var includesMedia = false
    /// The largest audio or video file fetched when ``includesMedia`` is on; when
    /// ``maximumResourceSize`` is smaller, that one holds for them too.
    public var maximumMediaSize: Int64 = 32 << 20
    /// The largest resource fetched, audio and video included; a larger one fails with a reason and
    /// nothing of it is stored.
    public var maximumResourceSize: Int64? = 64 << 20
    /// When not empty, sub-resources and followed links come only from these hosts (the given pages
    /// always load). A host matches in any case and on every port; an IPv6 address may be given with
    /// or without brackets, an internationalised name in Unicode or in punycode.
    public var allowedHosts: Set<String> = []
    /// Hosts that nothing is fetched from, matched as ``allowedHosts`` are: neither sub-resources
    /// and followed links, nor the given pages (each is reported skipped).
    public var deniedHosts: Set<String> = []
    /// How many times a transient failure (a network error, 408, 429, 500, 502, 503, 504) is retried.
    public var retries = 2
    /// The delay before the first retry; it doubles for each further one, with jitter, and a
    /// `Retry-After` from the server takes precedence up to ``maximumRetryDelay``.
    public var retryDelay: Duration = .milliseconds(250)
    /// The longest wait before a retry.
    public var maximumRetryDelay: Duration = .seconds(30)
    /// Revalidate entries even while they are fresh (as a reload does; `immutable` ones stay), for `refresh`.
    public var revalidatesFreshEntries = false
    /// The device the pages are preloaded for: its viewport, pixel ratio and formats. Of the
    /// candidates of `srcset`, `<picture>`, `image-set()`, `@font-face` and icons, only what a
    /// browser on it requests is fetched, and CSS images only for rules that match an element of
    /// the page (see ``ReferenceChooser``).
    public var device = DeviceProfile.desktop
    /// When set, each page is rendered in headless Chromium and everything it requests while it
    /// loads, runs its scripts and settles is stored and recorded as its requisites, instead of what
    /// the static scanner finds (``depth`` and the media options then do not apply: the page's
    /// own requests decide). ``concurrency`` is the number of pages rendering at once.
    public var render: RenderOptions?
    /// Fetch every candidate, whatever the device (`--all-candidates`): for stores that must serve any device.
    public var fetchesAllCandidates = false
    /// Fetch `apple-touch-icon`, `mask-icon`, manifest icons and every `rel=icon` (`--icons all`).
    public var fetchesAllIcons = false

    /// The chooser these options make.
    var chooser: ReferenceChooser {
        fetchesAllCandidates ? .allCandidates : ReferenceChooser(device: device, fetchesAllIcons: fetchesAllIcons)
    }

    /// The defaults: 8 transfers, 6 per host, no link following, requisites but no media.
    public init() {}

    /// `host` as the engine and ``WebCache/preloadedPages(hosts:)`` compare it with a URL's host
    /// (`URL.host`, in lower case): an IPv6 address without brackets, an internationalised name in
    /// punycode.
    static func comparableHost(_ host: String) -> String {
        var bare = host.trimmingWhitespace()
        if bare.hasPrefix("["), bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
        let spelled = bare.contains(":") ? "[\(bare)]" : bare
        InternationalNames.prepare(forHost: spelled)
        return URL(string: "http://\(spelled)/")?.host?.lowercased() ?? bare.lowercased()
    }
}
