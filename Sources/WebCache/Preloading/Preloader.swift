import CacheStore
import Discovery
import FoundationEssentials
import HTTPCore
import Synchronization
import Transport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The preload engine: fetches pages and everything they need into the store, concurrently, with
/// structured concurrency only (one task group; no task outlives a run).
///
/// One scheduling loop owns all bookkeeping (``PreloadSchedule``). Fetches run as child tasks of one
/// group, at most ``PreloadOptions/concurrency`` at once and ``PreloadOptions/perHostConcurrency``
/// per host; they report back through a stream of messages. References are sent as the scanner
/// finds them in the arriving bytes, so a page's stylesheets and images start downloading before
/// the page has finished. Each URL is fetched once per run however many pages reference it.
/// Transient failures are retried with exponential backoff and jitter, honouring `Retry-After`.
/// Redirects are followed by the engine, each hop held to the host and address rules of a reference.
/// Each page's edges (every requisite, through stylesheets and frames, with what failed) are
/// written to the store once the page and all it needs have ended, at most every ``edgeInterval``
/// and at the end, so `inspect --pages` can tell whether the page is complete offline, also after a
/// run that was stopped half-way.
///
/// Cancelling the task that runs ``run(pages:events:)`` stops it: no fetch starts any more, those
/// in flight end as cancelled, the pages that had settled get their edges as in a whole run, and the
/// report says it was ``PreloadReport/interrupted``.
struct Preloader: Sendable {
    /// Why a page's list of requisites was not recorded: its user signed out meanwhile (in any process
    /// that shares the store, which then refuses the work's writes), or the store's error.
    static func unrecordedReason(_ error: any Error) -> String {
        if let error = error as? CacheStore.Error, error.code == .withdrawn {
            return "its list of requisites was not recorded: its user signed out during the run"
        }
        return "its list of requisites could not be stored: \(error)"
    }

    let loader: Loader
    let context: RequestContext
    let options: PreloadOptions
    let logger: Logger
    private let addresses: AddressPolicy
    private let requestCount = RequestCounter()
    /// The URLs this run reached through redirects, whose responses it stored on the way.
    private let redirectTargets = RedirectTargets()
    /// The stylesheets, frames and manifests this run stored or had confirmed (``ConfirmedURLs``).
    private let confirmedContainers = ConfirmedURLs()
    /// How many fetches the transport is handed at once.
    private let limits: PreloadLimits
    /// The options' hosts as URLs give them (``PreloadOptions/comparableHost(_:)``).
    private let allowedHosts: Set<String>
    private let deniedHosts: Set<String>
    /// How this run looks for requisites (``discovery(for:)``), or `nil` when it settles no page from its record.
    private let discovery: String?

    init(loader: Loader, context: RequestContext, options: PreloadOptions, logger: Logger) {
        precondition(options.concurrency > 0 && options.perHostConcurrency > 0, "Preload concurrency must be positive.")
        self.loader = loader
        self.options = options
        self.logger = logger
        allowedHosts = Set(options.allowedHosts.map(PreloadOptions.comparableHost))
        deniedHosts = Set(options.deniedHosts.map(PreloadOptions.comparableHost))
        discovery = Self.discovery(for: options)
        var limits = PreloadLimits(concurrency: options.concurrency, perHost: options.perHostConcurrency)
        if let curl = loader.transport as? CurlTransport {
            limits.handsAhead = curl.configuration.maxConnections <= options.concurrency
                && curl.configuration.maxConnectionsPerHost <= options.perHostConcurrency
            limits.multiplexesTLS = curl.configuration.httpVersion == .http2OverTLS
        }
        self.limits = limits
        let addresses = AddressPolicy()
        self.addresses = addresses
        // Redirects obey the address policy too: a public resource may not redirect to a private address.
        self.context = RequestContext(
            partition: context.partition, session: CountingSending(inner: context.session, count: requestCount),
            allowsRedirect: { from, to in
                await addresses.resolve([from.host, to.host].compactMap { $0 })
                return addresses.allows(to, from: from)
            }, saveCondition: context.saveCondition)
    }

    /// What the requisites this engine finds for a page depend on besides the bytes it reads: the
    /// build's ``discoveryRevision`` and every option that changes what is found, chosen or fetched.
    /// Its pages' records are written with it, and a listed page whose record was written with the
    /// same text, from the entries the store still holds, every one fresh, is settled from its record
    /// without being read again (``CacheStore/recordedPages(partition:urls:discovery:at:confirmed:)``). `nil`
    /// when the run does not do that: it follows links (which are not recorded), revalidates fresh
    /// entries, or looks for no requisites.
    static func discovery(for options: PreloadOptions) -> String? {
        guard options.includesRequisites, options.depth == 0, !options.revalidatesFreshEntries else { return nil }
        let chooser = options.chooser
        let device =
            switch chooser.mode {
            case .allCandidates: "every candidate"
            case .device(let profile): profile.fingerprint
            }
        return [
            "webcache \(WebCache.version) discovery \(discoveryRevision)", "device \(device)",
            "icons \(chooser.fetchesAllIcons ? "all" : "browser")", "noscript read",
            "media \(options.includesMedia) up to \(options.maximumMediaSize)",
            "resources up to \(options.maximumResourceSize.map(String.init) ?? "any size")",
            "allowed \(options.allowedHosts.map(PreloadOptions.comparableHost).sorted())",
            "denied \(options.deniedHosts.map(PreloadOptions.comparableHost).sorted())",
        ].joined(separator: "\n")
    }

    /// Raised whenever what the scanners or the device rules find in the same bytes changes, so that
    /// no page is settled from a record an earlier build made.
    static let discoveryRevision = 1

    /// How often the pages that have ended get their edges written during a run.
    static let edgeInterval: Duration = .seconds(1)

    /// A message from a fetch (or the edge timer) to the scheduling loop.
    private enum Message: Sendable {
        /// Time to write the edges of the pages that have ended.
        case recordEdges
        /// References found in an item, with the font families it names and the characters a
        /// stylesheet shows so far; `isDocument` when it is HTML. `fromPublicAddress` tells whether
        /// the item's response came from a public address.
        case found([Reference], families: Set<FontFamilyUse>, characters: TextCharacters, in: PreloadItem, base: URL,
                   fromPublicAddress: Bool, isDocument: Bool)
        /// A document's `<meta name=viewport>`, sent before the references found after it.
        case declaredViewport(PreloadItem, ViewportDeclaration)
        /// A document has been scanned to its end: its elements, for the style rules' selectors.
        case scannedDocument(PreloadItem, DocumentTree)
        /// A listed page the origin confirmed unchanged (a `304`) whose record stands for the run:
        /// its body was read, not scanned, and it needs what the record lists.
        case confirmed(PreloadItem, RecordedPage)
        case retrying(URL, attempt: Int, delay: TimeInterval, reason: String)
        /// The item's last transfer has received its whole body; reading and saving it may still run.
        case transferred(PreloadItem)
        case finished(PreloadItem, Outcome)
    }

    private enum Outcome: Sendable {
        /// Stored; `scanned` is the SHA-256 of the body when it was read for references at its own URL.
        case stored(status: Int, networkBytes: Int64, source: ResponseSource, scanned: Data?)
        /// Fetched, and kept out of the store by the caching rules, for `reason` (such as `no-store`).
        case notStored(status: Int, networkBytes: Int64, reason: String)
        case failed(String)
        /// The run was cancelled before the fetch ended: it neither stored nor failed.
        case cancelled
    }

    // MARK: - Running

    /// An entry of the list of pages: a page, or a reference that is none, and why.
    enum ListedPage: Sendable {
        case page(PreloadPage)
        case invalid(PreloadReport.Problem)
    }

    /// How many listed pages may wait, run or have their edges unwritten at once: the list is read
    /// on as they settle, so that what the run keeps follows what is in flight, not the list's length.
    ///
    /// A page whose requisites are fetched is held until all it needs has ended, with its document's
    /// elements (for the style rules' selectors), what it references and what waits for it: about
    /// 30 KB a page on the benchmark's generated site, where a window of 256 such pages held 6 MB more
    /// than a whole run of 100. Such runs hold ``requisitePagesPerTransfer`` pages a transfer, which
    /// keep every transfer busy, since each page brings at least itself to fetch. Pages fetched alone
    /// hold little more than their URL, and are read 16 a transfer ahead, which spaces out the
    /// transactions that store their edges.
    var pageWindow: Int {
        options.includesRequisites
            ? max(64, Self.requisitePagesPerTransfer * options.concurrency) : max(256, 16 * options.concurrency)
    }

    /// How many pages whose requisites are fetched the window holds per transfer (``pageWindow``).
    static let requisitePagesPerTransfer = 4

    /// Preloads the pages `list` yields, read as the run goes, and their requisites; a list entry
    /// that is a problem is reported as a failure (first in the report) and the rest goes on.
    /// `events` is called from one task at a time, in order.
    func run(
        pages list: some Sequence<ListedPage> & Sendable,
        events: @Sendable (PreloadEvent) -> Void
    ) async -> PreloadReport {
        let started = Date()
        var report = PreloadReport()
        var invalid: [PreloadReport.Problem] = []
        var schedule = PreloadSchedule(limits: limits)
        var listed = list.makeIterator()
        var listEnded = false
        /// Pages whose edges were stored during the run, and how many of them had failed.
        var recordedFailedPages = 0
        // A store that holds no entry when the run starts has none to answer from: what this run
        // stores is for URLs it has seen, which it does not fetch again (a redirect's target that the
        // list names later is still answered, the full way, by the loader). A cold run into a new
        // store then reads nothing from it before each batch.
        let answersFromStore = (try? loader.store.totals().entryCount != 0) ?? true
        /// Whether enough hits were recorded that the store should write them (``flushHits``).
        var hitsToFlush = false
        /// Gives the items whose fresh entry answers them (``answerFromStore(_:asPages:)``) their
        /// outcome, and returns the others, in order, to fetch; items already looked up are not
        /// asked again. `listed` items are pages read from the list, admitted without being recorded
        /// as pages and not started: each is recorded as a page now, unless a fresh entry answers it
        /// and the store records it as a page that needs nothing but itself, which is what this run
        /// would record of it (its body is not looked into), so it has nothing to record.
        func settleAnswered(_ items: [PreloadItem], listed: Bool) -> [PreloadItem] {
            let asked = answersFromStore ? items.filter { !$0.lookedUpInStore } : []
            let (found, flush) = answerFromStore(asked, asPages: listed)
            hitsToFlush = hitsToFlush || flush
            var lookups = found.makeIterator()
            var unanswered: [PreloadItem] = []
            for var item in items {
                let lookup = item.lookedUpInStore ? nil : lookups.next()
                if case .answered(let answer)? = lookup {
                    if !listed {
                        schedule.finish(item, failure: nil)
                    } else if let record = answer.record {
                        settle(item, from: record, at: answer.instant)
                    } else if !answer.entry.isLonePage {
                        schedule.recordPage(item)
                    }
                    // An item read again for a document was reported when a page's record answered it.
                    guard !item.rereads else { continue }
                    report.sources[.hit, default: 0] += 1
                    events(.fetched(url: item.url, status: answer.entry.status, bytes: 0, source: .hit))
                } else {
                    if case .nothingStored? = lookup { item.storeHoldsNothing = true }
                    if listed { schedule.recordPage(item) }
                    unanswered.append(item)
                }
            }
            return unanswered
        }
        /// Settles a listed page from its record: each of its edges is stored and fresh, and ends
        /// here as a hit, unless the run saw it before; those that hold references are left unread
        /// until a document that uses them is read (``PreloadSchedule/takeUnread(_:)``).
        /// Its hits are at `now`, the instant of the lookup that answered the page, like those of every
        /// page that lookup answered: the store writes hits alike with one statement.
        func settle(_ page: PreloadItem, from record: RecordedPage, at now: Date) {
            schedule.settleFromRecord(page: page.key)
            for edge in record.edges where edge.kind != "page" {
                admit(edge, key: URLKey(edge.resourceURL), at: now)
            }
        }
        /// Ends an edge of a page's record as a hit, unless the run saw it before; one that holds
        /// references is left unread until a document that uses it is read (``PreloadSchedule/takeUnread(_:)``).
        func admit(_ edge: RecordedPage.Edge, key: URLKey, at now: Date) {
            // Most edges of a site's pages are shared, and seen by the time a page is settled.
            guard !schedule.hasSeen(key) else { return }
            let kind = Reference.Kind(rawValue: edge.kind)
            let holdsReferences = kind.map { ResourceScanner.scans($0, contentType: edge.contentType ?? "") } ?? true
            guard schedule.admitFromRecord(key, unread: holdsReferences) else { return }
            hitsToFlush = loader.store.recordHit(entryID: edge.entryID, at: now) || hitsToFlush
            report.sources[.hit, default: 0] += 1
            if let url = URL(string: edge.resourceURL) {
                events(.fetched(url: url, status: edge.status, bytes: 0, source: .hit))
            }
        }
        /// The SHA-256 of each body this run read for references, by URL, that a page's record may
        /// name: a page's until its edges are stored, a stylesheet's, frame's or manifest's (few: a
        /// site's pages share them) for the run.
        var scannedBodies: [String: Data] = [:]
        /// Pages the origin confirmed unchanged that need what their records list: their recorded
        /// edges and what was left out for them stay as they are (``writeEdges(of:_:skipped:keeping:scanned:comparingFirst:)``).
        var confirmedPages: Set<URLKey> = []
        /// Reads the list on while the window has room, at most a window's worth of new pages at a
        /// time: the pages read at one time are looked up in the store together, those answered by a
        /// fresh entry end there, and the others are queued.
        func readList(beyondWindow extra: Int = 0) {
            let limit = pageWindow + extra
            var admitted = 0
            while !listEnded, schedule.pages.count < limit, admitted < limit, !Task.isCancelled {
                var read: [PreloadItem] = []
                while schedule.pages.count + read.count < limit, admitted < limit {
                    switch listed.next() {
                    case nil:
                        listEnded = true
                    case .page(let page)?:
                        // A denied host is never fetched from, a listed page on it neither.
                        if let reason = denial(of: page.url) {
                            skip(page.url, reason: reason, schedule: &schedule, report: &report, events: events)
                            continue
                        }
                        let item = PreloadItem(url: page.url, kind: nil, depth: 0)
                        if schedule.admit(item, recordingPage: false) {
                            admitted += 1
                            report.pages += 1
                            read.append(item)
                        }
                        continue
                    case .invalid(let problem)?:
                        invalid.append(problem)
                        if let url = URL(string: problem.url) { events(.failed(url: url, reason: problem.reason)) }
                        continue
                    }
                    break
                }
                for var item in settleAnswered(read, listed: true) {
                    item.lookedUpInStore = true
                    schedule.queue(item)
                }
            }
        }
        let messages = MessageQueue<Message>()
        var selections = DeviceSelections(chooser: options.chooser)
        /// What each document left out for the device, by resource URL, for its edges.
        var skippedByDocument: [URL: [String: PageSkip]] = [:]
        func carryOut(_ decisions: [DeviceSelections.Decided]) {
            for decided in decisions {
                let reference = decided.choice.reference
                // Every skip is reported; of the fetches, those that depended on the device.
                if reference.condition != nil || !decided.choice.fetches {
                    events(.selected(url: reference.url, kind: reference.kind.rawValue, in: decided.origin.base,
                                     fetched: decided.choice.fetches, reason: decided.choice.reason))
                }
                if decided.choice.fetches {
                    consider(reference, from: decided.origin, for: decided.document, schedule: &schedule,
                             report: &report, events: events)
                } else if reference.isRequisite {
                    guard let url = URL.cacheKeyText(ofAbsoluteString: reference.urlString) else { continue }
                    skippedByDocument[decided.document, default: [:]][url] = PageSkip(
                        resourceURL: url, kind: reference.kind.rawValue, reason: decided.choice.reason)
                }
            }
        }
        /// About how many pages settled since the settled pages were last recorded: the documents that
        /// finished, and the pages that ended without opening one. A quarter of the window's worth
        /// makes a batch. (Counting every ended fetch instead recorded a site's pages two or three at
        /// a time, and each such transaction wrote again, among others, the index pages that list the
        /// pages of each requisite they share.)
        var settledSinceRecording = 0
        /// The schedule's ``PreloadSchedule/settlingChanges`` when the open documents were last asked
        /// about: until it moves, none of them can have settled. (A document opens while its own
        /// fetch runs, so a new one has not settled either.)
        var settlingCheckedAt = -1
        func finishSettledDocuments() {
            guard schedule.settlingChanges != settlingCheckedAt else { return }
            settlingCheckedAt = schedule.settlingChanges
            for document in selections.openDocuments where schedule.checkSettled(document.key) {
                carryOut(selections.finish(document: document.url))
                schedule.forgetSettling(of: document.key)
                settledSinceRecording += 1
            }
        }
        /// Stores the edges of the pages that have settled and lets go of what they referenced.
        /// A failure here is retried with the rest at the end, and reported then.
        @discardableResult
        func recordSettledPages() async -> Bool {
            finishSettledDocuments()
            let settled = schedule.pages.filter { schedule.checkSettled($0) }
            do {
                try await writeEdges(
                    of: settled, schedule, skipped: skippedByDocument, keeping: confirmedPages,
                    scanned: scannedBodies, comparingFirst: answersFromStore)
            } catch {
                return false
            }
            settledSinceRecording = 0
            recordedFailedPages += settled.count { schedule.failure(of: $0.key) != nil }
            for page in settled {
                skippedByDocument[page.url] = nil
                confirmedPages.remove(page.key)
                scannedBodies[page.url.absoluteString] = nil
            }
            schedule.forget(pages: settled)
            return true
        }
        readList()
        // Discarding, so that a finished fetch's task is freed at once: a group that keeps results
        // holds every finished task until the run ends (113 MB at the peak for 3,363 responses,
        // 46 MB this way).
        await withDiscardingTaskGroup { group in
            func startWhatFits() {
                // Fetches whose body has arrived but is still being read and saved hold up to a
                // buffer each; one slot's worth of them at most keeps memory bounded. A cancelled
                // run starts nothing more. Items whose stored entry is fresh and need not be read
                // end here, without a task (``answerFromStore(_:asPages:)``), and free their slot at once.
                while true {
                    var taken: [PreloadItem] = []
                    while !Task.isCancelled, schedule.unfinished < (limits.handsAhead ? 3 : 2) * options.concurrency,
                        let item = schedule.nextRunnable()
                    {
                        taken.append(item)
                    }
                    guard !taken.isEmpty else { return flushHits() }
                    let fetched = settleAnswered(taken, listed: false)
                    for item in fetched {
                        let readingStore = answersFromStore && !item.storeHoldsNothing
                        group.addTask { await fetch(item, readingStore: readingStore, messages: messages) }
                    }
                    guard fetched.count < taken.count else { return flushHits() }
                    finishSettledDocuments()
                    settledSinceRecording += taken.count(where: \.isPage) - fetched.count(where: \.isPage)
                    readList()
                }
            }
            /// Has the store write the hits recorded so far beside the run, once enough wait.
            func flushHits() {
                guard hitsToFlush else { return }
                hitsToFlush = false
                group.addTask { try? await loader.store.flushAccessLog() }
            }
            startWhatFits()
            guard schedule.unfinished > 0 || !listEnded else { return }
            group.addTask {
                while (try? await Task.sleep(for: Preloader.edgeInterval)) != nil {
                    messages.send(.recordEdges)
                }
            }
            // Every fetch started sends how it ended, cancelled or not: the loop ends with the last.
            while schedule.unfinished > 0 || (!listEnded && !Task.isCancelled) {
                if schedule.unfinished == 0 {
                    // Nothing runs, and the window is full of pages that have settled: make room.
                    // If their edges cannot be stored now (they are tried again at the end), the
                    // window grows instead, so that the run goes on.
                    let recorded = await recordSettledPages()
                    readList(beyondWindow: recorded ? 0 : schedule.pages.count)
                    startWhatFits()
                    continue
                }
                for message in await messages.next() {
                    switch message {
                    case .recordEdges:
                        await recordSettledPages()
                    case .found(
                        let references, let families, let characters, let parent, let base, let fromPublicAddress,
                        let isDocument
                    ):
                        carryOut(selections.found(
                            references, families: families, characters: characters, in: parent, base: base,
                            fromPublicAddress: fromPublicAddress, isDocument: isDocument))
                    case .declaredViewport(let item, let viewport):
                        selections.declare(viewport, in: item)
                    case .scannedDocument(let item, let tree):
                        carryOut(selections.scanned(document: item.url, tree: tree))
                    case .confirmed(let page, let record):
                        // It needs what its record lists, as if it had found each there.
                        confirmedPages.insert(page.key)
                        let now = loader.clock()
                        for edge in record.edges where edge.kind != "page" {
                            let key = URLKey(edge.resourceURL)
                            schedule.recordReference(from: page.key, to: edge.resourceURL, key: key, kind: edge.kind)
                            admit(edge, key: key, at: now)
                        }
                    case .retrying(let url, let attempt, let delay, let reason):
                        events(.retrying(url: url, attempt: attempt, delay: delay, reason: reason))
                    case .transferred(let item):
                        schedule.endTransfer(item)
                    case .finished(let item, let outcome):
                        switch outcome {
                        case .stored(let status, let bytes, let source, let scanned):
                            schedule.finish(item, failure: nil)
                            if let scanned { scannedBodies[item.url.absoluteString] = scanned }
                            if item.tier == 0, source == .network || source == .revalidated {
                                confirmedContainers.insert(item.url.absoluteString)
                            }
                            // An item read again for a document was reported when a page's record answered it.
                            guard !item.rereads else { break }
                            report.sources[source, default: 0] += 1
                            report.networkBytes += bytes
                            events(.fetched(url: item.url, status: status, bytes: bytes, source: source))
                        case .notStored(let status, let bytes, let reason):
                            // Its page's record says why the page is not complete offline.
                            schedule.finish(item, failure: "not stored: \(reason)")
                            report.notStored.append(.init(url: item.url.redactedForMessages, reason: reason))
                            report.networkBytes += bytes
                            events(.fetched(url: item.url, status: status, bytes: bytes, source: .network))
                        case .failed(let reason):
                            schedule.finish(item, failure: reason)
                            report.failures.append(.init(url: item.url.redactedForMessages, reason: reason))
                            events(.failed(url: item.url, reason: reason))
                        case .cancelled:
                            schedule.giveUp(item)
                        }
                        if item.isPage, !selections.isOpen(item.url) { settledSinceRecording += 1 }
                    }
                }
                finishSettledDocuments()
                // With the window full, the pages that settled make room for the next ones.
                if !listEnded, schedule.pages.count >= pageWindow, settledSinceRecording >= pageWindow / 4 {
                    await recordSettledPages()
                }
                readList()
                startWhatFits()
            }
            group.cancelAll()
        }
        report.interrupted = Task.isCancelled
        report.listUnread = report.interrupted && !listEnded
        for document in selections.openDocuments { carryOut(selections.finish(document: document.url)) }

        // Every page has settled at the end of a whole run. After a cancelled one, a page that had
        // not is left as the store has it: it keeps what an earlier run recorded (a page this run
        // saw first is not listed), since this run did not find out all it needs.
        let remaining = schedule.pages.filter { schedule.isSettled($0) }
        do {
            try await writeEdges(
                of: remaining, schedule, skipped: skippedByDocument, keeping: confirmedPages,
                scanned: scannedBodies, comparingFirst: answersFromStore)
        } catch {
            let reason = Self.unrecordedReason(error)
            for page in remaining {
                report.failures.append(.init(url: page.url.redactedForMessages, reason: reason))
            }
        }
        report.failures.insert(contentsOf: invalid, at: 0)
        report.failedPages = recordedFailedPages
            + schedule.pages.count { schedule.hasEnded($0.key) && schedule.failure(of: $0.key) != nil }
        report.unfinished = schedule.unendedCount
        report.unfinishedPages = schedule.pages.count { !schedule.hasEnded($0.key) }
        report.pagesMissingRequisites = schedule.pages.count {
            schedule.hasEnded($0.key) && schedule.failure(of: $0.key) == nil && !schedule.isSettled($0)
        }
        report.requests = requestCount.value
        report.duration = Date().timeIntervalSince(started)
        return report
    }

    /// What the store answers an item with, without a request: its fresh entry, and for a listed
    /// page whose body this run would read, the record that settles it.
    private struct StoreAnswer {
        var entry: CacheStore.FreshEntry
        var record: RecordedPage?
        /// When the lookup that answered it ran: the instant of its hits.
        var instant: Date
    }

    /// What the store said of one item (``answerFromStore(_:asPages:)``).
    private enum StoreLookup {
        /// A fresh entry, or a page's record with it, answers the item.
        case answered(StoreAnswer)
        /// Something is stored that the loader decides on by the full rules.
        case unanswered
        /// Nothing is stored for a `GET` of the item's URL: its load need not read the store.
        case nothingStored
    }

    /// For each of `items`, the fresh stored entry that answers it without a request and without
    /// reading its body (nothing in it to scan for this run), else whether anything is stored for it
    /// at all; and whether enough hits wait that the store should write them. One read of the store
    /// for them all (``CacheStore/lookUp(partition:urls:at:asPages:)``, which for pages also reads
    /// whether each is recorded as needing nothing but itself), deciding from the stored columns as
    /// the loader's hit does; a hit is recorded for each answered. A listed page whose body would be
    /// read is answered too when its record stands for this run (``discovery``) and every edge is
    /// within the size limits: a second read for those. A store that cannot be read answers nothing
    /// here: the full way then reports the error for each URL.
    private func answerFromStore(_ items: [PreloadItem], asPages: Bool) -> (lookups: [StoreLookup], flush: Bool) {
        var lookups = [StoreLookup](repeating: .unanswered, count: items.count)
        guard !items.isEmpty, !options.revalidatesFreshEntries, !loader.store.configuration.readOnly else {
            return (lookups, false)
        }
        let now = loader.clock()
        guard let holdings = try? loader.store.lookUp(
            partition: context.partition, urls: items.map(\.url.absoluteString), at: now, asPages: asPages)
        else { return (lookups, false) }
        var flush = false
        /// Fresh pages whose body this run would read: their records may answer them.
        var read: [(index: Int, entry: CacheStore.FreshEntry)] = []
        for (index, (item, holding)) in zip(items, holdings).enumerated() {
            guard case .fresh(let entry) = holding else {
                if holding == .nothing { lookups[index] = .nothingStored }
                continue
            }
            guard withinLimits(kind: item.kind?.rawValue, size: entry.bodySize) else { continue }
            guard !scansBody(of: item, contentType: entry.contentType) else {
                if asPages, discovery != nil { read.append((index, entry)) }
                continue
            }
            flush = loader.store.recordHit(entryID: entry.id, at: now) || flush
            lookups[index] = .answered(StoreAnswer(entry: entry, record: nil, instant: now))
        }
        guard let discovery, !read.isEmpty, let records = try? loader.store.recordedPages(
            partition: context.partition, urls: read.map { items[$0.index].url.absoluteString }, discovery: discovery,
            at: now)
        else { return (lookups, flush) }
        for (page, record) in zip(read, records) {
            guard let record, record.edges.allSatisfy({ withinLimits(kind: $0.kind, size: $0.bodySize) }) else { continue }
            flush = loader.store.recordHit(entryID: page.entry.id, at: now) || flush
            lookups[page.index] = .answered(StoreAnswer(entry: page.entry, record: record, instant: now))
        }
        return (lookups, flush)
    }

    /// Whether a stored body of `size` bytes is within this run's limits for a resource of `kind`
    /// (a ``Reference/Kind`` raw value; `nil` for a page).
    private func withinLimits(kind: String?, size: Int64) -> Bool {
        (kind != Reference.Kind.media.rawValue || size <= options.maximumMediaSize)
            && size <= options.maximumResourceSize ?? .max
    }

    /// Whether this run reads the body of `item`, with a response of `contentType`, for references.
    private func scansBody(of item: PreloadItem, contentType: String?) -> Bool {
        let wanted = options.includesRequisites || (item.isPage && item.depth < options.depth)
        return wanted && ResourceScanner.scans(item, contentType: contentType ?? "")
    }

    /// Decides what to do with one reference found where `origin` says.
    private func consider(
        _ reference: Reference, from origin: DeviceSelections.Origin, for document: URL,
        schedule: inout PreloadSchedule, report: inout PreloadReport, events: (PreloadEvent) -> Void
    ) {
        let parent = origin.item
        let base = origin.base
        // Keyed by its text first: a reference to what the run has seen (most of them: the same
        // images, scripts and stylesheets on every page) needs no Foundation `URL`.
        guard let text = URL.cacheKeyText(ofAbsoluteString: reference.urlString) else { return }
        // Made once: the schedule is asked about it several times below.
        let key = URLKey(text)
        if reference.kind == .link {
            guard parent.isPage, parent.depth < options.depth, !schedule.hasSeen(key) else { return }
        } else {
            guard reference.isRequisite, options.includesRequisites else { return }
            // Only HTTP URLs are seen, so this one is too.
            if schedule.hasSeen(key) && !schedule.isForgotten(key) && !schedule.isUnread(key) {
                schedule.recordReference(from: parent.key, to: text, key: key, kind: reference.kind.rawValue)
                return
            }
        }
        // A plain URL (nearly every one a page holds) is read from its bytes and needs no check of
        // its host or port below: ``HTTPURLCheck/plainURL(_:)`` passes only URLs that pass it.
        let plain = HTTPURLCheck.plainURL(text)
        if plain == nil { InternationalNames.prepare(forURL: text) }
        guard let url = plain ?? URL(string: text), plain != nil || url.isHTTP else { return }
        if reference.kind == .link {
            // Navigation: follow same-site links from pages while depth allows, within the same
            // host and address rules as requisites.
            guard url.isSameSite(as: parent.url) else { return }
            if let reason = refusal(of: url, fromPublicAddress: origin.fromPublicAddress) {
                skip(url, reason: reason, schedule: &schedule, report: &report, events: events)
                return
            }
            _ = schedule.enqueue(PreloadItem(
                url: url, kind: nil, depth: parent.depth + 1,
                refusesPrivateAddresses: origin.fromPublicAddress))
            report.pages += 1
            events(.discovered(url: url, kind: "page", in: base))
            return
        }
        schedule.recordReference(from: parent.key, to: text, key: key, kind: reference.kind.rawValue)
        if schedule.isForgotten(key) { recall(page: url, into: &schedule) }
        // Answered by a page's record without being read: read now for what it holds here.
        if schedule.isUnread(key) {
            schedule.takeUnread(PreloadItem(
                url: url, kind: reference.kind, depth: parent.depth, refusesPrivateAddresses: origin.fromPublicAddress))
            events(.discovered(url: url, kind: reference.kind.rawValue, in: base))
            return
        }
        guard !schedule.hasSeen(key) else { return }
        // A URL that cannot be requested (a port past 65535, a host that cannot be) fails here, with
        // the reason, instead of in the transport.
        if plain == nil, let problem = HTTPURLCheck.problem(with: url) {
            let reason = "the URL \(problem.reason)"
            schedule.settle(url, reason: reason)
            report.failures.append(.init(url: url.redactedForMessages, reason: reason))
            events(.failed(url: url, reason: reason))
            return
        }
        if let reason = refusal(of: url, fromPublicAddress: origin.fromPublicAddress) {
            skip(url, reason: reason, schedule: &schedule, report: &report, events: events)
            return
        }
        var item = PreloadItem(
            url: url, kind: reference.kind, depth: parent.depth, refusesPrivateAddresses: origin.fromPublicAddress)
        if reference.fetchesInCORSMode { item.corsOrigin = document.serializedOrigin }
        item.environmentEncoding = reference.environmentEncoding
        item.isFrame = reference.isFrame
        _ = schedule.enqueue(item)
        events(.discovered(url: url, kind: reference.kind.rawValue, in: base))
    }

    /// Records that `url` is left out on purpose, and why.
    private func skip(
        _ url: URL, reason: String, schedule: inout PreloadSchedule, report: inout PreloadReport,
        events: (PreloadEvent) -> Void
    ) {
        schedule.settle(url, reason: reason)
        report.skipped.append(.init(url: url.redactedForMessages, reason: reason))
        events(.skipped(url: url, reason: reason))
    }

    /// Why `url` must not be fetched at all, if its host is denied; asked of every listed page, so
    /// that a run without denied hosts does not read a host from each.
    private func denial(of url: URL) -> String? {
        guard !deniedHosts.isEmpty, let host = url.host?.lowercased(), deniedHosts.contains(host) else { return nil }
        return "the host \(host) is denied"
    }

    /// Why `url` must not be fetched for a page that came from a public address (or not), if it must not.
    private func refusal(of url: URL, fromPublicAddress: Bool) -> String? {
        let host = url.host?.lowercased() ?? ""
        if url.user != nil || url.password != nil {
            return "the URL carries a user name or password"
        }
        if let denied = denial(of: url) {
            return denied
        }
        if !allowedHosts.isEmpty, !allowedHosts.contains(host) {
            return "the host \(host) is not among the allowed hosts"
        }
        if !addresses.allows(url, fromPublicAddress: fromPublicAddress) {
            return "a page on a public address may not reach the private address of \(host)"
        }
        return nil
    }

    // MARK: - Fetching

    /// Fetches one item, scanning its body as it streams, with retries for transient failures.
    /// `readingStore` is `false` when the store held no entry as the run began, so that only what
    /// this run stored could answer it, or when the lookup before the fetch found nothing stored for
    /// the item's URL (``PreloadItem/storeHoldsNothing``).
    private func fetch(_ item: PreloadItem, readingStore: Bool, messages: MessageQueue<Message>) async {
        var attempt = 0
        while true {
            let failure: (reason: String, retryAfter: TimeInterval?, transient: Bool)
            do {
                let response = try await load(item, readingStore: readingStore)
                if Preloader.transientStatuses.contains(response.status) {
                    for try await _ in response.body {}
                    failure = ("HTTP \(response.status)", Preloader.retryAfter(response.headers), true)
                } else {
                    // The final response frees the transfer slot once its body has crossed the
                    // network, while it is still scanned and saved; a redirect's or a retried one's does not.
                    response.body.whenReceived { messages.send(.transferred(item)) }
                    let (bytes, scanned) = try await scan(response, for: item, messages: messages)
                    let networkBytes = response.source == .network ? bytes : 0
                    if response.status >= 400 {
                        failure = ("HTTP \(response.status)", nil, false)
                    } else if response.source == .network, let reason = response.notStoredReason {
                        messages.send(.finished(item, .notStored(status: response.status, networkBytes: networkBytes,
                                                                 reason: reason)))
                        return
                    } else {
                        messages.send(.finished(item, .stored(status: response.status, networkBytes: networkBytes,
                                                              source: response.source, scanned: scanned)))
                        return
                    }
                }
            } catch let error where error is CancellationError || Task.isCancelled {
                // A cancelled run gives the fetch up, whatever error its transfer or store call ended with.
                messages.send(.finished(item, .cancelled))
                return
            } catch let error as WebCacheError {
                // A stored copy found damaged while it streamed is gone from the store: a retry fetches it.
                failure = (error.description, nil, error.isTransient || error.code == .damaged)
            } catch let refusal as RedirectRefusal {
                failure = (refusal.reason, nil, false)
            } catch {
                failure = ("\(error)", nil, false)
            }
            guard failure.transient, attempt < options.retries else {
                messages.send(.finished(item, .failed(failure.reason)))
                return
            }
            guard !Task.isCancelled else {
                messages.send(.finished(item, .cancelled))
                return
            }
            attempt += 1
            let delay = retryDelay(attempt: attempt, retryAfter: failure.retryAfter)
            messages.send(.retrying(item.url, attempt: attempt, delay: delay, reason: failure.reason))
            try? await Task.sleep(for: .milliseconds(Int64(delay * 1000)))
        }
    }

    /// Loads `item`, following redirects here rather than in the loader, so that each hop obeys the
    /// rules a reference does: a public server may not send webcache to a private address, and a
    /// requisite or followed link may not be redirected to a denied host (a given page may leave the
    /// allowed hosts). Each redirect response is stored, as the loader stores those it follows.
    /// - Throws: ``WebCacheError`` from the loader, or ``RedirectRefusal``.
    ///
    /// Without `readingStore`, the item's own URL is loaded without reading the store first, unless
    /// this run stored it as a redirect's target (what the run fetched itself it does not fetch again).
    private func load(_ item: PreloadItem, readingStore: Bool) async throws -> WebResponse {
        var request = WebRequest(url: item.url)
        request.followsRedirects = false
        // An answer that varies on what a browser accepts is stored for what it asks, so that the
        // browser finds it offline.
        for (name, value) in BrowserRequestFields.fields(for: item.kind) where !loader.defaultHeaders.contains(name) {
            request.headers[name] = value
        }
        // A CORS-mode fetch carries its document's origin, and the answer stored is the one for it.
        if let origin = item.corsOrigin { request.headers["Origin"] = origin }
        // Audio and video are held to both caps: the media cap narrows the resource cap, never widens it.
        request.maximumBodySize = item.kind == .media
            ? min(options.maximumMediaSize, options.maximumResourceSize ?? .max) : options.maximumResourceSize
        if options.revalidatesFreshEntries { request.headers["Cache-Control"] = "max-age=0" }
        // What a public page references is fetched from public addresses only, checked again when the
        // transport connects; a redirect from a public address passes that on.
        request.refusesPrivateAddresses = item.refusesPrivateAddresses
        let isGivenPage = item.isPage && item.depth == 0
        var current = item.url
        // The URLs asked so far when a redirect comes: a loop goes back to one of them. (A set made
        // for each load hashed its URL for the few that redirect.)
        var redirects: [URL] = []
        // The first redirect the caching rules kept out of the store: offline, the browser stops there.
        var unstoredRedirect: String?
        var policy = readingStore || redirectTargets.contains(item.key)
            ? CachePolicy.useProtocolCachePolicy : .reloadIgnoringCacheData
        while true {
            var response = try await loader.load(current, request: request, policy: policy, context: context)
            guard let next = Loader.redirectTarget(of: response, from: current)?.cacheKey else {
                response.redirects = redirects
                if response.notStoredReason == nil { response.notStoredReason = unstoredRedirect }
                return response
            }
            // Reading the redirect's small body to its end is what stores it.
            _ = try await response.body.collect(upTo: 1 << 20)
            if unstoredRedirect == nil, response.source == .network, let reason = response.notStoredReason {
                unstoredRedirect = "its redirect from \(current.redactedForMessages) (\(response.status)): \(reason)"
            }
            redirects.append(current)
            let chain = { (redirects + [next]).map(\.redactedForMessages).joined(separator: " -> ") }
            guard redirects.count <= Loader.maximumRedirects else {
                throw RedirectRefusal(reason: "it took more than \(Loader.maximumRedirects) redirects: \(chain())")
            }
            guard !redirects.contains(next) else {
                throw RedirectRefusal(reason: "it ran into a redirect loop: \(chain())")
            }
            // The redirect is judged by where it came from, as a reference is by its page.
            let fromPublicAddress = await addresses.isFromPublicAddress(response)
            if fromPublicAddress, let host = next.host { await addresses.resolve([host]) }
            let refused = isGivenPage
                ? (addresses.allows(next, fromPublicAddress: fromPublicAddress)
                    ? nil : "a page on a public address may not reach the private address of \(next.host ?? "")")
                : refusal(of: next, fromPublicAddress: fromPublicAddress)
            if let refused {
                throw RedirectRefusal(reason: "it redirects to \(next.redactedForMessages), and \(refused)")
            }
            if fromPublicAddress { request.refusesPrivateAddresses = true }
            current = next
            redirectTargets.insert(URLKey(next))
            policy = .useProtocolCachePolicy
        }
    }

    /// Why a redirect was not followed.
    private struct RedirectRefusal: Error {
        var reason: String
    }

    /// Reads the body to its end (which stores it), reporting references as they are found.
    /// - Returns: the body's size in bytes, and when it was scanned at the item's own URL in a run
    ///   that records pages' digests, its SHA-256: a record is written only from the bytes it was
    ///   found in (``CacheStore/setEdges(_:partition:keepingKinds:keepingEveryEdgeOf:skipped:comparingFirst:knownNew:discovery:scanned:)``).
    private func scan(
        _ response: WebResponse, for item: PreloadItem, messages: MessageQueue<Message>
    ) async throws -> (bytes: Int64, scanned: Data?) {
        // An error page's references are not what the page needs: a browser shows no page there either.
        let wanted = options.includesRequisites || (item.isPage && item.depth < options.depth)
        // A listed page the origin confirmed unchanged is settled from its record when it stands:
        // read to its end (which checks its bytes), not scanned.
        let record = wanted && response.source == .revalidated ? standingRecord(of: item, response: response) : nil
        var scanner = wanted && record == nil && response.status < 400
            ? ResourceScanner(for: item, url: response.url, headers: response.headers,
                              includesMedia: options.includesMedia)
            : .none
        var bytes: Int64 = 0
        var hasher: SHA256?
        if discovery != nil, response.url == item.url, scanner.scans { hasher = SHA256() }
        var families: Set<FontFamilyUse> = []
        var characters = TextCharacters()
        var viewport: ViewportDeclaration?
        let fromPublicAddress = await addresses.isFromPublicAddress(response)
        func send(_ found: [Reference]) {
            if let declared = scanner.viewport, declared != viewport {
                viewport = declared
                messages.send(.declaredViewport(item, declared))
            }
            let named = scanner.usedFontFamilies
            let newFamilies = named.count > families.count ? named.subtracting(families) : []
            families.formUnion(newFamilies)
            // The characters only grow: when they differ, they have new ones, sent whole.
            let shown = scanner.textCharacters
            let hasNewCharacters = shown != characters
            if hasNewCharacters { characters = shown }
            if !found.isEmpty || !newFamilies.isEmpty || hasNewCharacters {
                messages.send(.found(found, families: newFamilies,
                                     characters: hasNewCharacters ? shown : TextCharacters(), in: item, base: response.url, fromPublicAddress: fromPublicAddress,
                                     isDocument: scanner.isDocument))
            }
        }
        // The run checks a public page's references against their hosts' addresses: those are looked
        // up here, off the run's loop and its threads, before it gets them.
        for try await chunk in response.body {
            bytes += Int64(chunk.count)
            hasher?.update(chunk)
            let found = scanner.feed(chunk)
            if fromPublicAddress { await addresses.resolveHosts(of: found) }
            send(found)
        }
        do {
            let found = try scanner.finish()
            if fromPublicAddress { await addresses.resolveHosts(of: found) }
            send(found)
        } catch {
            logger.warning("\(error)")
        }
        if let tree = scanner.documentTree { messages.send(.scannedDocument(item, tree)) }
        if let record { messages.send(.confirmed(item, record)) }
        return (bytes, hasher?.finalize())
    }

    /// The record of a listed page the origin has just confirmed unchanged, when it stands for this
    /// run (``discovery``) with every other edge fresh, or a stylesheet, frame or manifest this run
    /// stored or had confirmed (a site's frames are often revalidated at every use, as its pages
    /// are), and within the size limits; `nil` otherwise, or when the page was redirected.
    private func standingRecord(of item: PreloadItem, response: WebResponse) -> RecordedPage? {
        guard let discovery, item.isPage, item.depth == 0, response.redirects.isEmpty, response.url == item.url,
            let record = (try? loader.store.recordedPages(
                partition: context.partition, urls: [item.url.absoluteString], discovery: discovery,
                at: loader.clock(), confirmed: confirmedContainers.adding(item.url.absoluteString)))?.first ?? nil,
            record.edges.allSatisfy({ withinLimits(kind: $0.kind, size: $0.bodySize) })
        else { return nil }
        return record
    }

    /// Statuses worth another try (RFC 9110 §15: timeouts, rate limits, temporary server trouble).
    static let transientStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    /// The delay a `Retry-After` field asks for (RFC 9110 §10.2.3), in seconds.
    static func retryAfter(_ headers: HTTPHeaders, now: Date = Date()) -> TimeInterval? {
        guard let value = headers["Retry-After"]?.trimmingHTTPWhitespace() else { return nil }
        if let seconds = Int(value), seconds >= 0 { return TimeInterval(seconds) }
        return HTTPDate.parse(value).map { max(0, $0.timeIntervalSince(now)) }
    }

    /// Exponential backoff with jitter, or the server's `Retry-After`, capped.
    private func retryDelay(attempt: Int, retryAfter: TimeInterval?) -> TimeInterval {
        let cap = Double(options.maximumRetryDelay.components.seconds)
            + Double(options.maximumRetryDelay.components.attoseconds) / 1e18
        if let retryAfter { return min(retryAfter, cap) }
        let base = Double(options.retryDelay.components.seconds)
            + Double(options.retryDelay.components.attoseconds) / 1e18
        let exponential = base * pow(2, Double(attempt - 1))
        return min(exponential * Double.random(in: 0.5...1.0), cap)
    }

    // MARK: - Edges

    /// Writes the requisites of `pages`, with failures, to the store in one transaction. The page
    /// itself is the first edge (kind `page`), so a page with no requisites is listed too, and its
    /// own failure is kept. What this run did not look for (requisites with `includesRequisites`
    /// off, audio and video with `includesMedia` off) keeps the edges an earlier run recorded, so
    /// that a refresh without `--media` does not make a page forget its videos. A page whose own
    /// fetch failed was not read (or not to its end), so it keeps every requisite recorded before:
    /// the stored copy of the page still needs them, and an origin's outage must not make `pin` and
    /// `prune --page` forget them. So does a page one of whose stylesheets, frames or manifests
    /// failed: what it needed through that one is recorded nowhere else. `comparingFirst` is `false`
    /// in a run into a store that held no entry, whose pages are new to it, and pages the store held
    /// nothing for when they were looked up are not compared either (``CacheStore/setEdges(_:partition:keepingKinds:keepingEveryEdgeOf:skipped:comparingFirst:knownNew:discovery:scanned:)``).
    /// The `confirmed` pages need what their records list and were not read for more: their
    /// recorded edges and skips are kept as for a page whose fetch failed.
    private func writeEdges(
        of pages: [PreloadSchedule.Page], _ schedule: PreloadSchedule,
        skipped skippedByDocument: [URL: [String: PageSkip]], keeping confirmed: Set<URLKey>,
        scanned: [String: Data], comparingFirst: Bool
    ) async throws {
        guard !pages.isEmpty else { return }
        // Sized once: grown from empty, it was rehashed a dozen times for a batch.
        var edgesByPage: [String: [PageEdge]] = .init(minimumCapacity: pages.count)
        var skippedByPage: [String: [PageSkip]] = [:]
        /// Pages whose recorded edges and skips stay: those whose fetch failed, and the confirmed ones.
        var keptPages: Set<String> = []
        var newPages: Set<String> = []
        for page in pages {
            let pageURL = page.url.absoluteString
            if page.isNewToStore { newPages.insert(pageURL) }
            let pageFailure = schedule.failure(of: page.key)
            let requisites = [(url: pageURL, kind: "page", failure: pageFailure)] + schedule.requisites(of: page)
            edgesByPage[pageURL] = requisites.map { requisite in
                PageEdge(resourceURL: requisite.url, kind: requisite.kind, failure: requisite.failure)
            }
            // A URL skipped in one place and needed in another is needed.
            // A page without skips is left out: the store reads it as skipping nothing.
            if let skipped = skippedByDocument[page.url] {
                let needed = Set(requisites.map(\.url))
                skippedByPage[pageURL] = skipped.filter { !needed.contains($0.key) }.values
                    .sorted { $0.resourceURL < $1.resourceURL }
            }
            // A stylesheet, frame or manifest that failed was not read either: what the page needed
            // through it stays recorded, since its stored copy still needs it.
            let readAll = pageFailure == nil && !requisites.contains {
                $0.failure != nil && Reference.Kind(rawValue: $0.kind)?.leadsToRequisites == true
            }
            if !readAll || confirmed.contains(page.key) { keptPages.insert(pageURL) }
        }
        try await loader.store.setEdges(
            edgesByPage, partition: context.partition, keepingKinds: unsoughtKinds, keepingEveryEdgeOf: keptPages,
            skipped: skippedByPage, comparingFirst: comparingFirst, knownNew: newPages, discovery: discovery,
            scanned: scanned, onlyIf: context.saveCondition)
    }

    /// Takes back, from its stored edges, what a page whose references were let go needs, when
    /// another page references it (as a frame): that page needs it too. A store that cannot be read
    /// leaves the page's requisites out of the other's edges, with a warning.
    private func recall(page url: URL, into schedule: inout PreloadSchedule) {
        do {
            let edges = try loader.store.edges(forPage: url.absoluteString, partition: context.partition)
            // What this run found for it; an edge kept from an earlier run (media not sought now) is not.
            let found = edges.filter { $0.kind != "page" && schedule.hasSeen($0.resourceURL) }
            schedule.recall(page: url, found.map { ($0.resourceURL, $0.kind) })
        } catch {
            logger.warning("The recorded requisites of \(url.redactedForMessages) could not be read: \(error)")
        }
    }

    /// The kinds of requisite this run does not look for.
    private var unsoughtKinds: Set<String> {
        if !options.includesRequisites { return Set(Reference.Kind.allCases.map(\.rawValue)) }
        return options.includesMedia ? [] : [Reference.Kind.media.rawValue]
    }
}

/// Counts the requests a preload run hands the network (retries, redirects and the replays of a
/// re-authentication included), as the transport gets them: a request still waiting for its token
/// when the run stops, or withdrawn at a sign-out before it was sent, is not counted.
private struct CountingSending: RequestSending {
    let inner: any RequestSending
    let count: RequestCounter

    func send(_ request: HTTPRequest, through transport: any HTTPTransport, logger: Logger) async throws
        -> TransportResponse
    {
        try await inner.send(request, through: CountingTransport(inner: transport, count: count), logger: logger)
    }
}

/// A transport that counts the requests it sends on, each once it has an answer or has failed; not
/// one withdrawn before a byte of it was sent.
private struct CountingTransport: HTTPTransport {
    let inner: any HTTPTransport
    let count: RequestCounter

    func send(_ request: HTTPRequest) async throws -> TransportResponse {
        do {
            let response = try await inner.send(request)
            count.increment()
            return response
        } catch let error as TransportError where error.code == .withdrawn {
            throw error
        } catch {
            count.increment()
            throw error
        }
    }
}

/// URLs reached through redirects, shared by a run's fetches.
private final class RedirectTargets: Sendable {
    private let keys = Mutex<Set<URLKey>>([])

    func insert(_ key: URLKey) {
        _ = keys.withLock { $0.insert(key) }
    }

    func contains(_ key: URLKey) -> Bool {
        keys.withLock { $0.contains(key) }
    }
}

/// URLs shared by the fetches of one run: the stylesheets, frames and manifests the run stored or
/// had confirmed by their origin (a `304`), whose entries a page's record may rely on however short
/// their freshness. Few: a site's pages share them.
private final class ConfirmedURLs: Sendable {
    private let urls = Mutex<Set<String>>([])

    func insert(_ url: String) {
        _ = urls.withLock { $0.insert(url) }
    }

    /// The URLs with `url` added, for one question.
    func adding(_ url: String) -> Set<String> {
        urls.withLock { $0.union(CollectionOfOne(url)) }
    }
}

/// A count shared by the fetches of one run.
private final class RequestCounter: Sendable {
    private let count = Atomic<Int>(0)

    var value: Int { count.load(ordering: .relaxed) }

    func increment() {
        count.add(1, ordering: .relaxed)
    }
}
