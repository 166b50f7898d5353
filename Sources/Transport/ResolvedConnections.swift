import FoundationEssentials
import HTTPCore

/// Which of a transport's connections go to the address their host resolves to, so that checking
/// that address (``HTTPRequest/refusesPrivateAddresses``) means something: none through a proxy,
/// which resolves hosts itself, and none to a host the configuration maps to an address of its
/// choosing (`resolve`, `connectTo`). Worked out once per transport.
///
/// Whether a URL goes through a proxy follows libcurl's rules: the configured proxy, or else
/// `http_proxy` for `http` (lowercase only), `https_proxy` or `HTTPS_PROXY` for `https`, then
/// `all_proxy` or `ALL_PROXY`; and in either case not for a host that `no_proxy` (or `NO_PROXY`)
/// names: `*`, a domain and its subdomains (with or without a leading dot), or for an address
/// literal, an address or a CIDR range.
struct ResolvedConnections: Sendable {
    /// The `HOST:PORT` the configuration maps; an empty host or a `nil` port matches any.
    private let mapped: [(host: String, port: Int?)]
    /// Whether a proxy is configured for each scheme.
    private let proxies: [String: Bool]
    /// The `no_proxy` entries, lowercased.
    private let noProxy: [String]
    /// Whether every connection goes to the resolved address: no proxy and nothing mapped, as in
    /// most runs, which then need not look at the URL at all.
    private let everyConnectionResolves: Bool
    /// Whether no proxy applies to any URL: none configured, and none in the environment when the
    /// transport was made.
    let usesNoProxy: Bool

    init(configuration: CurlTransport.Configuration, environment: [String: String]) {
        mapped = (configuration.resolve + configuration.connectTo).compactMap { entry in
            let fields = entry.trimmingScalars(in: "+-").split(
                separator: ":", omittingEmptySubsequences: false)
            guard fields.count > 1 else { return nil }
            let host = fields[0].lowercased().trimmingScalars(in: "[]")
            return (host, fields[1].isEmpty ? nil : Int(fields[1]) ?? -1)
        }
        func isSet(_ name: String) -> Bool { !(environment[name] ?? "").isEmpty }
        switch configuration.proxy {
        case .some(let proxy):
            proxies = ["http": !proxy.isEmpty, "https": !proxy.isEmpty]
        case .none:
            let all = isSet("all_proxy") || isSet("ALL_PROXY")
            proxies = ["http": isSet("http_proxy") || all, "https": isSet("https_proxy") || isSet("HTTPS_PROXY") || all]
        }
        let list = environment["no_proxy"] ?? environment["NO_PROXY"] ?? ""
        noProxy = list.split { $0 == "," || $0 == " " || $0 == "\t" }.map { $0.lowercased() }
        usesNoProxy = !proxies.values.contains(true)
        everyConnectionResolves = mapped.isEmpty && usesNoProxy
    }

    /// Whether a connection for `url` goes to the address its host resolves to.
    func connectsToResolvedAddress(of url: URL) -> Bool {
        if everyConnectionResolves { return true }
        let host = (url.host ?? "").lowercased().trimmingScalars(in: "[]")
        let scheme = url.scheme?.lowercased() ?? "http"
        if proxies[scheme] == true, !Self.noProxy(noProxy, matches: host) { return false }
        let port = url.effectivePort ?? 80
        return !mapped.contains { ($0.host.isEmpty || $0.host == host) && ($0.port == nil || $0.port == port) }
    }

    /// Whether the `no_proxy` entries name `host` (lowercase, without brackets).
    static func noProxy(_ entries: [String], matches host: String) -> Bool {
        if entries == ["*"] { return true }
        let name = host.hasSuffix(".") ? String(host.dropLast()) : host
        let address = NetworkAddress.bytes(numeric: name)
        return entries.contains { entry in
            if let address {
                let parts = entry.split(separator: "/", maxSplits: 1)
                guard let network = NetworkAddress.bytes(numeric: String(parts[0])),
                    network.count == address.count
                else { return false }
                let bits = parts.count == 2 ? Int(parts[1]) ?? -1 : network.count * 8
                return (0...network.count * 8).contains(bits) && Self.prefix(of: address, equals: network, bits: bits)
            }
            var domain = entry.hasPrefix(".") ? String(entry.dropFirst()) : entry
            if domain.hasSuffix(".") { domain.removeLast() }
            guard !domain.isEmpty else { return false }
            return name == domain || name.hasSuffix("." + domain)
        }
    }

    private static func prefix(of address: [UInt8], equals network: [UInt8], bits: Int) -> Bool {
        for index in 0..<address.count {
            let remaining = bits - index * 8
            guard remaining > 0 else { return true }
            let mask: UInt8 = remaining >= 8 ? 0xFF : ~(0xFF >> UInt8(remaining))
            if address[index] & mask != network[index] & mask { return false }
        }
        return true
    }
}
