import Discovery
import FoundationEssentials
import HTTPCore
import Synchronization

/// Keeps a page on a public address from making webcache fetch from loopback, private or
/// link-local addresses (server-side request forgery through a preloaded page).
///
/// A host is private when it is `localhost`, or is (or resolves to) an address that is not public
/// (``NetworkAddress``). A host that resolves to any private address counts as private. Answers are
/// cached for the run.
///
/// Whether a page is public is decided by the address its response came from, not by resolving
/// its host again: a name that answered a public address to the transfer and a private one to a
/// second lookup (DNS rebinding) would otherwise unlock private targets for a public page. Only
/// where that address is not known (a response from the store, through a proxy, or from a host
/// the configuration maps) is the host resolved.
///
/// The answer for a target holds for the addresses the host had when it was asked. A host that
/// answers differently when the transfer connects is caught there: requests for references from a
/// public page are marked ``WebRequest/refusesPrivateAddresses``, and the transport checks the
/// address it actually connects to.
///
/// Names are resolved with `getaddrinfo`, which blocks until the resolver answers (seconds, when it
/// is slow): ``resolve(_:)`` does it on threads of its own, so that a thread of Swift's cooperative
/// pool, of which a run has one a core, never waits on a resolver. The checks that cannot wait
/// (``allows(_:fromPublicAddress:)``, ``isPrivate(host:)``) find the verdicts there; for a host not
/// resolved before, they look it up where they run.
final class AddressPolicy: Sendable {
    private struct State {
        /// Whether each host asked about is private.
        var verdicts: [String: Bool] = [:]
        /// The callers waiting for each host being resolved or waiting to be.
        var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]
        /// Hosts waiting for a lookup thread.
        var queued: [String] = []
        /// Lookup threads running.
        var lookupThreads = 0
    }

    /// At most this many names are looked up at once: a run that meets hundreds of hosts at once must
    /// not send the resolver hundreds of queries at once (resolvers that limit their rate drop them,
    /// and each is then waited for to its timeout).
    static let lookupThreadLimit = 8

    private let state = Mutex(State())
    /// Whether a host is, or resolves to, a non-public address (``NetworkAddress``); blocks.
    private let lookUp: @Sendable (String) -> Bool

    /// A policy that resolves names with `lookUp` (by default `getaddrinfo`, through
    /// ``NetworkAddress/firstPrivateAddress(ofHost:)``).
    init(lookUp: @escaping @Sendable (String) -> Bool = { NetworkAddress.firstPrivateAddress(ofHost: $0) != nil }) {
        self.lookUp = lookUp
    }

    /// Whether a referrer (a page or stylesheet) that came from a public address, or not, may make
    /// webcache fetch `target`.
    func allows(_ target: URL, fromPublicAddress: Bool) -> Bool {
        guard let targetHost = target.host else { return false }
        return !fromPublicAddress || !isPrivate(host: targetHost)
    }

    /// Whether `referrer`, judged by its host, may make webcache fetch `target`.
    func allows(_ target: URL, from referrer: URL) -> Bool {
        guard referrer.host != nil else { return false }
        return allows(target, fromPublicAddress: !isPrivate(host: referrer.host ?? ""))
    }

    /// Whether `response` came from a public address: the address its connection went to when the
    /// transport knows it, else what its host resolves to now.
    func isFromPublicAddress(_ response: WebResponse) async -> Bool {
        if let address = response.remoteAddress { return !NetworkAddress.isPrivate(numeric: address) }
        let host = response.url.host ?? ""
        await resolve([host])
        return !isPrivate(host: host)
    }

    /// Whether `host` is, or resolves to, a non-public address.
    func isPrivate(host: String) -> Bool {
        if let known = state.withLock({ $0.verdicts[host] }) { return known }
        let verdict = lookUp(host)
        // The first verdict stays: a host's answer does not change during a run.
        return state.withLock { state in
            if let first = state.verdicts[host] { return first }
            state.verdicts[host] = verdict
            return verdict
        }
    }

    /// Resolves those of `hosts` whose verdict is not known yet on threads of their own, at most
    /// ``lookupThreadLimit`` at once; a host another caller is resolving is waited for, not looked up
    /// again.
    func resolve(_ hosts: some Sequence<String>) async {
        let unknown = Set(hosts)
        let newThreads = state.withLock { state in
            for host in unknown where state.verdicts[host] == nil && state.waiting[host] == nil {
                state.waiting[host] = []
                state.queued.append(host)
            }
            let threads = min(state.queued.count, Self.lookupThreadLimit - state.lookupThreads)
            state.lookupThreads += threads
            return threads
        }
        for _ in 0..<newThreads {
            // Without a thread to spare, the lookups run here, as they would without this policy.
            if !POSIXThread.startIfPossible(name: "webcache.resolve", { [self] in lookUpQueued() }) { lookUpQueued() }
        }
        for host in unknown {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let known = state.withLock { state in
                    guard state.verdicts[host] == nil else { return true }
                    state.waiting[host, default: []].append(continuation)
                    return false
                }
                if known { continuation.resume() }
            }
        }
    }

    /// Looks the queued hosts up one after another, until none is left; run by a lookup thread.
    private func lookUpQueued() {
        var finished: (host: String, verdict: Bool)?
        while true {
            let (next, waiting) = state.withLock { state -> (String?, [CheckedContinuation<Void, Never>]) in
                var waiting: [CheckedContinuation<Void, Never>] = []
                if let finished {
                    if state.verdicts[finished.host] == nil { state.verdicts[finished.host] = finished.verdict }
                    waiting = state.waiting.removeValue(forKey: finished.host) ?? []
                }
                guard !state.queued.isEmpty else {
                    state.lookupThreads -= 1
                    return (nil, waiting)
                }
                return (state.queued.removeFirst(), waiting)
            }
            for waiter in waiting { waiter.resume() }
            guard let next else { return }
            finished = (next, lookUp(next))
        }
    }

    /// Resolves the hosts of `references` (absolute URLs) whose verdict is not known yet
    /// (``resolve(_:)``), reading each distinct authority once, as the run's checks will name them (the
    /// host of the URL's cache key: lower case, escapes decoded): those checks then find their verdicts
    /// without waiting.
    func resolveHosts(of references: [Reference]) async {
        var authorities: Set<Substring> = []
        var hosts: [String] = []
        for reference in references {
            let bytes = reference.urlString.utf8
            // `scheme://authority`: the scheme's colon, two slashes, then up to a slash, `?` or `#`.
            guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")),
                bytes[colon...].starts(with: "://".utf8)
            else { continue }
            let start = bytes.index(colon, offsetBy: 3)
            let end = bytes[start...].firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: "#") }
            let origin = Substring(reference.urlString.utf8[..<(end ?? bytes.endIndex)])
            guard authorities.insert(origin).inserted, let host = Self.checkedHost(ofOrigin: origin + "/") else { continue }
            hosts.append(host)
        }
        await resolve(hosts)
    }

    /// The host the run's checks ask about for URLs of `origin` (`scheme://authority/`): that of its
    /// cache key, parsed as the run parses it.
    private static func checkedHost(ofOrigin origin: String) -> String? {
        InternationalNames.prepare(forURL: origin)
        guard let key = URL.cacheKeyText(ofAbsoluteString: origin) else { return nil }
        return (HTTPURLCheck.plainURL(key) ?? URL(string: key))?.host
    }
}
