import HTTPCore
import Synchronization

/// The private address each host a forward request names resolves to (``NetworkAddress``), kept for
/// a minute, so that a client on another machine sending request after request to one host does not
/// make the gateway's event loop wait on the resolver for each: the lookup blocks the loop's thread,
/// and resolvers that limit their rate let one query in many time out.
///
/// A verdict a minute old is safe to use: what the gateway fetches for such a client is refused a
/// private address again where its connection goes (``HTTPRequest/refusesPrivateAddresses``).
final class PrivateHosts: Sendable {
    private struct Verdict {
        var address: String?
        var expires: ContinuousClock.Instant
    }

    /// How long a verdict is kept.
    static let lifetime: Duration = .seconds(60)
    /// The most hosts kept; past it the oldest verdicts are dropped.
    static let capacity = 4_096

    private let verdicts = Mutex<[String: Verdict]>([:])
    private let lookUp: @Sendable (String) -> String?

    /// Verdicts looked up with `lookUp` (by default ``NetworkAddress/firstPrivateAddress(ofHost:)``).
    init(lookUp: @escaping @Sendable (String) -> String? = { NetworkAddress.firstPrivateAddress(ofHost: $0) }) {
        self.lookUp = lookUp
    }

    /// The first private address `host` resolves to, `nil` when it has none; looked up at most once a
    /// minute.
    func firstPrivateAddress(ofHost host: String, now: ContinuousClock.Instant = .now) -> String? {
        if let known = verdicts.withLock({ $0[host] }), known.expires > now { return known.address }
        let address = lookUp(host)
        verdicts.withLock { verdicts in
            if verdicts.count >= Self.capacity {
                verdicts = verdicts.filter { $0.value.expires > now }
                if verdicts.count >= Self.capacity { verdicts.removeAll() }
            }
            verdicts[host] = Verdict(address: address, expires: now + Self.lifetime)
        }
        return address
    }
}
