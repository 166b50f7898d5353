import Foundation
import HTTPCore
import Synchronization

/// Keeps a page on a public address from making webcache fetch from loopback, private or
/// link-local addresses (server-side request forgery through a preloaded page).
///
/// A host is private when it is `localhost`, or is (or resolves to) an address that is not public
/// (``NetworkAddress``). A host that resolves to any private address counts as private. Answers are
/// cached for the run.
///
/// The answer holds for the addresses the host had when it was asked. A host that answers
/// differently when the transfer connects (DNS rebinding) is caught there: requests for references
/// from a public page are marked ``WebRequest/refusesPrivateAddresses``, and the transport checks
/// the address it actually connects to.
final class AddressPolicy: Sendable {
    private let cache = Mutex<[String: Bool]>([:])

    /// Whether `referrer` (a page or stylesheet) may make webcache fetch `target`.
    func allows(_ target: URL, from referrer: URL) -> Bool {
        guard let targetHost = target.host, let referrerHost = referrer.host else { return false }
        if !isPrivate(host: targetHost) { return true }
        return isPrivate(host: referrerHost)
    }

    /// Whether what `referrer` references must come from public addresses: it is on one itself.
    func requiresPublicAddresses(from referrer: URL) -> Bool {
        !isPrivate(host: referrer.host ?? "")
    }

    /// Whether `host` is, or resolves to, a non-public address.
    func isPrivate(host: String) -> Bool {
        if let known = cache.withLock({ $0[host] }) { return known }
        let verdict = NetworkAddress.firstPrivateAddress(ofHost: host) != nil
        cache.withLock { $0[host] = verdict }
        return verdict
    }
}
