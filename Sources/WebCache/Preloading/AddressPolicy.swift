import Foundation
import Synchronization

/// Keeps a page on a public address from making webcache fetch from loopback, private or
/// link-local addresses (server-side request forgery through a preloaded page).
///
/// A host is private when it is `localhost`, or is (or resolves to) an address in 127/8, 10/8,
/// 172.16/12, 192.168/16, 169.254/16, 100.64/10, 0/8, ::1, fc00::/7 or fe80::/10. A host that
/// resolves to any private address counts as private. Answers are cached for the run.
final class AddressPolicy: Sendable {
    private let cache = Mutex<[String: Bool]>([:])

    /// Whether `referrer` (a page or stylesheet) may make webcache fetch `target`.
    func allows(_ target: URL, from referrer: URL) -> Bool {
        guard let targetHost = target.host, let referrerHost = referrer.host else { return false }
        if !isPrivate(host: targetHost) { return true }
        return isPrivate(host: referrerHost)
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
            if let address = info.pointee.ai_addr, isPrivate(address) { return true }
            cursor = info.pointee.ai_next
        }
        return false
    }

    private static func isPrivate(_ address: UnsafeMutablePointer<sockaddr>) -> Bool {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            return isPrivate(ipv4: UInt32(bigEndian: ipv4))
        case AF_INET6:
            let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
                withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
            }
            return isPrivate(ipv6: bytes)
        default:
            return true
        }
    }

    static func isPrivate(ipv4 value: UInt32) -> Bool {
        let a = value >> 24, b = (value >> 16) & 0xFF
        return a == 0 || a == 10 || a == 127 || (a == 169 && b == 254) || (a == 172 && (16...31).contains(b))
            || (a == 192 && b == 168) || (a == 100 && (64...127).contains(b))
    }

    static func isPrivate(ipv6 bytes: [UInt8]) -> Bool {
        guard bytes.count == 16 else { return true }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && (bytes[15] == 1 || bytes[15] == 0) { return true }  // ::1, ::
        if bytes[0] & 0xFE == 0xFC { return true }  // fc00::/7 unique local
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return true }  // fe80::/10 link-local
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {  // ::ffff:a.b.c.d
            let value = UInt32(bytes[12]) << 24 | UInt32(bytes[13]) << 16 | UInt32(bytes[14]) << 8 | UInt32(bytes[15])
            return isPrivate(ipv4: value)
        }
        return false
    }
}
