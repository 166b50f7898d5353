import FoundationEssentials
import Sessions

/// One share of a URL list split across workers by registrable domain, so that every host of a site
/// is fetched by one worker and its politeness limits hold there.
///
/// A URL's key is its host's registrable domain (eTLD+1, from the Public Suffix List), or the host
/// itself where it has none (an IP address, `localhost`). The key's FNV-1a 64-bit hash modulo the
/// shard count picks the shard: a fixed function of the bytes, the same on every machine, run and
/// build (Swift's `Hasher` is seeded per process, so it could not be used).
///
/// ```swift
/// let shard = PreloadShard(index: 2, count: 4)!
/// let mine = urls.filter(shard.contains)
/// ```
public struct PreloadShard: Sendable, Hashable {
    /// This shard's number, from 0 to ``count`` - 1.
    public let index: Int
    /// How many shards the list is split into.
    public let count: Int

    /// Shard `index` of `count`, or `nil` unless 0 ≤ `index` < `count`.
    public init?(index: Int, count: Int) {
        guard count > 0, (0..<count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Whether `url` belongs to this shard.
    public func contains(_ url: URL) -> Bool {
        Self.shard(of: url, count: count) == index
    }

    /// The shard of `url` among `count`.
    public static func shard(of url: URL, count: Int) -> Int {
        Int(fnv1a(key(of: url)) % UInt64(count))
    }

    /// The text a URL is sharded by: its host's registrable domain, else its host, in lower case. A
    /// host whose last label is a number is an address (`127.0.0.1`, `0x7f.1`), never a domain.
    public static func key(of url: URL) -> String {
        let host = (url.host(percentEncoded: true) ?? "").lowercased()
        let last = host.split(separator: ".").last ?? ""
        guard !host.contains(":"), !last.allSatisfy(\.isHexDigit) || last.isEmpty else { return host }
        return PublicSuffixList.registrableDomain(of: host) ?? host
    }

    /// FNV-1a, 64 bits, over the UTF-8 bytes of `text`.
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return hash
    }
}
