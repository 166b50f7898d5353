import CacheStore
import Discovery
import FoundationEssentials
import HTTPCore
import Rendering

/// What ``WebCache/view(_:options:)`` shows and captures.
public struct ViewOptions: Sendable, Hashable {
    /// The browser and when the page counts as done.
    public var render = RenderOptions()
    /// The device the page is shown on.
    public var device = DeviceProfile.desktop
    /// Whether to capture a PNG of the viewport once the page is done.
    public var capturesScreenshot = false
    /// Whether to print the page to PDF once it is done.
    public var capturesPDF = false
    /// Whether to show the page in a window on the display (`DISPLAY` or `WAYLAND_DISPLAY`) until
    /// the window is closed, answering from the store whatever it asks for meanwhile, the pages it
    /// navigates to included. Nothing is captured then.
    public var showsWindow = false

    /// The defaults: a desktop window, nothing captured.
    public init() {}
}

/// What the offline view of a page showed.
public struct ViewReport: Sendable, Hashable {
    /// A request the store could not answer, and why.
    public struct Missing: Sendable, Hashable {
        public var url: String
        public var reason: String
        /// Why the preload of the page left it out on purpose (an icon the device's browser does not
        /// take, an image for another screen), when it recorded that it did; `nil` for what it missed.
        public var leftOutWhenPreloaded: String?
    }

    /// The page.
    public var url: String
    /// The status its stored document had; `nil` when the store does not hold it.
    public var documentStatus: Int?
    /// Whether the page was still busy at ``RenderOptions/timeout``.
    public var hitCap = false
    /// What the page asked for that the store does not hold (answered with 504), in the order asked.
    public var missing: [Missing] = []
    /// Requests answered from the store.
    public var answered = 0
    /// The PNG, when asked for.
    public var screenshot: Data?
    /// The PDF, when asked for.
    public var pdf: Data?
}

extension WebCache {
    /// Shows a stored page in Chromium, offline: every request the page makes, its scripts'
    /// included, is answered from the store only, however stale (the cache-only policy); what the
    /// store does not hold gets a 504 and is listed in the report. No request reaches the network.
    /// Headless unless ``ViewOptions/showsWindow``; in a window it returns once the window is closed.
    ///
    /// Entries the origin marked `no-cache` or `private` are served as stored: `no-cache` asks a
    /// cache to revalidate before it serves, and offline there is no origin to ask, so the stored
    /// copy is the best answer there is (as with the cache-only policy everywhere); `private`
    /// entries are the signed-in user's own, kept in that user's partition, and are served only in
    /// a view for the same user.
    ///
    /// - Parameters:
    ///   - url: the page, absolute or relative to the instance URL.
    ///   - options: the browser, the device, and what to capture.
    ///   - whenOpened: called once the window has opened (``ViewOptions/showsWindow``), before the page
    ///     has loaded in it.
    /// - Throws: ``WebCacheError`` for a URL that cannot be used, and `notCached` when the store holds
    ///   no response for the page (before a browser starts); ``RenderingError`` when no browser is
    ///   found or the browser fails.
    public func view(
        _ url: String, options: ViewOptions, whenOpened: (@Sendable () -> Void)? = nil
    ) async throws -> ViewReport {
        // Loaded as given: a fragment can pick a single-page app's route.
        let page = try resolve(url)
        // Any stored response (whatever its variant or freshness) is something to show; none is not.
        guard try !loader.lookupVariants(of: page.cacheKey, context: context).isEmpty else {
            throw WebCacheError(
                .notCached, "\(page.redactedForMessages) is not in the store: preload it first, then view it.")
        }
        let answerer = RequestAnswerer(
            loader: loader, context: context, policy: .returnCacheDataDontLoad, revalidatesFreshEntries: false,
            maximumBodySize: nil, allowedHosts: [], deniedHosts: [])
        let settings = RenderPreloader.settings(
            device: DeviceProfileSettings(options.device), render: options.render,
            userAgent: configuration.requestHeaders["User-Agent"])
        let records = RecordList()
        var browserConfiguration = try RenderPreloader.browserConfiguration(options.render)
        browserConfiguration.isHeadless = !options.showsWindow
        return try await Browser.with(browserConfiguration) { browser in
            let tab = try await browser.openTab()
            if options.showsWindow { whenOpened?() }
            let address = RequestAnswerer.PageAddress()
            let answer: @Sendable (InterceptedRequest) async -> InterceptedAnswer = { request in
                let (answer, record) = await answerer.answer(request, of: address)
                records.append(record)
                return answer
            }
            let load = options.showsWindow
                ? try await tab.show(page, settings: settings, answer: answer, whenLoaded: { _ in })
                : try await tab.load(page, settings: settings, answer: answer)
            var report = ViewReport(url: page.redactedForMessages, documentStatus: load.documentStatus,
                                    hitCap: load.hitCap)
            // What the preload left out for its device, as it recorded it.
            let skipped = Dictionary(
                ((try? store.skipped(forPage: page.cacheKey.absoluteString, partition: partition)) ?? [])
                    .map { ($0.resourceURL, $0.reason) },
                uniquingKeysWith: { first, _ in first })
            for record in records.all {
                switch record.outcome {
                case .failed(let reason):
                    report.missing.append(.init(
                        url: record.url.redactedForMessages, reason: reason,
                        leftOutWhenPreloaded: skipped[record.url.cacheKey.absoluteString]))
                case .abandoned: continue
                case .loaded, .passedThrough: report.answered += 1
                }
            }
            // A window is closed already, and its browser may have gone with it.
            guard !options.showsWindow else { return report }
            if options.capturesScreenshot { report.screenshot = try await tab.screenshot() }
            if options.capturesPDF { report.pdf = try await tab.pdf() }
            try await tab.close()
            return report
        }
    }
}
