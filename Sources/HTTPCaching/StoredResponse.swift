import FoundationEssentials
import HTTPCore

/// A response head as a cache keeps it: status, header fields, the times of the exchange and the
/// secondary key, with the freshness and age computations of RFC 9111 §4.2.
///
/// The store builds it from its columns; the loader builds it from a response it has just received.
/// Every computed value derives from the headers and the two times, so the store can persist only those.
public struct StoredResponse: Sendable, Hashable {
    /// The status code.
    public let status: Int
    /// The response header fields as received (after any 304 merge, see ``freshened(with:requestTime:responseTime:)``).
    public let headers: HTTPHeaders
    /// The local time at which the request that produced this response was sent (`request_time`, §4.2.3).
    public let requestTime: Date
    /// The local time at which the response was received (`response_time`, §4.2.3).
    public let responseTime: Date
    /// The secondary key computed by ``VaryKey/secondaryKey(forVary:request:)`` from the request that produced it.
    public let varyKey: String
    /// The response's cache directives.
    public let cacheControl: ResponseCacheControl

    /// Creates a stored response from its parts.
    public init(status: Int, headers: HTTPHeaders, requestTime: Date, responseTime: Date, varyKey: String) {
        self.status = status
        self.headers = headers
        self.requestTime = requestTime
        self.responseTime = responseTime
        self.varyKey = varyKey
        self.cacheControl = ResponseCacheControl(headers: headers)
    }

    /// Creates a stored response for `response` to `request`, computing the secondary key;
    /// `nil` when the response has `Vary: *` and so could never be reused (§4.1).
    public init?(request: HTTPRequest, response: HTTPResponseHead, requestTime: Date, responseTime: Date) {
        guard let key = VaryKey.secondaryKey(forResponse: response.headers, request: request.headers) else {
            return nil
        }
        self.init(
            status: response.status,
            headers: response.headers,
            requestTime: requestTime,
            responseTime: responseTime,
            varyKey: key
        )
    }

    // MARK: - Header values

    /// The `Date` field (RFC 9110 §6.6.1), or `nil` when absent or invalid.
    public var date: Date? {
        Self.date(in: headers)
    }

    private static func date(in headers: HTTPHeaders) -> Date? {
        headers.firstValue(for: "Date").flatMap(HTTPDate.parse)
    }

    /// The `Expires` field (§5.3), or `nil` when absent. Only the three forms of RFC 9110 §5.6.7 are
    /// dates, read exactly (``HTTPDate/parseStrictly(_:)``); anything else reads as `Date.distantPast`:
    /// "A cache recipient MUST interpret invalid date formats, especially the value "0", as
    /// representing a time in the past (i.e., "already expired")". `Expires` is a singleton field
    /// whose date holds a comma, so several lines are not a list: the same date repeated is that
    /// date, different values are invalid.
    public var expires: Date? {
        let lines = headers.values(for: "Expires").map { $0.trimmingHTTPWhitespace() }
        guard let first = lines.first else { return nil }
        guard lines.allSatisfy({ $0 == first }) else { return .distantPast }
        return HTTPDate.parseStrictly(first) ?? .distantPast
    }

    /// The `Age` field in seconds (§5.1), or 0 when absent or invalid. A list, or several lines, is
    /// read by its first member: "a cache encountering a message with a list-based Age field value
    /// SHOULD use the first member of the field value, discarding subsequent ones". A first member
    /// that is not a non-negative integer makes the field invalid, and it is ignored. Values beyond
    /// 2^31 are clamped (§1.2.2).
    public var ageValue: Int {
        Self.ageValue(in: headers)
    }

    private static func ageValue(in headers: HTTPHeaders) -> Int {
        guard let first = headers.firstValue(for: "Age") else { return 0 }
        let member = first.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        return CacheControl.parseDeltaSeconds(member.trimmingHTTPWhitespace()) ?? 0
    }

    /// The `Last-Modified` field (RFC 9110 §8.8.2), or `nil` when absent or invalid.
    public var lastModified: Date? {
        headers.firstValue(for: "Last-Modified").flatMap(HTTPDate.parse)
    }

    /// The `ETag` field (RFC 9110 §8.8.3), or `nil` when absent or invalid.
    public var etag: EntityTag? {
        headers.firstValue(for: "ETag").flatMap { EntityTag(parsing: $0) }
    }

    /// Whether the response carries `Cache-Control: immutable` (RFC 8246).
    public var isImmutable: Bool { cacheControl.immutable }

    /// Whether the response has a validator a conditional request can use (an ETag or Last-Modified).
    public var hasValidator: Bool { etag != nil || lastModified != nil }

    // MARK: - Freshness (RFC 9111 §4.2.1, §4.2.2)

    /// The longest heuristic freshness lifetime assigned: 7 days.
    ///
    /// §4.2.2 suggests 10% of the time since `Last-Modified` but sets no bound; a resource untouched
    /// for years would otherwise be reused for months without a check. One week bounds the harm of a
    /// wrong guess and is the bound Firefox applies; an offline preload refreshes well within it.
    public static let maximumHeuristicLifetime: TimeInterval = 7 * 24 * 60 * 60

    /// The fraction of the time since `Last-Modified` used as heuristic lifetime (§4.2.2: "10%").
    public static let heuristicFraction = 0.1

    /// Status codes that are heuristically cacheable (RFC 9110 §15.1).
    public static let heuristicallyCacheableStatuses: Set<Int> = [
        200, 203, 204, 206, 300, 301, 308, 404, 405, 410, 414, 501,
    ]

    /// Whether the response has an explicit expiration time: `max-age` or `Expires` (§4.2.1; `s-maxage`
    /// applies to shared caches only).
    public var hasExplicitExpiration: Bool {
        cacheControl.maxAge != nil || headers.contains("Expires")
    }

    /// The freshness lifetime in seconds (§4.2.1): `max-age`; else `Expires` minus `Date` (the receipt
    /// time standing in for a missing `Date`); else a heuristic lifetime (§4.2.2) when the status is
    /// heuristically cacheable or the response is `public`: 10% of `Date` minus `Last-Modified`, at
    /// most ``maximumHeuristicLifetime``; else 0.
    public var freshnessLifetime: TimeInterval {
        if let maxAge = cacheControl.maxAge {
            return TimeInterval(maxAge)
        }
        let dateValue = date ?? responseTime
        if let expires {
            return max(0, expires.timeIntervalSince(dateValue))
        }
        return heuristicFreshnessLifetime ?? 0
    }

    /// The heuristic lifetime, or `nil` when the response has explicit expiration or may not use heuristics.
    public var heuristicFreshnessLifetime: TimeInterval? {
        guard !hasExplicitExpiration,
            StoredResponse.heuristicallyCacheableStatuses.contains(status) || cacheControl.isPublic
        else { return nil }
        guard let lastModified else { return 0 }
        let sinceModified = max(0, (date ?? responseTime).timeIntervalSince(lastModified))
        return min(sinceModified * StoredResponse.heuristicFraction, StoredResponse.maximumHeuristicLifetime)
    }

    // MARK: - Age (RFC 9111 §4.2.3)

    /// `corrected_initial_age` (§4.2.3): the larger of the apparent age (`response_time - date_value`,
    /// at least 0) and the corrected `Age` value (`age_value + response_delay`). A missing `Date`
    /// makes the apparent age 0. A negative response delay (a clock that went back) counts as 0.
    public var correctedInitialAge: TimeInterval {
        Self.correctedInitialAge(headers: headers, requestTime: requestTime, responseTime: responseTime)
    }

    /// ``correctedInitialAge`` of a response with `headers`, without making a stored response (whose
    /// cache directives are parsed when it is made).
    public static func correctedInitialAge(headers: HTTPHeaders, requestTime: Date, responseTime: Date)
        -> TimeInterval
    {
        let apparentAge = max(0, responseTime.timeIntervalSince(date(in: headers) ?? responseTime))
        let responseDelay = max(0, responseTime.timeIntervalSince(requestTime))
        let correctedAgeValue = TimeInterval(ageValue(in: headers)) + responseDelay
        return max(apparentAge, correctedAgeValue)
    }

    /// `current_age` at `now` (§4.2.3): ``correctedInitialAge`` plus the resident time
    /// `now - response_time` (taken as 0 if the clock reads earlier than the receipt).
    public func currentAge(now: Date) -> TimeInterval {
        Self.currentAge(headers: headers, requestTime: requestTime, responseTime: responseTime, now: now)
    }

    /// ``currentAge(now:)`` of a response with `headers` received at `responseTime` for a request sent
    /// at `requestTime`, without making a stored response: for a store's hit path, which decides
    /// freshness from the instant stored with the entry (``freshUntil``) and needs only the age.
    public static func currentAge(headers: HTTPHeaders, requestTime: Date, responseTime: Date, now: Date)
        -> TimeInterval
    {
        correctedInitialAge(headers: headers, requestTime: requestTime, responseTime: responseTime)
            + max(0, now.timeIntervalSince(responseTime))
    }

    /// Whether the response is fresh at `now`: its lifetime exceeds its current age (§4.2).
    /// This ignores `no-cache`; see ``freshUntil`` for the instant reuse without validation ends.
    public func isFresh(now: Date) -> Bool {
        freshnessLifetime > currentAge(now: now)
    }

    /// How long past its freshness lifetime the response is at `now` (0 while fresh).
    public func staleness(now: Date) -> TimeInterval {
        max(0, currentAge(now: now) - freshnessLifetime)
    }

    // MARK: - Store columns

    /// The instant until which the response may be reused without contacting the origin:
    /// `response_time + freshness_lifetime - corrected_initial_age`. A `no-cache` response must
    /// always be validated, so its lifetime counts as 0 here.
    public var freshUntil: Date {
        let lifetime = cacheControl.noCache ? 0 : freshnessLifetime
        return responseTime.addingTimeInterval(lifetime - correctedInitialAge)
    }

    /// The latest instant the response's own directives let it be served stale: the freshness end
    /// plus the larger of `stale-while-revalidate` and `stale-if-error` (RFC 5861). `nil` when it has
    /// neither, or when `must-revalidate` or `no-cache` forbid stale reuse (§4.2.4). Request
    /// directives (`max-stale`, `stale-if-error`) and a caller's own limit may allow more.
    public var staleUntil: Date? {
        guard !cacheControl.mustRevalidate, !cacheControl.noCache else { return nil }
        let windows = [cacheControl.staleWhileRevalidate, cacheControl.staleIfError].compactMap { $0 }
        guard let window = windows.max() else { return nil }
        return responseTime.addingTimeInterval(freshnessLifetime - correctedInitialAge + TimeInterval(window))
    }

    /// Whether this response is more recent than `other` (§4.1): by `Date` (the receipt time standing
    /// in for a missing one), then by receipt time.
    func isMoreRecent(than other: StoredResponse) -> Bool {
        let (mine, theirs) = (date ?? responseTime, other.date ?? other.responseTime)
        return mine != theirs ? mine > theirs : responseTime > other.responseTime
    }
}
