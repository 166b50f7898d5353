import Foundation

/// Which of a transport's connections go to the address their host resolves to, so that checking
/// that address (``HTTPRequest/refusesPrivateAddresses``) means something: none through a proxy,
/// which resolves hosts itself, and none to a host the configuration maps to an address of its
/// choosing (`resolve`, `connectTo`). Worked out once per transport.
struct ResolvedConnections: Sendable {
    /// The `HOST:PORT` the configuration maps; an empty host or a `nil` port matches any.
    private let mapped: [(host: String, port: Int?)]
    private let proxied: Bool

    init(configuration: CurlTransport.Configuration, environment: [String: String]) {
        mapped = (configuration.resolve + configuration.connectTo).compactMap { entry in
            let fields = entry.trimmingCharacters(in: CharacterSet(charactersIn: "+-")).split(
                separator: ":", omittingEmptySubsequences: false)
            guard fields.count > 1 else { return nil }
            let host = fields[0].lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
            return (host, fields[1].isEmpty ? nil : Int(fields[1]) ?? -1)
        }
        switch configuration.proxy {
        case .some(let proxy):
            proxied = !proxy.isEmpty
        case .none:
            let names = ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"]
            proxied = names.contains { !(environment[$0] ?? "").isEmpty }
        }
    }

    /// Whether a connection for `url` goes to the address its host resolves to.
    func connectsToResolvedAddress(of url: URL) -> Bool {
        guard !proxied else { return false }
        let host = (url.host ?? "").lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        return !mapped.contains { ($0.host.isEmpty || $0.host == host) && ($0.port == nil || $0.port == port) }
    }
}
