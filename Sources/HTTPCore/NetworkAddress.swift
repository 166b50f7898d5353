import FoundationEssentials

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Classifies socket addresses as public or not: loopback, private, shared (carrier-grade NAT),
/// link-local and unspecified addresses are not public.
///
/// Non-public: 0/8, 10/8, 100.64/10, 127/8, 169.254/16, 172.16/12, 192.168/16, `::`, `::1`,
/// fc00::/7, fe80::/10, and IPv4-mapped IPv6 addresses of any of these.
public enum NetworkAddress {
    /// Whether the IPv4 address `value` (host byte order) is loopback, private, shared, link-local or unspecified.
    public static func isPrivate(ipv4 value: UInt32) -> Bool {
        let a = value >> 24
        let b = (value >> 16) & 0xFF
        return a == 0 || a == 10 || a == 127 || (a == 169 && b == 254) || (a == 172 && (16...31).contains(b))
            || (a == 192 && b == 168) || (a == 100 && (64...127).contains(b))
    }

    /// Whether the 16-byte IPv6 address `bytes` is loopback, unique local, link-local or unspecified,
    /// or maps such an IPv4 address.
    public static func isPrivate(ipv6 bytes: [UInt8]) -> Bool {
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

    /// Whether `address` is not a public IPv4 or IPv6 address; any other family counts as not public.
    public static func isPrivate(_ address: UnsafePointer<sockaddr>) -> Bool {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
            return isPrivate(ipv4: UInt32(bigEndian: ipv4))
        case AF_INET6:
            return isPrivate(ipv6: ipv6Bytes(address))
        default:
            return true
        }
    }

    /// Whether the numeric address `text` (`203.0.113.7`, `::1`) is not a public IPv4 or IPv6
    /// address; text that is neither counts as not public.
    public static func isPrivate(numeric text: String) -> Bool {
        guard let bytes = bytes(numeric: text) else { return true }
        guard bytes.count == 4 else { return isPrivate(ipv6: bytes) }
        return isPrivate(ipv4: bytes.reduce(0) { $0 << 8 | UInt32($1) })
    }

    /// The 4 or 16 bytes of the numeric IPv4 or IPv6 address `text`, in network order; `nil` for
    /// text that is neither.
    public static func bytes(numeric text: String) -> [UInt8]? {
        var ipv4 = in_addr()
        if inet_pton(AF_INET, text, &ipv4) == 1 { return withUnsafeBytes(of: ipv4) { Array($0) } }
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, text, &ipv6) == 1 { return withUnsafeBytes(of: ipv6) { Array($0) } }
        return nil
    }

    /// The first address `host` names that is not public: `host` itself when it is `localhost` (or
    /// under `.localhost`) or a numeric address that is not public, else the first non-public address
    /// it resolves to; `nil` when every address is public or the name does not resolve (then no
    /// connection can reach anything). Brackets, trailing dots, case and an IPv6 zone are ignored.
    ///
    /// It resolves the name with `getaddrinfo`, so it may block.
    public static func firstPrivateAddress(ofHost host: String) -> String? {
        // `localhost.` is `localhost`: the root's empty label changes nothing the resolver does.
        var name = host.lowercased().trimmingScalars(in: "[]")
        while name.count > 1, name.hasSuffix(".") { name.removeLast() }
        // An IPv6 zone (`fe80::1%eth0`) names an interface, not another address; an unknown one must
        // not make the lookup fail and the address pass as public.
        if let zone = name.firstIndex(of: "%") { name = String(name[..<zone]) }
        if name == "localhost" || name.hasSuffix(".localhost") { return name }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var result: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &result) == 0, let first = result else { return nil }
        defer { freeaddrinfo(result) }
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            if let address = info.pointee.ai_addr, isPrivate(address) { return text(address) }
            cursor = info.pointee.ai_next
        }
        return nil
    }

    /// The numeric form of `address`, such as `127.0.0.1` or `::1`, for messages.
    public static func text(_ address: UnsafePointer<sockaddr>) -> String {
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            var ipv4 = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
            guard inet_ntop(AF_INET, &ipv4, &buffer, socklen_t(buffer.count)) != nil else { return "an IPv4 address" }
        case AF_INET6:
            var ipv6 = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
            guard inet_ntop(AF_INET6, &ipv6, &buffer, socklen_t(buffer.count)) != nil else { return "an IPv6 address" }
        default:
            return "an address of family \(address.pointee.sa_family)"
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func ipv6Bytes(_ address: UnsafePointer<sockaddr>) -> [UInt8] {
        address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { pointer in
            withUnsafeBytes(of: pointer.pointee.sin6_addr) { Array($0) }
        }
    }
}
