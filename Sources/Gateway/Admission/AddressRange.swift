import HTTPCore

/// A block of IP addresses in CIDR notation (`192.168.1.0/24`, `2001:db8::/32`, or one address),
/// for the clients a gateway listening beyond loopback lets in.
public struct AddressRange: Sendable, Hashable, CustomStringConvertible {
    private let network: [UInt8]
    private let prefixLength: Int

    /// Parses `text`; `nil` when it is not an IPv4 or IPv6 address with an optional `/bits` no longer
    /// than the address.
    public init?(_ text: String) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let network = NetworkAddress.bytes(numeric: String(parts[0])) else { return nil }
        let bits = parts.count == 2 ? Int(parts[1]) : network.count * 8
        guard let bits, (0...network.count * 8).contains(bits), parts.count == 1 || !parts[1].hasPrefix("+") else {
            return nil
        }
        self.network = network
        prefixLength = bits
    }

    /// Whether `address` (4 or 16 bytes) is in the block. An IPv4-mapped IPv6 address
    /// (`::ffff:a.b.c.d`) counts as the IPv4 address it carries.
    public func contains(_ address: [UInt8]) -> Bool {
        let candidate = address.count == 16 && network.count == 4 && Self.isIPv4Mapped(address)
            ? Array(address.suffix(4)) : address
        guard candidate.count == network.count else { return false }
        for index in 0..<candidate.count {
            let remaining = prefixLength - index * 8
            guard remaining > 0 else { return true }
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if candidate[index] & mask != network[index] & mask { return false }
        }
        return true
    }

    /// The block as `address/bits`.
    public var description: String {
        let address = network.count == 4
            ? network.map(String.init).joined(separator: ".")
            : stride(from: 0, to: 16, by: 2).map { String(UInt16(network[$0]) << 8 | UInt16(network[$0 + 1]), radix: 16) }
                .joined(separator: ":")
        return "\(address)/\(prefixLength)"
    }

    /// Whether `address` is loopback: 127.0.0.0/8, ::1, or 127/8 mapped into IPv6.
    public static func isLoopback(_ address: [UInt8]) -> Bool {
        loopback.contains { $0.contains(address) }
    }

    private static let loopback = [AddressRange("127.0.0.0/8")!, AddressRange("::1")!]

    private static func isIPv4Mapped(_ address: [UInt8]) -> Bool {
        address.prefix(10).allSatisfy { $0 == 0 } && address[10] == 0xFF && address[11] == 0xFF
    }
}
