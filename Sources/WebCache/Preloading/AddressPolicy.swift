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
final class AddressPolicy: Sendable {
    private let cache = Mutex<[String: Bool]>([:])

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
    func isFromPublicAddress(_ response: WebResponse) -> Bool {
        if let address = response.remoteAddress { return !NetworkAddress.isPrivate(numeric: address) }
        return !isPrivate(host: response.url.host ?? "")
    }

    /// Whether `host` is, or resolves to, a non-public address.
    func isPrivate(host: String) -> Bool {
        if let known = cache.withLock({ $0[host] }) { return known }
        let verdict = NetworkAddress.firstPrivateAddress(ofHost: host) != nil
        cache.withLock { $0[host] = verdict }
        return verdict
    }
}
