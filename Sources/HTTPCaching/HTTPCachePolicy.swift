import FoundationEssentials
import HTTPCore

/// The caching rules of a private HTTP cache (RFC 9111, RFC 5861, RFC 8246), as pure functions.
///
/// A loader calls, in order of a request's life:
/// ```swift
/// switch HTTPCachePolicy.decide(request: request, variants: stored, now: Date()) {
/// case .fresh(let index, _), .stale(let index, _, false): serve(stored[index])
/// case .stale(let index, _, true): serve(stored[index]); revalidateInBackground()
/// case .validate(_, let conditional): send(request, adding: conditional)  // 304 → variantsToFreshen
/// case .miss: send(request)
/// case .unsatisfiable: answer504()
/// }
/// ```
/// then ``storability(request:response:directives:credentialsArePartitioned:)`` on a new response,
/// ``staleIfError(request:stored:now:callerLimit:)`` when the origin fails, and
/// ``invalidatedURLs(request:response:)`` after an unsafe request.
///
/// Only GET responses are stored. A HEAD request may be answered from a stored GET response, whose
/// header fields are those a HEAD would have received (RFC 9110 §9.3.2).
public enum HTTPCachePolicy {
    // MARK: - Storing (RFC 9111 §3)

    /// Whether `response` to `request` may be stored (RFC 9111 §3), and if not, why.
    ///
    /// Following §3 for a private cache: the method is GET; the status is final and not 304; a 206 is
    /// stored only as a part of a partial entry (§3.3), when ``storedPart(of:)`` allows it; the
    /// rules below apply to it as to any response; `must-understand` requires a status this cache understands
    /// and then overrides `no-store`; otherwise neither request nor response has `no-store`; and the
    /// response has `public`, `private`, `max-age`, `Expires`, or a heuristically cacheable status.
    /// `Vary: *` is refused too, since such a response can never be reused (§4.1).
    ///
    /// §3.5's rule on `Authorization` (store only with `public`, `must-revalidate` or `s-maxage`) is
    /// written for shared caches. It applies here unless `credentialsArePartitioned` is `true`: a
    /// store file may be shipped to other clients, so a response obtained with credentials stays out
    /// unless the origin says it may be shared, or unless the caller keeps it in the partition of the
    /// identity whose credentials fetched it, where no one else can read it.
    ///
    /// `directives` are the response's `Cache-Control` directives when the caller has read them
    /// already (a ``StoredResponse`` holds them), so that they are not read twice; `nil` reads them here.
    public static func storability(
        request: HTTPRequest, response: HTTPResponseHead, directives: ResponseCacheControl? = nil,
        credentialsArePartitioned: Bool = false
    ) -> CacheStorability {
        guard request.method == .get else { return .notStorable(.methodNotCacheable) }
        let byStatus = storability(status: response.status)
        guard byStatus == .storable else { return byStatus }
        if response.status == 206, storedPart(of: response) == nil { return .notStorable(.partialContent) }
        if RequestCacheControl(headers: request.headers).noStore { return .notStorable(.requestNoStore) }
        let directives = directives ?? ResponseCacheControl(headers: response.headers)
        if directives.mustUnderstand {
            // §5.2.2.3: a cache that understands the status code ignores no-store.
            guard understoodStatuses.contains(response.status) else { return .notStorable(.statusNotUnderstood) }
        } else if directives.noStore {
            return .notStorable(.responseNoStore)
        }
        if !credentialsArePartitioned, request.headers.contains("Authorization"),
            !(directives.isPublic || directives.mustRevalidate || directives.sharedMaxAge != nil)
        {
            return .notStorable(.authorizationWithoutPermission)
        }
        if VaryKey.secondaryKey(forResponse: response.headers, request: request.headers) == nil {
            return .notStorable(.varyAsterisk)
        }
        let permitted =
            directives.isPublic || directives.isPrivate || directives.maxAge != nil
            || response.headers.contains("Expires")
            || StoredResponse.heuristicallyCacheableStatuses.contains(response.status)
        return permitted ? .storable : .notStorable(.noCachingPermission)
    }

    /// Whether a response of `status` may be stored as far as its status goes (RFC 9111 §3), the part
    /// of ``storability(request:response:directives:credentialsArePartitioned:)`` that needs no more:
    /// an interim (1xx) response is not final, and a 304 updates the stored responses it validates
    /// (§4.3.4) instead of being stored. Any other status leaves it to the rest of the rule.
    public static func storability(status: Int) -> CacheStorability {
        if status < 200 { return .notStorable(.nonFinalStatus) }
        return status == 304 ? .notStorable(.notModified) : .storable
    }

    /// The final status codes defined by RFC 9110 §15 whose caching this cache handles, for
    /// `must-understand` (§5.2.2.3). 304 is absent: it is never stored.
    public static let understoodStatuses: Set<Int> = Set(200...206).union(300...305).union([307, 308])
        .union(400...417).union([421, 422, 426]).union(500...505)

    /// The span and complete length of a 206 that may be kept as a part of a partial entry (RFC 9111
    /// §3.3), or `nil`. It must carry one `Content-Range` with a span and a known complete length
    /// (a `multipart/byteranges` body is not kept), a strong `ETag` (parts are combined only under a
    /// strong validator, §3.4), and no content coding, so that its bytes are those of the
    /// representation the positions count in.
    public static func storedPart(of response: HTTPResponseHead) -> ContentRange? {
        let ranges = response.headers.values(for: "Content-Range")
        guard response.status == 206, ranges.count == 1, let contentRange = ContentRange(parsing: ranges[0]),
            contentRange.range != nil, contentRange.completeLength != nil,
            let tag = response.headers.firstValue(for: "ETag").flatMap({ EntityTag(parsing: $0) }), !tag.isWeak,
            (response.headers["Content-Encoding"].map { $0.caseInsensitiveEquals("identity") } ?? true)
        else { return nil }
        return contentRange
    }

    // MARK: - Reusing (RFC 9111 §4)

    /// Decides how to answer `request` from `variants`, the stored responses for its URL.
    ///
    /// 1. Only GET and HEAD requests are answered from the cache; others are a ``CacheDecision/miss``
    ///    (``CacheDecision/unsatisfiable`` with `only-if-cached`), as is an empty or unmatched `variants`.
    /// 2. Variants match when their secondary key, computed again with their own `Vary` and the
    ///    request's fields, equals their stored ``StoredResponse/varyKey``; the most recent by `Date`
    ///    is selected (§4.1).
    /// 3. Unless the request has `no-cache` (§5.2.1.4) or the response has `no-cache` (§5.2.2.4), a
    ///    fresh response meeting the request's `max-age` and `min-fresh` is served (§4.2, §5.2.1).
    ///    A fresh `immutable` response is also served to a `max-age=0` reload (RFC 8246 §2).
    /// 4. A stale response is served, unless `must-revalidate` forbids it (§5.2.2.2) or the request's
    ///    `max-age`/`min-fresh` exclude it, when within `stale-while-revalidate` (with background
    ///    revalidation, RFC 5861 §3) or within the request's `max-stale` (§5.2.1.2).
    ///    A request's `no-store` does not prevent reuse: it only forbids storing (§5.2.1.5).
    /// 5. Otherwise the response is validated (§4.3.1) when it has a validator, else a miss.
    ///    With `only-if-cached` (§5.2.1.7) anything that would contact the origin is ``CacheDecision/unsatisfiable``.
    public static func decide(request: HTTPRequest, variants: [StoredResponse], now: Date) -> CacheDecision {
        let directives = RequestCacheControl(headers: request.headers)
        let cannotUse: CacheDecision = directives.onlyIfCached ? .unsatisfiable : .miss
        guard request.method == .get || request.method == .head else { return cannotUse }
        let matching = matchingVariants(variants, request: request.headers)
        guard let selected = matching.first else { return cannotUse }
        let stored = variants[selected]
        if !directives.noCache, let reuse = reuse(stored, variant: selected, directives: directives, now: now) {
            return reuse
        }
        if directives.onlyIfCached { return .unsatisfiable }
        let conditional = conditionalHeaders(selected: stored, matching: matching.map { variants[$0] })
        return conditional.isEmpty ? .miss : .validate(variant: selected, conditionalHeaders: conditional)
    }

    /// The indices of the variants whose secondary key matches `request`, most recent first (§4.1).
    public static func matchingVariants(_ variants: [StoredResponse], request: HTTPHeaders) -> [Int] {
        variants.indices.filter { index in
            VaryKey.secondaryKey(forResponse: variants[index].headers, request: request) == variants[index].varyKey
        }.sorted { lhs, rhs in
            variants[lhs].isMoreRecent(than: variants[rhs])
                || (!variants[rhs].isMoreRecent(than: variants[lhs]) && lhs < rhs)
        }
    }

    private static func reuse(
        _ stored: StoredResponse,
        variant: Int,
        directives: RequestCacheControl,
        now: Date
    ) -> CacheDecision? {
        let response = stored.cacheControl
        if response.noCache { return nil }
        let age = stored.currentAge(now: now)
        let lifetime = stored.freshnessLifetime
        let withinMaxAge = directives.maxAge.map { age <= TimeInterval($0) } ?? true
        if lifetime > age {
            let freshEnough = directives.minFresh.map { lifetime - age >= TimeInterval($0) } ?? true
            guard freshEnough else { return nil }
            // RFC 8246 §2: a reload (max-age=0) need not revalidate a fresh immutable response.
            if withinMaxAge || (response.immutable && directives.maxAge == 0) {
                return .fresh(variant: variant, age: age)
            }
            return nil
        }
        // §4.2.4 and §5.2.2.2: must-revalidate forbids every stale use.
        guard !response.mustRevalidate, withinMaxAge, directives.minFresh == nil else { return nil }
        let staleness = age - lifetime
        if let window = response.staleWhileRevalidate, staleness <= TimeInterval(window) {
            return .stale(variant: variant, age: age, revalidate: true)
        }
        switch directives.maxStale {
        case .unlimited:
            return .stale(variant: variant, age: age, revalidate: false)
        case .seconds(let limit) where staleness <= TimeInterval(limit):
            return .stale(variant: variant, age: age, revalidate: false)
        default:
            return nil
        }
    }

    // MARK: - Origin errors (RFC 5861 §4)

    /// Whether `stored` may be served because the origin could not be reached or answered with an
    /// error status (see ``isErrorStatus(_:)``).
    ///
    /// The response must not have `must-revalidate` or `no-cache` (RFC 9111 §4.2.4), and its
    /// staleness at `now` must be within the largest of: the response's `stale-if-error`, the
    /// request's `stale-if-error` (RFC 5861 §4), and `callerLimit`, a staleness in seconds the
    /// caller accepts on its own account (an offline mode may pass `.infinity`).
    public static func staleIfError(
        request: HTTPRequest,
        stored: StoredResponse,
        now: Date,
        callerLimit: TimeInterval? = nil
    ) -> Bool {
        let response = stored.cacheControl
        guard !response.mustRevalidate, !response.noCache else { return false }
        let requested = RequestCacheControl(headers: request.headers).staleIfError
        let windows =
            [response.staleIfError, requested].compactMap { $0.map(TimeInterval.init) }
            + [callerLimit].compactMap { $0 }
        guard let window = windows.max() else { return false }
        return stored.staleness(now: now) <= window
    }

    /// Whether an origin answer with `status` counts as an error for `stale-if-error`: 500, 502, 503
    /// or 504 (RFC 5861 §4).
    public static func isErrorStatus(_ status: Int) -> Bool {
        [500, 502, 503, 504].contains(status)
    }
}
