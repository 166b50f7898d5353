import Discovery
import FoundationEssentials
import HTTPCore

/// One URL a preload run fetches.
struct PreloadItem: Sendable {
    /// The URL in cache-key form.
    let url: URL
    /// The schedule's key for ``url``, made once: the schedule looks an item up several times.
    let key: URLKey
    /// What it is used for; `nil` for a page (a URL given, or reached through a link).
    var kind: Reference.Kind?
    /// How many links away from a given page it was reached (0 for a given page, and for requisites of one).
    var depth: Int
    /// Whether it was referenced from a public address, so that it may only be fetched from one.
    var refusesPrivateAddresses = false
    /// The `Origin` a browser sends for it, when it fetches it in CORS mode: its document's origin
    /// (``Reference/fetchesInCORSMode``).
    var corsOrigin: String?
    /// For a stylesheet a page references, the page's encoding (``Reference/environmentEncoding``).
    var environmentEncoding: TextEncoding?
    /// Whether the store was already asked whether a fresh entry answers it (a listed page, looked
    /// up with the others read from the list at the same time), so that its fetch does not ask again.
    var lookedUpInStore = false
    /// Whether that lookup found nothing stored for a `GET` of the URL (no entry, no part), so that
    /// its load goes to the network without the loader reading the store again for nothing.
    var storeHoldsNothing = false
    /// Whether it was answered by a page's record earlier in the run (its outcome reported then)
    /// and is read now because a document needs what it holds (``PreloadSchedule/takeUnread(_:)``).
    var rereads = false
    /// Whether it is a document shown in a frame (an `iframe` or `frame`), not in the window.
    var isFrame = false

    init(url: URL, kind: Reference.Kind?, depth: Int, refusesPrivateAddresses: Bool = false) {
        self.url = url
        key = URLKey(url)
        self.kind = kind
        self.depth = depth
        self.refusesPrivateAddresses = refusesPrivateAddresses
    }

    var isPage: Bool { kind == nil }
    var kindName: String { kind?.rawValue ?? "page" }

    /// The order in which waiting items start, lowest first: what a page waits on and may lead to
    /// more (stylesheets, frames, manifests), then pages, then the rest. A chain such as page →
    /// stylesheet → `@import` → font is as long as its links one after another, so its links go
    /// ahead of the images that can be fetched at any time, and the run does not end on such a
    /// chain with the connections idle. Browsers give stylesheets and frames the highest priority
    /// for the same reason.
    var tier: Int {
        switch kind {
        case let kind? where kind.leadsToRequisites: 0
        case nil: 1
        default: 2
        }
    }

    /// How many tiers ``tier`` has.
    static let tiers = 3
}

/// The items waiting for one host, in tiers, first in first out within each.
private struct HostQueue {
    private var tiers = Array(repeating: FirstInFirstOut<PreloadItem>(), count: PreloadItem.tiers)
    var active = 0

    mutating func append(_ item: PreloadItem) {
        tiers[item.tier].append(item)
    }

    /// Takes the first item of the lowest tier that has one.
    mutating func removeFirst() -> PreloadItem? {
        for tier in tiers.indices {
            if let item = tiers[tier].popFirst() { return item }
        }
        return nil
    }
}

/// The preload engine's bookkeeping: what was seen, what waits per host, what runs, what each page
/// or stylesheet referenced, and how each URL ended. Owned by the engine's single scheduling loop.
///
/// What it keeps for the whole run is compact: per URL seen, a 128-bit key of its text in a
/// ``URLKeySet`` (16 bytes a URL), and a failure's reason for the few that failed; how a URL stands
/// follows from those and the set of URLs still waiting, which holds only what is in flight. What a
/// page referenced is kept only until the page's edges are stored (``forget(pages:)``), so memory
/// follows what is in flight rather than the length of the run.
struct PreloadSchedule {
    let limits: PreloadLimits
    /// The pages seen whose edges are not stored yet, in the order they came.
    private(set) var pages: [Page] = []
    /// Every URL seen in this run: queued, running, or with an outcome.
    private var seen = URLKeySet()
    /// The URLs seen that have no outcome yet.
    private var waiting = URLKeyTable<Void>()
    /// Why a URL failed or was skipped, for those that did; a URL seen that neither waits nor has a
    /// failure is stored.
    private var failures = URLKeyTable<String>()
    /// URLs seen that have no outcome yet.
    private(set) var unendedCount = 0
    /// The queue of each host, in the order the hosts were first queued: taken in turn by index,
    /// and an item started keeps its host's index (``started``), so that only queueing an item
    /// reads and hashes its host key.
    private var queues: [HostQueue] = []
    /// Where each host's queue is in ``queues``, by ``hostKey(_:)``.
    private var hostIndices: [String: Int] = [:]
    private var nextHost = 0
    /// Items started and not finished, each with the index in ``queues`` of the host whose transfer
    /// slot it still holds, or ``slotFreed`` once its transfer has ended.
    private var started = URLKeyTable<Int>()
    private static let slotFreed = -1
    /// Transfers in flight: items started whose network transfer has not ended.
    private(set) var running = 0
    /// Items that may run as streams of a shared connection, waiting or running.
    private var streams = 0
    /// Items started and not finished (a finished transfer may still be saving).
    var unfinished: Int { started.count }
    /// What each page or stylesheet referenced, in order, each once (for the page edges), each with
    /// its key: a page's walk through what it needs looks every one up, several times a run.
    private var references = URLKeyTable<[Referenced]>()
    /// The keys of what each page or stylesheet referenced: a stylesheet's references are decided
    /// again for each document that uses it, and must not pile up (each page's walk through them
    /// would grow with the run).
    private var referenceKeys = URLKeyTable<URLKeyTable<Void>>()
    /// Pages whose edges were stored and whose references were let go, unless they were recalled
    /// since (they have references again); a page that references one of them (as a frame) gets its
    /// requisites from ``recall(page:_:)``.
    private var forgottenPages = URLKeySet()
    /// For pages and documents asked about (``checkSettled(_:)``), the first URL found without an outcome.
    private var blockers = URLKeyTable<URLKey>()
    /// Stylesheets, frames and manifests that a page's record answered (``admitFromRecord(_:unread:)``)
    /// and this run has not read: a document that uses one must read it for what it holds there.
    private var unread = URLKeyTable<Void>()
    /// Counts the changes after which a page or document may have settled that had not: a URL seen
    /// or given an outcome, what a page referenced let go or recalled. Between two changes,
    /// ``checkSettled(_:)`` answers as it did, so a caller need not ask again about what it found
    /// unsettled.
    private(set) var settlingChanges = 0

    init(limits: PreloadLimits) {
        self.limits = limits
    }

    /// Queues `item` unless its URL was seen before in this run; returns whether it was queued.
    mutating func enqueue(_ item: PreloadItem) -> Bool {
        guard admit(item) else { return false }
        queue(item)
        return true
    }

    /// Records `item` as seen, and as a page whose edges are to be stored when it is one and
    /// `recordingPage`, unless its URL was seen before in this run; returns whether it was admitted.
    /// An admitted item is then queued (``queue(_:)``), or, if nothing else is done with it, counts
    /// as stored: a page answered by a fresh stored entry ends so.
    mutating func admit(_ item: PreloadItem, recordingPage: Bool = true) -> Bool {
        guard seen.insert(item.key) else { return false }
        settlingChanges += 1
        if item.isPage, recordingPage {
            // Not looked up in the store yet: compared before its edges are written.
            pages.append(Page(url: item.url, key: item.key))
        }
        return true
    }

    /// Records the page of `item`, admitted without being recorded (``admit(_:recordingPage:)``),
    /// as a page whose edges are to be stored once it settles.
    mutating func recordPage(_ item: PreloadItem) {
        pages.append(Page(url: item.url, key: item.key, isNewToStore: item.storeHoldsNothing))
    }

    /// Queues an admitted item (``admit(_:)``) behind the others of its host and tier; it waits for
    /// an outcome from now on.
    mutating func queue(_ item: PreloadItem) {
        waiting.insert(item.key)
        unendedCount += 1
        let host = Self.hostKey(item.url)
        if let index = hostIndices[host] {
            queues[index].append(item)
        } else {
            hostIndices[host] = queues.count
            queues.append(HostQueue())
            queues[queues.count - 1].append(item)
        }
        if limits.mayShareConnection(item.url) { streams += 1 }
    }

    /// Records a listed page settled from its record (``CacheStore/recordedPages(partition:urls:discovery:at:confirmed:)``)
    /// as a page whose edges are stored: a page that references it (as a frame) takes back what it
    /// needs from them (``recall(page:_:)``).
    mutating func settleFromRecord(page key: URLKey) {
        forgottenPages.insert(key)
        settlingChanges += 1
    }

    /// Records the URL of `key`, an edge of a page settled from its record, as stored, unless it was
    /// seen before in this run; returns whether it was new. When it holds references (`unread`: a
    /// stylesheet, frame or manifest), it is remembered as not read.
    mutating func admitFromRecord(_ key: URLKey, unread isUnread: Bool) -> Bool {
        guard seen.insert(key) else { return false }
        settlingChanges += 1
        if isUnread { unread.insert(key) }
        return true
    }

    /// Whether the URL of `key` was answered by a page's record and not read in this run.
    func isUnread(_ key: URLKey) -> Bool {
        !unread.isEmpty && unread.contains(key)
    }

    /// Queues `item`, which ``isUnread(_:)`` names, to be read now for a document that uses it; it
    /// waits for an outcome again.
    mutating func takeUnread(_ item: PreloadItem) {
        unread.remove(item.key)
        settlingChanges += 1
        var item = item
        item.rereads = true
        queue(item)
    }

    /// Whether the URL whose absolute text is `text` was already seen (queued, running or done) in this run.
    func hasSeen(_ text: String) -> Bool {
        hasSeen(URLKey(text))
    }

    /// Whether the URL of `key` was already seen (queued, running or done) in this run.
    func hasSeen(_ key: URLKey) -> Bool {
        seen.contains(key)
    }

    /// Marks a URL that will not be fetched (skipped or invalid) as seen, with the reason.
    mutating func settle(_ url: URL, reason: String) {
        let key = URLKey(url)
        endWaiting(key)
        seen.insert(key)
        failures[key] = reason
    }

    /// The next item that ``limits`` let start, taking hosts in turn and, within a host, the lowest
    /// ``PreloadItem/tier`` first; `nil` when none can start.
    mutating func nextRunnable() -> PreloadItem? {
        guard !queues.isEmpty else { return nil }
        for offset in 0..<queues.count {
            let host = (nextHost + offset) % queues.count
            guard limits.admits(running: running, runningOnHost: queues[host].active, streams: streams > 0),
                let item = queues[host].removeFirst()
            else { continue }
            queues[host].active += 1
            running += 1
            started[item.key] = host
            nextHost = (nextHost + offset + 1) % queues.count
            return item
        }
        return nil
    }

    /// Frees the slot of a running item whose network transfer has ended while its save completes.
    mutating func endTransfer(_ item: PreloadItem) {
        let key = item.key
        guard let host = started[key], host != Self.slotFreed else { return }
        started[key] = Self.slotFreed
        freeSlot(of: item, host: host)
    }

    /// Records how a running item ended and frees its slot if it still holds one.
    mutating func finish(_ item: PreloadItem, failure: String?) {
        let key = item.key
        endStart(of: item)
        endWaiting(key)
        seen.insert(key)
        failures[key] = failure
    }

    /// Counts the end of `key`'s wait, if it was waiting, and a change for settling.
    private mutating func endWaiting(_ key: URLKey) {
        if waiting.remove(key) { unendedCount -= 1 }
        settlingChanges += 1
    }

    /// Frees the slot of a running item whose fetch was given up (the run was cancelled), leaving it
    /// without an outcome, as if it had never started: the pages that need it do not settle.
    mutating func giveUp(_ item: PreloadItem) {
        endStart(of: item)
    }

    /// Forgets that `item` started, freeing its slot if it still holds one.
    private mutating func endStart(of item: PreloadItem) {
        if let host = started.removeValue(forKey: item.key), host != Self.slotFreed { freeSlot(of: item, host: host) }
    }

    private mutating func freeSlot(of item: PreloadItem, host: Int) {
        running -= 1
        if limits.mayShareConnection(item.url) { streams -= 1 }
        queues[host].active -= 1
    }

    /// What the per-host limit counts by: the host and port, as libcurl counts its connections
    /// per host, so that two servers on one name each get their share. Read from the URL's text when
    /// it is plain (``HTTPURLCheck/plainHostAndPort(_:)``), as the cache keys of items nearly always
    /// are: Foundation's host and port would parse the URL again for every item queued.
    static func hostKey(_ url: URL) -> String {
        if let (host, port) = HTTPURLCheck.plainHostAndPort(url.absoluteString) { return host + ":" + String(port) }
        return "\(url.host ?? ""):\(url.effectivePort ?? 0)"
    }

    /// Why the URL of `key` is not stored, or `nil` if it is.
    func failure(of key: URLKey) -> String? {
        if let failure = failures[key] { return failure }
        return hasEnded(key) ? nil : "not fetched"
    }

    /// Whether the URL of `key` has an outcome: stored, failed or skipped.
    func hasEnded(_ key: URLKey) -> Bool {
        !waiting.contains(key) && seen.contains(key)
    }

    /// Records that the page or stylesheet of `parentKey` references the URL whose absolute text is
    /// `text` and whose key is `key`.
    mutating func recordReference(from parentKey: URLKey, to text: String, key: URLKey, kind: String) {
        guard referenceKeys.update(parentKey, default: URLKeyTable(), { $0.insert(key) }) else { return }
        references.update(parentKey, default: []) { $0.append(Referenced(url: text, key: key, kind: kind)) }
    }

    /// Whether `page` and everything it needs have ended (stored, failed or skipped). References
    /// arrive before the fetch that found them ends, so a settled page's edges are final.
    func isSettled(_ page: Page) -> Bool {
        hasEnded(page.key) && walkRequisites(of: page.key) { _, key, _ in hasEnded(key) }
    }

    /// ``isSettled(_:)``, remembering what keeps a page from settling, so that asking again while
    /// that has not ended costs one lookup instead of a walk through everything the page needs.
    mutating func checkSettled(_ page: Page) -> Bool {
        checkSettled(page.key)
    }

    /// ``checkSettled(_:)-(Page)`` of the page or document whose key is `pageKey`.
    mutating func checkSettled(_ pageKey: URLKey) -> Bool {
        if let blocker = blockers[pageKey], !hasEnded(blocker) { return false }
        var blocker: URLKey? = hasEnded(pageKey) ? nil : pageKey
        if blocker == nil {
            walkRequisites(of: pageKey) { _, key, _ in
                guard hasEnded(key) else {
                    blocker = key
                    return false
                }
                return true
            }
        }
        blockers[pageKey] = blocker
        return blocker == nil
    }

    /// Everything `page` needs, through stylesheets, manifests and frames, each once, with the reason
    /// it is missing if it is. A requisite that is also a listed page (a stylesheet given in the URL
    /// file, a frame given as a page) brings what it needs along: the page needs that too.
    func requisites(of page: Page) -> [(url: String, kind: String, failure: String?)] {
        var result: [(String, String, String?)] = []
        walkRequisites(of: page.key) { url, key, kind in
            result.append((url, kind, failure(of: key)))
            return true
        }
        return result
    }

    /// Lets go of what `forgotten` referenced, once their edges are stored; ``pages`` no longer lists them.
    mutating func forget(pages forgotten: [Page]) {
        guard !forgotten.isEmpty else { return }
        var keys = Set<URLKey>(minimumCapacity: forgotten.count)
        for page in forgotten {
            let key = page.key
            keys.insert(key)
            references[key] = nil
            referenceKeys[key] = nil
            blockers[key] = nil
            forgottenPages.insert(key)
        }
        settlingChanges += 1
        pages.removeAll { keys.contains($0.key) }
    }

    /// Lets go of what was remembered about a document's settling, once it is finished.
    mutating func forgetSettling(of document: URLKey) {
        blockers[document] = nil
    }

    /// Whether the URL of `key` is a page whose references were let go (``forget(pages:)``).
    func isForgotten(_ key: URLKey) -> Bool {
        references[key] == nil && forgottenPages.contains(key)
    }

    /// Takes back what a forgotten page needs, as its stored edges list it (each once, already
    /// through its stylesheets and frames), for a page that references it.
    mutating func recall(page: URL, _ requisites: [(url: String, kind: String)]) {
        let key = URLKey(page)
        guard isForgotten(key) else { return }
        let referenced = requisites.map { Referenced(url: $0.url, key: URLKey($0.url), kind: $0.kind) }
        references[key] = referenced
        var keys = URLKeyTable<Void>(minimumCapacity: referenced.count)
        for reference in referenced { keys.insert(reference.key) }
        referenceKeys[key] = keys
        settlingChanges += 1
    }

    /// Visits what `page` needs, in document order, each once, through stylesheets, manifests
    /// and frames, until `visit` returns `false`; returns whether it never did.
    @discardableResult
    private func walkRequisites(of pageKey: URLKey, _ visit: (String, URLKey, String) -> Bool) -> Bool {
        // A page that references nothing (a page fetched alone) has nothing to walk.
        guard let pageReferences = references[pageKey], !pageReferences.isEmpty else { return true }
        // Sized for the page's own references and as many again through its stylesheets and
        // frames: a set grown from empty hashed every key again at each doubling.
        var visited = Set<URLKey>(minimumCapacity: 2 * pageReferences.count + 1)
        visited.insert(pageKey)
        var stack = Array(pageReferences.reversed())
        while let referenced = stack.popLast() {
            guard visited.insert(referenced.key).inserted else { continue }
            guard visit(referenced.url, referenced.key, referenced.kind) else { return false }
            if let more = references[referenced.key] { stack.append(contentsOf: more.reversed()) }
        }
        return true
    }

    /// A page whose edges are not stored yet, with its key.
    struct Page {
        let url: URL
        let key: URLKey
        /// Whether the store held nothing for the page's URL when it was looked up
        /// (``PreloadItem/storeHoldsNothing``): its edges are written without comparing them first.
        var isNewToStore = false
    }

    /// A URL a page or stylesheet referenced, with its key and the kind it was referenced as.
    private struct Referenced {
        var url: String
        var key: URLKey
        var kind: String
    }
}

/// A URL as the schedule keeps it: 128 bits of hash of its text. Two hash functions with different
/// seeds (Swift's per-process seeded SipHash), so that two URLs of one run share a key with a
/// chance of about 2⁻¹²⁸ per pair: a billion URLs make a collision less likely than 10⁻²⁰.
struct URLKey: Hashable, Comparable, Sendable {
    private let high: UInt64
    private let low: UInt64

    init(_ url: URL) {
        self.init(url.absoluteString)
    }

    init(_ text: String) {
        var text = text
        (high, low) = text.withUTF8 { bytes in
            var first = Hasher()
            first.combine(bytes: UnsafeRawBufferPointer(bytes))
            var second = Hasher()
            second.combine(0x9E37_79B9_7F4A_7C15 as UInt64)
            second.combine(bytes: UnsafeRawBufferPointer(bytes))
            return (UInt64(bitPattern: Int64(first.finalize())), UInt64(bitPattern: Int64(second.finalize())))
        }
    }

    private init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// A filler for the empty buckets of a ``URLKeyTable`` (whose values tell which are empty).
    static let unused = URLKey(high: 0, low: 0)

    /// The bits that pick a key's bucket in a ``URLKeyTable``: already a hash of the URL.
    var bucketBits: Int { Int(truncatingIfNeeded: low) }

    static func < (left: URLKey, right: URLKey) -> Bool {
        // Spelled out: the tuple comparison stayed a generic call in the sorted set's binary search.
        left.high < right.high || (left.high == right.high && left.low < right.low)
    }

    /// One of the two halves is hash enough for a table: each is already a hash of the text.
    func hash(into hasher: inout Hasher) {
        hasher.combine(low)
    }
}
