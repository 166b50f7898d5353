import CPSL

/// The Public Suffix List, through libpsl's built-in copy.
///
/// RFC 6265 §5.3 step 5: a user agent "should" refuse a `Domain` attribute that is a public suffix
/// (`com`, `co.uk`, `github.io`), or any site under it could set cookies for all the others.
public enum PublicSuffixList {
    /// Whether `domain` (canonical, lowercase) is a public suffix.
    ///
    /// Only explicit rules count (`PSL_TYPE_NO_STAR_RULE`): libpsl's implicit `*` rule would make every
    /// unknown top-level name, such as `localhost`, a public suffix. When libpsl was built without its
    /// built-in list, every domain is treated as a public suffix, so cookies fall back to host-only.
    public static func isPublicSuffix(_ domain: String) -> Bool {
        guard let list = psl_builtin() else { return true }
        return psl_is_public_suffix2(list, domain, PSL_TYPE_ICANN | PSL_TYPE_PRIVATE | PSL_TYPE_NO_STAR_RULE) != 0
    }

    /// The registrable domain (eTLD+1) of `host`, such as `example.co.uk` for `www.example.co.uk`;
    /// `nil` for a public suffix itself, an IP address, or when libpsl has no built-in list.
    public static func registrableDomain(of host: String) -> String? {
        guard let list = psl_builtin(), let domain = psl_registrable_domain(list, host.lowercased()) else { return nil }
        return String(cString: domain)
    }
}
