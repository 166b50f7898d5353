import HTTPCore

/// The cache directives of a response as a private cache reads them (RFC 9111 §5.2.2, RFC 5861, RFC 8246).
///
/// - A `max-age` whose value is not valid delta-seconds makes the response stale (``maxAge`` is 0),
///   following the recommendation of RFC 9111 §4.2.1 to treat invalid freshness information as stale.
/// - `stale-while-revalidate` and `stale-if-error` with invalid values are ignored: they only grant
///   permissions, so ignoring them is the safe reading.
/// - `s-maxage` and `proxy-revalidate` are parsed but apply to shared caches only (§5.2.2.10, §5.2.2.8).
public struct ResponseCacheControl: Sendable, Hashable {
    /// `max-age` in seconds (§5.2.2.1); 0 when the first `max-age` has an invalid value.
    public var maxAge: Int?
    /// `s-maxage` in seconds (§5.2.2.10); shared caches only, used here for the `Authorization` rule of §3.5.
    public var sharedMaxAge: Int?
    /// `no-cache`, qualified or not (§5.2.2.4).
    ///
    /// The qualified form `no-cache="Set-Cookie"` is treated like the unqualified one: every reuse
    /// must be validated. §5.2.2.4 notes that caches often do so; it is the restrictive reading.
    public var noCache: Bool
    /// The field names of qualified `no-cache` directives, lowercased (empty when unqualified).
    public var noCacheFields: [String]
    /// `no-store` (§5.2.2.5).
    public var noStore: Bool
    /// `must-revalidate` (§5.2.2.2): once stale, never served without successful validation.
    public var mustRevalidate: Bool
    /// `proxy-revalidate` (§5.2.2.8); shared caches only.
    public var proxyRevalidate: Bool
    /// `must-understand` (§5.2.2.3).
    public var mustUnderstand: Bool
    /// `public` (§5.2.2.9).
    public var isPublic: Bool
    /// `private` (§5.2.2.7); a private cache may store such responses.
    public var isPrivate: Bool
    /// The field names of qualified `private` directives, lowercased.
    public var privateFields: [String]
    /// `immutable` (RFC 8246 §2): while fresh, the response will not change.
    public var immutable: Bool
    /// `no-transform` (§5.2.2.6): an intermediary must not transform the content (RFC 9110 §7.7),
    /// not even its content coding.
    public var noTransform: Bool
    /// `stale-while-revalidate=n` (RFC 5861 §3).
    public var staleWhileRevalidate: Int?
    /// `stale-if-error=n` (RFC 5861 §4).
    public var staleIfError: Int?

    /// Reads the directives of `headers`.
    ///
    /// In one pass over the directives, as the loader reads every response it receives with it: the
    /// first of a repeated numeric directive counts (``CacheControl/first(_:)``), and the field names
    /// of every qualified `no-cache` and `private` are gathered.
    public init(headers: HTTPHeaders) {
        var maxAge: Int??
        var sharedMaxAge: Int??
        var staleWhileRevalidate: Int??
        var staleIfError: Int??
        noCache = false
        noCacheFields = []
        noStore = false
        mustRevalidate = false
        proxyRevalidate = false
        mustUnderstand = false
        isPublic = false
        isPrivate = false
        privateFields = []
        immutable = false
        noTransform = false
        func seconds(_ directive: CacheControl.Directive) -> Int? {
            directive.value.flatMap(CacheControl.parseDeltaSeconds)
        }
        func fieldNames(_ directive: CacheControl.Directive) -> [String] {
            (directive.value.map(HTTPHeaders.splitList) ?? []).map { $0.lowercased() }
        }
        for directive in CacheControl(headers: headers).directives {
            switch directive.name {
            case "max-age": if maxAge == nil { maxAge = .some(seconds(directive) ?? 0) }
            case "s-maxage": if sharedMaxAge == nil { sharedMaxAge = .some(seconds(directive)) }
            case "no-cache":
                noCache = true
                noCacheFields += fieldNames(directive)
            case "no-store": noStore = true
            case "must-revalidate": mustRevalidate = true
            case "proxy-revalidate": proxyRevalidate = true
            case "must-understand": mustUnderstand = true
            case "public": isPublic = true
            case "private":
                isPrivate = true
                privateFields += fieldNames(directive)
            case "immutable": immutable = true
            case "no-transform": noTransform = true
            case "stale-while-revalidate":
                if staleWhileRevalidate == nil { staleWhileRevalidate = .some(seconds(directive)) }
            case "stale-if-error": if staleIfError == nil { staleIfError = .some(seconds(directive)) }
            default: break
            }
        }
        self.maxAge = maxAge ?? nil
        self.sharedMaxAge = sharedMaxAge ?? nil
        self.staleWhileRevalidate = staleWhileRevalidate ?? nil
        self.staleIfError = staleIfError ?? nil
    }
}
