import Archive
import CacheStore
import Discovery
import FoundationEssentials
import HTTPCore
import Rendering
import Synchronization

/// Preloads pages by rendering them in headless Chromium: every request a page makes while it
/// loads, runs its scripts and settles is answered by the loader (``RequestAnswerer``), so what the
/// browser needed is stored with its caching metadata and recorded as the page's requisites, the
/// same page edges the static preload writes.
///
/// Pages render as tabs of one browser, at most ``PreloadOptions/concurrency`` at once, each a child
/// task of one task group. When the browser exits, crashes or hangs, the pages it held fail with
/// the reason (their edges are not written: the store keeps what an earlier run recorded), a new
/// browser is started, and the run goes on with the pages not yet rendered.
///
/// A navigation a page starts by itself while it renders (a client-side redirect: a script setting
/// `location`, a form, a meta refresh) is stopped in its tab, and its target is rendered as a page
/// of its own in the same run, within the run's rules, each URL once, at most
/// ``maximumNavigationHops`` such hops from a listed page.
struct RenderPreloader: Sendable {
    let answerer: RequestAnswerer
    let options: PreloadOptions
    let render: RenderOptions
    let userAgent: String?
    let logger: Logger

    /// How a browser that fails before it renders any page is retried: this many starts in a row.
    static let maximumFruitlessBrowsers = 2
    /// How many navigations a page starts by itself are followed in a row from a listed page, as
    /// a redirect limit: a target further away is listed as skipped.
    static let maximumNavigationHops = 5

    /// A page to render: listed, or the target of a navigation a rendered page started.
    private struct PendingPage: Sendable {
        var url: URL
        /// How many navigations away from a listed page it is; 0 for a listed page.
        var hops = 0
        /// Whether the page that navigated to it came from a public address: it may not reach a
        /// private one then, as a requisite of that page may not.
        var fromPublicAddress = false
    }

    /// The pages waiting to be rendered (the next one last), and every page the run has taken, by
    /// cache key, so that none is rendered twice.
    private struct PageQueue {
        var waiting: [PendingPage]
        var seen: Set<URL>
    }

    private enum PageOutcome: Sendable {
        /// `fromPublicAddress`: whether the page's document came from a public address.
        case rendered(PendingPage, PageLoad, [RequestAnswerer.Record], fromPublicAddress: Bool)
        case failed(PendingPage, String, browserFailed: Bool)
        /// The run was interrupted while the page rendered: what its requests had become by then.
        case interrupted(PendingPage, [RequestAnswerer.Record])
    }

    init(loader: Loader, context: RequestContext, options: PreloadOptions, render: RenderOptions, logger: Logger) {
        answerer = RequestAnswerer(
            loader: loader, context: context, policy: .useProtocolCachePolicy,
            revalidatesFreshEntries: options.revalidatesFreshEntries, maximumBodySize: options.maximumResourceSize,
            allowedHosts: Set(options.allowedHosts.map(PreloadOptions.comparableHost)),
            deniedHosts: Set(options.deniedHosts.map(PreloadOptions.comparableHost)))
        self.options = options
        self.render = render
        userAgent = loader.defaultHeaders["User-Agent"]
        self.logger = logger
    }

    /// The tab settings for the options' device, user agent and done rules.
    static func settings(device: DeviceProfileSettings, render: RenderOptions, userAgent: String?) -> RenderSettings {
        var settings = RenderSettings()
        settings.viewportWidth = device.width
        settings.viewportHeight = device.height
        settings.devicePixelRatio = device.pixelRatio
        settings.isMobile = device.isMobile
        settings.mediaFeatures = device.mediaFeatures
        settings.userAgent = userAgent
        settings.settle = render.settle
        settings.timeout = render.timeout
        settings.scrolls = render.scrolls
        return settings
    }

    /// The browser configuration for `render`.
    /// - Throws: ``RenderingError`` when no browser is found.
    static func browserConfiguration(_ render: RenderOptions) throws -> Browser.Configuration {
        var configuration = Browser.Configuration(executable: try render.browserPath())
        configuration.commandTimeout = render.commandTimeout
        return configuration
    }

    // MARK: - Running

    /// Renders `pages` and records what each needed; `events` is called from one task at a time.
    func run(pages: [URL], events: @escaping @Sendable (PreloadEvent) -> Void) async -> PreloadReport {
        let started = Date()
        var report = PreloadReport()
        var seen: Set<URL> = []
        // Loaded as given (a fragment can pick a single-page app's route), recorded by cache key.
        let listed = pages.filter { seen.insert($0.cacheKey).inserted }
        report.pages = listed.count
        var queue = PageQueue(waiting: listed.reversed().map { PendingPage(url: $0) }, seen: seen)
        let serialEvents = SerialEvents(events)
        var recorder: HARRecorder?
        if let path = render.harPath {
            do {
                recorder = try HARRecorder(path: path)
            } catch {
                report.failures.append(.init(url: path, reason: "the HAR file could not be created: \(error.reason)"))
            }
        }
        do {
            let configuration = try Self.browserConfiguration(render)
            var fruitless = 0
            while !queue.waiting.isEmpty, !Task.isCancelled {
                let before = queue.waiting.count
                let browserFailed = try await renderWithOneBrowser(
                    configuration, queue: &queue, recorder: recorder, report: &report, events: serialEvents)
                // Interrupted, the browser is closed on purpose: no failure, and no new one.
                guard browserFailed, !Task.isCancelled else { break }
                fruitless = queue.waiting.count < before ? 0 : fruitless + 1
                if fruitless >= Self.maximumFruitlessBrowsers { break }
                logger.warning("The browser failed; starting a new one for the \(queue.waiting.count) pages left.")
            }
        } catch {
            let reason = error is CancellationError ? nil : "\(error)"
            if let reason {
                for page in queue.waiting.reversed() {
                    fail(page.url, reason: reason, report: &report, events: serialEvents)
                }
                queue.waiting.removeAll()
            }
        }
        if !queue.waiting.isEmpty, !Task.isCancelled {
            for page in queue.waiting.reversed() {
                fail(page.url, reason: "the browser kept failing before it could render it", report: &report,
                     events: serialEvents)
            }
            queue.waiting.removeAll()
        }
        if let recorder, let problem = recorder.close() {
            report.failures.append(.init(url: recorder.path, reason: "the HAR file is not whole: \(problem)"))
        }
        report.interrupted = Task.isCancelled
        report.unfinished += queue.waiting.count
        report.unfinishedPages = queue.waiting.count
        report.duration = Date().timeIntervalSince(started)
        return report
    }

    /// Renders waiting pages in one browser until none is left or the browser fails; returns
    /// whether it failed. Pages it held when it failed are failed; the others stay waiting.
    private func renderWithOneBrowser(
        _ configuration: Browser.Configuration, queue: inout PageQueue, recorder: HARRecorder?,
        report: inout PreloadReport, events: SerialEvents
    ) async throws -> Bool {
        try await Browser.with(configuration) { browser in
            await withTaskGroup(of: PageOutcome.self) { group in
                var browserFailed = false
                var running = 0
                // As many pages as may render at once: a page can add the pages it navigated to.
                func startPages() {
                    while running < options.concurrency, !browserFailed, !Task.isCancelled,
                        let page = queue.waiting.popLast()
                    {
                        running += 1
                        group.addTask { await renderPage(page, in: browser, recorder: recorder, events: events) }
                    }
                }
                startPages()
                while let outcome = await group.next() {
                    running -= 1
                    switch outcome {
                    case .rendered(let page, let load, let records, let fromPublicAddress):
                        let targets = follow(load.stoppedNavigations, of: page, fromPublicAddress: fromPublicAddress,
                                             records: records, queue: &queue, report: &report, events: events)
                        await record(page.url, load: load, records: records, navigations: targets, report: &report,
                                     events: events)
                    case .interrupted(let page, let records):
                        // A page whose document was answered was preloaded, without all it needs;
                        // the others are unfinished. Either keeps what an earlier run recorded.
                        if records.contains(where: \.isAnsweredDocument) {
                            await record(page.url, load: nil, records: records, report: &report, events: events)
                        } else {
                            queue.waiting.append(page)
                        }
                    case .failed(let page, let reason, let byBrowser):
                        if Task.isCancelled {
                            // Given up, not failed: it keeps what an earlier run recorded.
                            queue.waiting.append(page)
                        } else {
                            fail(page.url, reason: reason, report: &report, events: events)
                        }
                        if byBrowser, !browser.isRunning || !browserFailed {
                            browserFailed = true
                        }
                    }
                    startPages()
                }
                return browserFailed
            }
        }
    }

    /// Renders one page in a tab of its own, answering its requests through the loader, and records
    /// it in `recorder` when there is one.
    private func renderPage(
        _ pending: PendingPage, in browser: Browser, recorder: HARRecorder?, events: SerialEvents
    ) async -> PageOutcome {
        let page = pending.url
        let records = RecordList()
        let pageID = recorder?.pageID() ?? ""
        let started = Date()
        var settings = Self.settings(device: DeviceProfileSettings(options.device), render: render,
                                     userAgent: userAgent)
        // What the page's document navigates to is not the page's: it is rendered as a page of its own.
        settings.stopsNavigations = true
        let tab: BrowserTab
        do {
            tab = try await browser.openTab()
        } catch {
            return .failed(pending, "the browser could not open a tab for it: \(error)", browserFailed: true)
        }
        let outcome: PageOutcome
        do {
            let address = RequestAnswerer.PageAddress(fromPublicAddress: pending.fromPublicAddress)
            let load = try await tab.load(page, settings: settings) { [answerer] request in
                let asked = Date()
                let (answer, record) = await answerer.answer(request, of: address)
                recorder?.record(request, answer: answer, outcome: record.outcome, pageID: pageID, started: asked,
                                 duration: Date().timeIntervalSince(asked))
                records.append(record)
                if let event = Self.event(for: record) { events.send(event) }
                return answer
            }
            outcome = .rendered(pending, load, records.all, fromPublicAddress: address.isPublic)
        } catch _ where Task.isCancelled {
            outcome = .interrupted(pending, records.all)
        } catch let error as RenderingError {
            outcome = .failed(pending, error.message, browserFailed: error.code == .browserFailed)
        } catch {
            outcome = .failed(pending, "\(error)", browserFailed: false)
        }
        // A page that failed keeps its entries' page, without event times.
        var loaded: PageLoad?
        if case .rendered(_, let load, _, _) = outcome { loaded = load }
        recorder?.addPage(id: pageID, url: page, started: started, load: loaded)
        do {
            try await tab.close()
        } catch {
            // A run interrupted closes its browser next: the tab's end is no failure of the browser.
            if Task.isCancelled { return outcome }
            if case .failed(_, _, true) = outcome { return outcome }
            // A browser that hangs lets a page run to its cap and then does not close its tab.
            let what = if case DevToolsError.unresponsive = error { "stopped answering" } else { "exited or crashed" }
            return .failed(pending, "The browser \(what) while it rendered \(page.redactedForMessages): \(error)",
                           browserFailed: true)
        }
        return outcome
    }

    /// The progress event for one answered request.
    private static func event(for record: RequestAnswerer.Record) -> PreloadEvent? {
        switch record.outcome {
        case .loaded(let status, let source, let bytes, _):
            .fetched(url: record.url, status: status, bytes: bytes, source: source)
        case .passedThrough(let status):
            .fetched(url: record.url, status: status, bytes: 0, source: .network)
        case .failed(let reason):
            .failed(url: record.url, reason: reason)
        case .abandoned:
            nil
        }
    }

    // MARK: - Navigations

    /// Decides what becomes of the navigations `page` started by itself (each stopped in its tab):
    /// a target the run has not taken yet, allowed by its rules (hosts, private addresses) and at
    /// most ``maximumNavigationHops`` from a listed page, is rendered as a page of its own next,
    /// and counted among the pages; one the rules refuse, further away, or sent with another method
    /// than GET (a form posted: not repeated without its user), is listed as skipped.
    /// Returns the targets the page's record links to: those this run renders, by this navigation
    /// or as pages of their own.
    private func follow(
        _ targets: [InterceptedRequest], of page: PendingPage, fromPublicAddress: Bool,
        records: [RequestAnswerer.Record], queue: inout PageQueue, report: inout PreloadReport, events: SerialEvents
    ) -> [URL] {
        // The page's own document and redirect hops: navigating to them reloads the page.
        let own = Set(records.filter(\.isPageDocument).map(\.url)).union([page.url.cacheKey])
        var linked: [URL] = []
        for target in targets {
            guard let url = URL(parsing: target.url), url.isHTTP, !own.contains(url.cacheKey) else { continue }
            let key = url.cacheKey
            var skipped: String?
            if target.method != "GET" {
                skipped = "the page navigated to it with a \(target.method) request (a form sent), "
                    + "which is not repeated without its user"
            } else if queue.seen.contains(key) {
                if !linked.contains(key) { linked.append(key) }
                continue
            } else if let refusal = answerer.refusal(of: url, fromPublicPage: fromPublicAddress) {
                skipped = "the page navigated to it, and the navigation is not followed: \(refusal)"
            } else if page.hops >= Self.maximumNavigationHops {
                skipped = "the page navigated to it after \(page.hops) navigations from a listed page, "
                    + "the most followed (list it to preload it)"
            }
            if let skipped {
                let problem = PreloadReport.Problem(url: url.redactedForMessages, reason: skipped)
                guard !report.skipped.contains(problem) else { continue }
                report.skipped.append(problem)
                events.send(.skipped(url: url, reason: skipped))
                continue
            }
            queue.seen.insert(key)
            queue.waiting.append(PendingPage(url: url, hops: page.hops + 1, fromPublicAddress: fromPublicAddress))
            report.pages += 1
            report.followedPages += 1
            events.send(.navigated(url: url, from: page.url))
            linked.append(key)
        }
        return linked
    }

    // MARK: - Recording

    /// Adds a rendered page to the report and writes its edges: the page first, then every URL it
    /// requested with GET or HEAD, in the order asked, each once. A response of 400 or more, or a
    /// request that failed, is a failure of the run, as in the static preload; one the caching rules
    /// keep out of the store is listed as not stored. Both are recorded on the page's edge. The
    /// favicon the browser asks for of its own accord (the document declares no such icon) is not
    /// the page's: listed when it loads, left out when it does not. The pages it navigated to by
    /// itself that this run renders (`navigations`) are recorded last, of kind `navigation`: the
    /// page's stored copy goes on to them offline.
    ///
    /// Without `load`, the run was interrupted while the page rendered: what its requests became is
    /// counted, and its edges are not written (the store keeps what an earlier run recorded), since
    /// the run did not find out all it needs; the page counts among those missing requisites.
    private func record(
        _ page: URL, load: PageLoad?, records: [RequestAnswerer.Record], navigations: [URL] = [],
        report: inout PreloadReport, events: SerialEvents
    ) async {
        let documentStatus = if let load { load.documentStatus } else {
            records.last(where: \.isPageDocument).flatMap { record -> Int? in
                if case .loaded(let status, _, _, _) = record.outcome { status } else { nil }
            }
        }
        var pageFailure = documentStatus.flatMap { $0 >= 400 ? "HTTP \($0)" : nil }
        if documentStatus == nil, let failed = records.first(where: { $0.isPageDocument }),
            case .failed(let reason) = failed.outcome
        {
            pageFailure = reason
        }
        if load?.hitCap == true { report.cappedPages.append(page.redactedForMessages) }
        let key = page.cacheKey
        var edges = [PageEdge(resourceURL: key.absoluteString, kind: "page", failure: pageFailure)]
        var listed: Set<URL> = [key]
        var counted: Set<URL> = []
        let document = records.last(where: \.isPageDocument)?.url ?? key
        let browsersFavicon = URL(string: "/favicon.ico", relativeTo: document)?.absoluteURL.cacheKey
        let declaredIcons = Set((load?.iconURLs ?? []).compactMap { URL(string: $0)?.cacheKey })
        for record in records {
            let isBrowsersFavicon = record.url == browsersFavicon && record.kind == "other"
                && !declaredIcons.contains(record.url)
            switch record.outcome {
            case .loaded(let status, let source, let bytes, let notStored):
                report.networkBytes += bytes
                if source == .network || source == .revalidated { report.requests += 1 }
                let failure = status >= 400 ? "HTTP \(status)" : notStored.map { "not stored: \($0)" }
                if failure == nil, counted.insert(record.url).inserted { report.sources[source, default: 0] += 1 }
                guard !(isBrowsersFavicon && failure != nil), listed.insert(record.url).inserted else { continue }
                edges.append(PageEdge(resourceURL: record.url.absoluteString, kind: record.kind, failure: failure))
                if status >= 400 {
                    Self.add(.init(url: record.url.redactedForMessages, reason: "HTTP \(status)"), to: &report.failures)
                } else if let notStored {
                    Self.add(.init(url: record.url.redactedForMessages, reason: notStored), to: &report.notStored)
                }
            case .passedThrough:
                report.requests += 1
                report.passedThrough += 1
            case .failed(let reason):
                guard !isBrowsersFavicon else { continue }
                if record.method == "GET" || record.method == "HEAD", listed.insert(record.url).inserted {
                    edges.append(PageEdge(resourceURL: record.url.absoluteString, kind: record.kind, failure: reason))
                }
                Self.add(.init(url: record.url.redactedForMessages, reason: reason), to: &report.failures)
            case .abandoned:
                // Given up by a page that was done is nothing; by an interrupted run, unfinished.
                if load == nil { report.unfinished += 1 }
            }
        }
        for target in navigations where listed.insert(target).inserted {
            edges.append(PageEdge(resourceURL: target.absoluteString, kind: "navigation", failure: nil))
        }
        if let pageFailure {
            report.failedPages += 1
            report.failures.append(.init(url: page.redactedForMessages, reason: pageFailure))
        }
        guard load != nil else {
            if pageFailure == nil { report.pagesMissingRequisites += 1 }
            return
        }
        do {
            try await answerer.loader.store.setEdges([key.absoluteString: edges], partition: answerer.context.partition,
                                                     onlyIf: answerer.context.saveCondition)
        } catch {
            let reason = Preloader.unrecordedReason(error)
            report.failures.append(.init(url: page.redactedForMessages, reason: reason))
            events.send(.failed(url: page, reason: reason))
        }
    }

    /// Adds `problem` to `list` unless it is there already (a URL several pages need).
    private static func add(_ problem: PreloadReport.Problem, to list: inout [PreloadReport.Problem]) {
        if !list.contains(problem) { list.append(problem) }
    }

    private func fail(_ page: URL, reason: String, report: inout PreloadReport, events: SerialEvents) {
        report.failedPages += 1
        report.failures.append(.init(url: page.redactedForMessages, reason: reason))
        events.send(.failed(url: page, reason: reason))
    }
}

/// What a tab emulates of a ``DeviceProfile``: its viewport, pixel ratio, whether it is a phone or
/// tablet, and the user preferences media queries ask about.
struct DeviceProfileSettings: Sendable {
    var width: Int
    var height: Int
    var pixelRatio: Double
    var isMobile: Bool
    var mediaFeatures: [String: String]

    init(_ device: DeviceProfile) {
        width = device.viewportWidth
        height = device.viewportHeight
        pixelRatio = device.devicePixelRatio
        isMobile = device.usesMobileViewport
        mediaFeatures = Dictionary(uniqueKeysWithValues: device.preferenceFeatures.map { ($0.name, $0.keyword) })
    }
}

/// Calls a progress handler from one task at a time, as ``WebCache/preload(_:options:events:)`` promises.
final class SerialEvents: Sendable {
    private let handler: Mutex<@Sendable (PreloadEvent) -> Void>

    init(_ handler: @escaping @Sendable (PreloadEvent) -> Void) {
        self.handler = Mutex(handler)
    }

    func send(_ event: PreloadEvent) {
        handler.withLock { $0(event) }
    }
}

/// The records of one page's requests, appended from the tasks that answer them.
final class RecordList: Sendable {
    private let records = Mutex<[RequestAnswerer.Record]>([])

    func append(_ record: RequestAnswerer.Record) {
        records.withLock { $0.append(record) }
    }

    var all: [RequestAnswerer.Record] { records.withLock { $0 } }
}
