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
        // `localhost.` is `localhost`: the root's empty label changes nothing the resolver does.
        var name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        while name.count > 1, name.hasSuffix(".") { name.removeLast() }
        // An IPv6 zone (`fe80::1%eth0`) names an interface, not another address; an unknown one must
        // not make the lookup fail and the address pass as public.
        if let zone = name.firstIndex(of: "%") { name = String(name[..<zone]) }
        if let known = cache.withLock({ $0[name] }) { return known }
        let verdict = AddressPolicy.resolvesPrivate(name)
        cache.withLock { $0[name] = verdict }
        return verdict
    }

    private static func resolvesPrivate(_ name: String) -> Bool {
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &result) == 0, let first = result else {
            // Unresolvable: the fetch itself will fail with a clear error; nothing private is reached.
            return false
        }
        defer { freeaddrinfo(result) }
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if let address = info.pointee.ai_addr, NetworkAddress.isPrivate(address) { return true }
            cursor = info.pointee.ai_next
        }
        return false
    }
}
