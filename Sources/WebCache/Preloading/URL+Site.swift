import FoundationEssentials
import Sessions

extension URL {
    /// Whether both URLs belong to one site: the same scheme and registrable domain (eTLD+1, from
    /// the Public Suffix List), or the same host where there is no registrable domain (an IP
    /// address, `localhost`).
    func isSameSite(as other: URL) -> Bool {
        guard let host = host?.lowercased(), let otherHost = other.host?.lowercased(),
            scheme?.lowercased() == other.scheme?.lowercased()
        else { return false }
        if host == otherHost { return true }
        guard let site = PublicSuffixList.registrableDomain(of: host) else { return false }
        return site == PublicSuffixList.registrableDomain(of: otherHost)
    }
}
