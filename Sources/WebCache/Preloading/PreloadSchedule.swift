import Discovery
import Foundation
import HTTPCore

/// One URL a preload run fetches.
struct PreloadItem: Sendable {
    /// The URL in cache-key form.
    var url: URL
    /// What it is used for; `nil` for a page (a URL given, or reached through a link).
    var kind: Reference.Kind?
    /// How many links away from a given page it was reached (0 for a given page, and for requisites of one).
    var depth: Int
    /// Whether it was referenced from a public address, so that it may only be fetched from one.
    var refusesPrivateAddresses = false

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
        case .stylesheet?, .document?, .manifest?: 0
        case nil: 1
        default: 2
        }
    }

    /// How many tiers ``tier`` has.
    static let tiers = 3
}

/// The items waiting for one host, in tiers, first in first out within each.
private struct HostQueue {
    private var tiers = Array(repeating: [PreloadItem](), count: PreloadItem.tiers)
    private var heads = Array(repeating: 0, count: PreloadItem.tiers)
    var active = 0

    mutating func append(_ item: PreloadItem) {
        tiers[item.tier].append(item)
    }

    /// Takes the first item of the lowest tier that has one.
    mutating func removeFirst() -> PreloadItem? {
        for tier in tiers.indices where heads[tier] < tiers[tier].count {
            let item = tiers[tier][heads[tier]]
            heads[tier] += 1
            if heads[tier] == tiers[tier].count {
                tiers[tier].removeAll(keepingCapacity: true)
                heads[tier] = 0
            }
            return item
        }
        return nil
    }
}

/// The preload engine's bookkeeping: what was seen, what waits per host, what runs, what each page
/// or stylesheet referenced, and how each URL ended. Owned by the engine's single scheduling loop.
struct PreloadSchedule {
    let limits: PreloadLimits
    private(set) var pages: [URL] = []
    private var seen: Set<URL> = []
    private var queues: [String: HostQueue] = [:]
    private var hosts: [String] = []
    private var nextHost = 0
    /// Items started and not finished, each with whether it still holds a transfer slot.
    private var started: [URL: Bool] = [:]
    /// Transfers in flight: items started whose network transfer has not ended.
    private(set) var running = 0
    /// Items that may run as streams of a shared connection, waiting or running.
    private var streams = 0
    /// Items started and not finished (a finished transfer may still be saving).
    var unfinished: Int { started.count }
    /// What each page or stylesheet referenced, in order, duplicates included (for the page edges).
    private var references: [URL: [(url: URL, kind: String)]] = [:]
    /// How each URL ended: `nil` stored, else the reason it was not.
    private(set) var outcomes: [URL: String?] = [:]

    init(limits: PreloadLimits) {
        self.limits = limits
    }

    /// Queues `item` unless its URL was seen before in this run; returns whether it was queued.
    mutating func enqueue(_ item: PreloadItem) -> Bool {
        guard seen.insert(item.url).inserted else { return false }
        if item.isPage {
            pages.append(item.url)
        }
        let host = Self.hostKey(item.url)
        if queues[host] == nil {
            hosts.append(host)
            queues[host] = HostQueue()
        }
        queues[host]?.append(item)
        if limits.mayShareConnection(item.url) { streams += 1 }
        return true
    }

    /// Whether `url` was already seen (queued, running or done) in this run.
    func hasSeen(_ url: URL) -> Bool {
        seen.contains(url)
    }

    /// Marks a URL that will not be fetched (skipped or invalid) as seen, with the reason.
    mutating func settle(_ url: URL, reason: String) {
        seen.insert(url)
        outcomes[url] = .some(reason)
    }

    /// The next item that ``limits`` let start, taking hosts in turn and, within a host, the lowest
    /// ``PreloadItem/tier`` first; `nil` when none can start.
    mutating func nextRunnable() -> PreloadItem? {
        guard !hosts.isEmpty else { return nil }
        for offset in 0..<hosts.count {
            let host = hosts[(nextHost + offset) % hosts.count]
            guard let active = queues[host]?.active,
                limits.admits(running: running, runningOnHost: active, streams: streams > 0),
                let item = queues[host]?.removeFirst()
            else { continue }
            queues[host]?.active += 1
            running += 1
            started[item.url] = true
            nextHost = (nextHost + offset + 1) % hosts.count
            return item
        }
        return nil
    }

    /// Frees the slot of a running item whose network transfer has ended while its save completes.
    mutating func endTransfer(_ item: PreloadItem) {
        guard started[item.url] == true else { return }
        started[item.url] = false
        freeSlot(of: item)
    }

    /// Records how a running item ended and frees its slot if it still holds one.
    mutating func finish(_ item: PreloadItem, failure: String?) {
        if started.removeValue(forKey: item.url) == true { freeSlot(of: item) }
        outcomes[item.url] = .some(failure)
    }

    /// Frees the slot of a running item whose fetch was given up (the run was cancelled), leaving it
    /// without an outcome, as if it had never started: the pages that need it do not settle.
    mutating func giveUp(_ item: PreloadItem) {
        if started.removeValue(forKey: item.url) == true { freeSlot(of: item) }
    }

    private mutating func freeSlot(of item: PreloadItem) {
        running -= 1
        if limits.mayShareConnection(item.url) { streams -= 1 }
        queues[Self.hostKey(item.url)]?.active -= 1
    }

    /// What the per-host limit counts by: the host and port, as libcurl counts its connections
    /// per host, so that two servers on one name each get their share.
    private static func hostKey(_ url: URL) -> String {
        "\(url.host ?? ""):\(url.effectivePort ?? 0)"
    }

    /// Why `url` is not stored, or `nil` if it is.
    func failure(of url: URL) -> String? {
        outcomes[url] ?? "not fetched"
    }

    /// Whether `url` has an outcome: stored, failed or skipped.
    func hasEnded(_ url: URL) -> Bool {
        outcomes[url] != nil
    }

    /// How many URLs seen have no outcome: waiting, running, or given up.
    var unendedCount: Int { seen.count - outcomes.count }

    /// Records that `parent` references `url`.
    mutating func recordReference(from parent: URL, to url: URL, kind: String) {
        references[parent, default: []].append((url, kind))
    }

    /// Whether `page` and everything it needs have ended (stored, failed or skipped). References
    /// arrive before the fetch that found them ends, so a settled page's edges are final.
    func isSettled(_ page: URL) -> Bool {
        outcomes[page] != nil && walkRequisites(of: page) { url, _ in outcomes[url] != nil }
    }

    /// Everything `page` needs, through stylesheets, manifests and frames, each once, with the reason
    /// it is missing if it is. A requisite that is also a listed page (a stylesheet given in the URL
    /// file, a frame given as a page) brings what it needs along: the page needs that too.
    func requisites(of page: URL) -> [(url: URL, kind: String, failure: String?)] {
        var result: [(URL, String, String?)] = []
        walkRequisites(of: page) { url, kind in
            result.append((url, kind, failure(of: url)))
            return true
        }
        return result
    }

    /// Visits what `page` needs, in document order, each once, through stylesheets, manifests
    /// and frames, until `visit` returns `false`; returns whether it never did.
    @discardableResult
    private func walkRequisites(of page: URL, _ visit: (URL, String) -> Bool) -> Bool {
        var visited: Set<URL> = [page]
        var stack = Array((references[page] ?? []).reversed())
        while let (url, kind) = stack.popLast() {
            guard visited.insert(url).inserted else { continue }
            guard visit(url, kind) else { return false }
            stack.append(contentsOf: (references[url] ?? []).reversed())
        }
        return true
    }
}
