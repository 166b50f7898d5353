import CacheStore
import FoundationEssentials
import HTTPCaching
import HTTPCore
import Synchronization
import Transport

/// Loads requests through the store with the rules of a private HTTP cache (RFC 9111, 5861, 8246).
///
/// A fresh hit costs no request; a stale entry is revalidated with `If-None-Match` /
/// `If-Modified-Since` and a 304 serves the stored body with merged headers; a miss streams the
/// body to the caller and into the store at once. Redirects are followed here, not by the
/// transport, so that each hop is cached and counted. Concurrent loads of one request share one transfer.
final class Loader: Sendable {
    /// The most redirects one load follows.
    static let maximumRedirects = 20

    let store: CacheStore
    let transport: any HTTPTransport
    let logger: Logger
    /// Header fields sent with every request (such as `User-Agent`) unless the request sets them.
    let defaultHeaders: HTTPHeaders
    /// ``defaultHeaders`` without the credential fields, for requests to other origins.
    private let defaultHeadersWithoutCredentials: HTTPHeaders
    /// The only origin the credential fields among ``defaultHeaders`` are sent to.
    let credentialOrigin: URL?
    let fetches = InFlightFetches()
    let revalidations = BackgroundRevalidations()
    /// The served fields and initial ages of the entries hit lately.
    let heads = ServedHeadCache()
    /// Fresh hits kept in memory and served again without reading the store (``memoryPlace(for:key:)``);
    /// `nil` when off.
    let memory: AnswerMemory<MemoryHit, Never>?
    /// How many loads ``memory`` answered.
    let memoryHits = Atomic<Int>(0)
    let clock: @Sendable () -> Date

    /// - Parameter memoryCapacity: The most bytes of fresh hits kept in ``memory``; 0 keeps none.
    init(
        store: CacheStore, transport: any HTTPTransport, logger: Logger, defaultHeaders: HTTPHeaders = [:],
        credentialOrigin: URL? = nil, memoryCapacity: Int = 0, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.transport = transport
        self.logger = logger
        self.defaultHeaders = defaultHeaders
        var withoutCredentials = defaultHeaders
        for name in HTTPHeaders.credentialNames { withoutCredentials.remove(name) }
        defaultHeadersWithoutCredentials = withoutCredentials
        self.credentialOrigin = credentialOrigin
        memory = memoryCapacity > 0 ? AnswerMemory(capacity: memoryCapacity) : nil
        self.clock = clock
    }

    // MARK: - Loading

    /// Loads `url` (absolute), following redirects if asked.
    ///
    /// It and the functions of a load it calls run on the caller's executor, not the global one:
    /// a hit asked at each of them whether to switch. No caller may be an actor that the store's
    /// reads would then hold up; every caller is nonisolated.
    nonisolated(nonsending) func load(
        _ url: URL, request: WebRequest, policy: CachePolicy, context: RequestContext
    ) async throws -> WebResponse {
        if store.configuration.readOnly, policy != .returnCacheDataDontLoad || !request.method.isAnsweredFromStore {
            throw WebCacheError(
                .store,
                "The store '\(store.path)' was opened for reading only, so \(url.redactedForMessages) can only be "
                    + "loaded from it, with GET or HEAD and the cache-only policy; anything else may store or "
                    + "remove entries.")
        }
        var current = url
        var method = request.method
        var body = request.body
        // GET and HEAD are answered from the store or sent without content: their stream is not read.
        var bodyStream = request.method.isAnsweredFromStore ? nil : request.bodyStream
        if request.method.isAnsweredFromStore { request.bodyStream?.cancel() }
        var redirects: [URL] = []
        var visited: Set<String> = []
        var headers = requestHeaders(request, to: url)
        while true {
            var hop = HTTPRequest(
                method: method, url: current, headers: headers, body: body, bodyStream: bodyStream,
                refusesPrivateAddresses: request.refusesPrivateAddresses)
            hop.decodesContent = request.decodesContent
            var response = try await loadOneReadingReplacements(
                hop, policy: policy, limit: request.maximumBodySize, context: context)
            let dropsContent = response.status == 303
                || ((response.status == 301 || response.status == 302) && method == .post)
            // A streamed body was sent once and cannot be sent again to the redirect's target.
            guard request.followsRedirects, let next = Loader.redirectTarget(of: response, from: current),
                bodyStream == nil || dropsContent
            else {
                response.redirects = redirects
                return response
            }
            // The redirect's own body is small; reading it to the end is what stores the redirect. If that
            // fails, the redirect is only not stored: following it does not need its body.
            _ = try? await response.body.collect(upTo: 1 << 20)
            guard next.user == nil, next.password == nil else {
                throw WebCacheError(.invalidURL, "\(current.redactedForMessages) redirects to "
                    + "\(next.redactedForMessages), which carries a user name or password; it is not followed.")
            }
            guard await context.allowsRedirect(current, next) else {
                throw WebCacheError(.forbidden, "\(current.redactedForMessages) redirects to "
                    + "\(next.redactedForMessages), but a page on a public address may not reach the private "
                    + "address of \(next.host ?? "its host").")
            }
            if redirects.isEmpty { visited.insert("\(request.method.rawValue) \(url.cacheKey.absoluteString)") }
            redirects.append(current)
            guard redirects.count <= Loader.maximumRedirects else {
                throw WebCacheError(
                    .redirects,
                    "Loading \(url.redactedForMessages) took more than \(Loader.maximumRedirects) redirects.")
            }
            if dropsContent {
                if method != .head { method = .get }
                if body != nil || bodyStream != nil {
                    // RFC 9110 §15.4: the content is dropped, and the fields that described it.
                    body = nil
                    bodyStream = nil
                    for name in Loader.contentFields { headers.remove(name) }
                }
            }
            if !next.isSameOrigin(as: current) {
                // Credentials the caller set are for the origin they were set for (as in Fetch's
                // redirect rules); the session adds its own per origin.
                for name in HTTPHeaders.credentialNames { headers.remove(name) }
            }
            let key = "\(method.rawValue) \(next.cacheKey.absoluteString)"
            guard visited.insert(key).inserted else {
                let chain = (redirects + [next]).map(\.redactedForMessages).joined(separator: " -> ")
                throw WebCacheError(
                    .redirects, "Loading \(url.redactedForMessages) ran into a redirect loop: \(chain).")
            }
            logger.debug("redirect \(response.status) \(current.redactedForMessages) -> \(next.redactedForMessages)")
            current = next
        }
    }

    /// The fields sent for `request` to `url`: the default fields (credentials only to the
    /// credential origin), each replaced by the request's own of the same name.
    func requestHeaders(_ request: WebRequest, to url: URL) -> HTTPHeaders {
        var headers =
            credentialOrigin.map(url.isSameOrigin(as:)) ?? false ? defaultHeaders : defaultHeadersWithoutCredentials
        // Most loads set no field of their own, or one or two (a preload's Accept fields): removed
        // by name one after another, without a set of lowered names.
        if request.headers.isEmpty { return headers }
        for field in request.headers {
            headers.remove(field.name)
        }
        for field in request.headers {
            headers.append(name: field.name, value: field.value)
        }
        return headers
    }

    /// Fields describing request content, dropped when a redirect turns the request into a GET.
    static let contentFields = ["Content-Type", "Content-Length", "Content-Encoding", "Content-Language",
                                "Content-Location"]

    /// Where a response redirects to, if it is a redirect this loader follows.
    static func redirectTarget(of response: WebResponse, from url: URL) -> URL? {
        guard [301, 302, 303, 307, 308].contains(response.status),
            let location = response.headers["Location"]?.trimmingHTTPWhitespace(), !location.isEmpty,
            let next = URL(parsing: location, relativeTo: url)?.absoluteURL, next.isHTTP
        else { return nil }
        return next
    }

    /// ``loadOne(_:policy:limit:context:)``, again when the stored entry it was serving was replaced
    /// (or removed) by another writer before its body was read: the body went with the entry, and the
    /// next try reads what took its place. After ``replacedEntryTries`` such tries the last one's error
    /// is thrown.
    private nonisolated(nonsending) func loadOneReadingReplacements(
        _ request: HTTPRequest, policy: CachePolicy, limit: Int64?, context: RequestContext
    ) async throws -> WebResponse {
        var tries = 1
        while true {
            do {
                return try await loadOne(request, policy: policy, limit: limit, context: context)
            } catch let gone as StoredBodyGone {
                guard tries < Self.replacedEntryTries else { throw gone.error }
                logger.debug("\(request.url.redactedForMessages): the stored entry was replaced; reading it again")
                tries += 1
            }
        }
    }

    /// How many times a load reads the store again when the entry it was serving was replaced under it.
    static let replacedEntryTries = 3

    /// Thrown when the body of a stored entry being served is no longer in the store (another writer
    /// replaced or removed the entry since it was read), before any of it was delivered; `error` is
    /// what the load throws if it gives up.
    struct StoredBodyGone: Error {
        let error: WebCacheError
    }

    /// Loads one request without following redirects.
    private nonisolated(nonsending) func loadOne(
        _ request: HTTPRequest, policy: CachePolicy, limit: Int64?, context: RequestContext
    ) async throws -> WebResponse {
        guard request.method.isAnsweredFromStore else {
            // A stored GET response answers neither OPTIONS nor TRACE, nor any method that changes state.
            if case .returnCacheDataDontLoad = policy {
                throw WebCacheError(
                    .notCached, "\(request.method.rawValue) \(request.url.redactedForMessages) is not answered "
                        + "from the store, and the policy forbids the network.")
            }
            return try await passThrough(request, limit: limit, context: context)
        }
        if case .reloadIgnoringCacheData = policy {
            // Nothing stored is read: not a variant, nor the parts that only stand in for a range.
            return try await fetch(request, validating: nil, context: context, limit: limit)
        }
        let key = request.url.cacheKey
        let entries: [CacheEntry]
        var loneBody: Data?
        if policy.followsProtocol {
            // A fresh hit kept in memory reads nothing from the store but its change count.
            let checkedAt = clock()
            let place = memoryPlace(for: request, key: key)
            if let place,
                let kept = memoryAnswer(at: place, request: request, context: context, now: checkedAt, limit: limit)
            {
                return kept
            }
            // A fresh lone variant is served from this one read, its body read with it.
            var (variants, freshBody) = try lookupVariants(of: key, context: context, withBodyIfFreshAt: checkedAt)
            if let fresh = Self.freshAlone(variants, request: request, now: checkedAt, heads: heads) {
                logger.debug("hit \(request.url.redactedForMessages)")
                // Moved out of the list, not copied: a copy retained and released each of its strings.
                let entry = variants.removeLast()
                let response = try await serveStored(entry, request: request, source: .hit, age: fresh.age,
                                                     head: fresh.head, limit: limit, context: context, body: freshBody)
                if let place, let freshBody {
                    remember(response, entry: entry, head: fresh.head, body: freshBody, at: place,
                             request: request, context: context)
                }
                return response
            }
            entries = variants
        } else {
            // Served from the store as it is: a lone variant's body is read with it, fresh or not, so
            // that another writer replacing the entry meanwhile cannot take the body away first.
            (entries, loneBody) = try lookupVariants(of: key, context: context, withBodyIfFreshAt: .distantPast)
        }
        let stored = entries.map(\.storedResponse)
        // A complete stored response answers ranges itself (``serve``); parts only stand in for none.
        if HTTPCachePolicy.matchingVariants(stored, request: request.headers).isEmpty,
            let ranged = try await loadFromParts(request, policy: policy, limit: limit, context: context)
        {
            return ranged
        }
        let now = clock()

        switch policy {
        case .returnCacheDataElseLoad, .returnCacheDataDontLoad:
            if let index = HTTPCachePolicy.matchingVariants(stored, request: request.headers).first {
                // Fresh for reuse without a request (the stored column): `no-cache` makes a response stale at once.
                let fresh = entries[index].isFresh(at: now)
                return try await serveStored(entries[index], request: request, source: fresh ? .hit : .stale,
                                             age: stored[index].currentAge(now: now), limit: limit, context: context,
                                             refetchingIfDamaged: policy != .returnCacheDataDontLoad, body: loneBody)
            }
            if case .returnCacheDataDontLoad = policy {
                // Parts that stand in for no request here still tell what the store lacks.
                if let partial = try matchingPartial(request, context) {
                    let held = partial.heldSpans.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ", ")
                    throw WebCacheError(
                        .notCached,
                        "Only part of \(request.url.redactedForMessages) is in the store (bytes \(held) of "
                            + "\(partial.completeLength)), and the policy forbids the network; a request for a range "
                            + "of those bytes is answered from the store.")
                }
                throw WebCacheError(
                    .notCached,
                    "\(request.url.redactedForMessages) is not in the store, and the policy forbids the network.")
            }
            return try await fetch(request, validating: nil, context: context, limit: limit)
        case .useProtocolCachePolicy, .offlineFallback:
            break
        case .reloadIgnoringCacheData:
            // Fetched above, before the store was read.
            break
        }

        let fallbackLimit = policy.fallbackLimit
        var decision = HTTPCachePolicy.decide(request: request, variants: stored, now: now)
        if let index = decision.variant, Self.mustNotServeDecoded(entries[index], stored[index], to: request) {
            // Fetched again as it is coded; the decoded copy still stands in if the network fails.
            decision = .miss
        }
        switch decision {
        case .fresh(let index, let age):
            logger.debug("hit \(request.url.redactedForMessages)")
            return try await serveStored(entries[index], request: request, source: .hit, age: age, limit: limit,
                                         context: context)
        case .stale(let index, let age, let revalidate):
            logger.debug("stale \(request.url.redactedForMessages) (age \(Int(age))s)")
            let response = try await serveStored(entries[index], request: request, source: .stale, age: age,
                                                 limit: limit, context: context)
            // Not when the stored copy was damaged and fetched again instead.
            if revalidate, response.source == .stale {
                revalidateInBackground(request, entries: entries, stored: stored, selected: index, limit: limit,
                                       context: context)
            }
            return response
        case .validate(let index, let conditionalHeaders):
            let validation = Validation(entries: entries, stored: stored, selected: index, headers: conditionalHeaders)
            return try await fetch(request, validating: validation, fallback: validation, fallbackLimit: fallbackLimit,
                                   context: context, limit: limit)
        case .miss:
            // A matching entry without validators cannot be revalidated, but may still stand in when the
            // network fails (stale-if-error, or the caller's offline limit).
            let fallback = HTTPCachePolicy.matchingVariants(stored, request: request.headers).first.map {
                Validation(entries: entries, stored: stored, selected: $0, headers: [:])
            }
            return try await fetch(request, validating: nil, fallback: fallback, fallbackLimit: fallbackLimit,
                                   context: context, limit: limit)
        case .unsatisfiable:
            // RFC 9111 §5.2.1.7: only-if-cached with nothing usable is answered 504.
            return WebResponse(url: request.url, status: 504, headers: ["Content-Length": "0"], source: .stale,
                               body: WebResponse.Body(data: Data()))
        }
    }

    /// The age of the one stored variant of a request that carries no cache directives of its own,
    /// when it is fresh by the instant stored with it (`fresh_until`, which counts a `no-cache`
    /// response's lifetime as 0) and matches the request's Vary key: what
    /// ``HTTPCachePolicy/decide(request:variants:now:)`` decides then, without parsing the stored
    /// response's directives. `nil` sends the request through the rules: several variants, request
    /// directives (`Cache-Control`, or `Pragma` that stands in for it), a clock that reads earlier
    /// than the response's receipt, or a decoded copy that may have to be fetched as coded. The
    /// entry's initial age comes from its head in `heads`, returned too for serving it.
    static func freshAlone(_ entries: [CacheEntry], request: HTTPRequest, now: Date, heads: ServedHeadCache)
        -> (age: TimeInterval, head: ServedHeadCache.Head)?
    {
        guard entries.count == 1, let entry = entries.first, entry.freshUntil > now, now >= entry.responseTime,
            entry.decodedFrom == nil || request.decodesContent,
            !request.headers.contains("Cache-Control"), !request.headers.contains("Pragma"),
            VaryKey.secondaryKey(forResponse: entry.headers, request: request.headers) == entry.varyKey
        else { return nil }
        // StoredResponse.currentAge(now:), its corrected initial age worked out once.
        let head = heads.head(of: entry)
        return (head.initialAge + max(0, now.timeIntervalSince(entry.responseTime)), head)
    }

    /// Whether `entry` (read as `stored`) is a copy decoded from a content coding of a response that
    /// forbids transformation (`no-transform`), and `request` takes content as the origin coded it,
    /// as a proxy does: serving the decoded bytes would then transform the response (RFC 9110 §7.7),
    /// so the network is asked while it can answer. A request with `only-if-cached` still gets the copy.
    static func mustNotServeDecoded(_ entry: CacheEntry, _ stored: StoredResponse, to request: HTTPRequest) -> Bool {
        guard !request.decodesContent, entry.decodedFrom != nil, stored.cacheControl.noTransform else { return false }
        return !RequestCacheControl(headers: request.headers).onlyIfCached
    }

    /// Fetches `request` (conditionally when `validation` is given); when the network fails or the
    /// origin answers with an error status, serves `fallback` instead if `stale-if-error` or the
    /// caller's offline limit allows it.
    private func fetch(
        _ request: HTTPRequest, validating validation: Validation?, fallback: Validation?,
        fallbackLimit: TimeInterval?, context: RequestContext, limit: Int64?
    ) async throws -> WebResponse {
        do {
            let response = try await fetch(request, validating: validation, context: context, limit: limit)
            if HTTPCachePolicy.isErrorStatus(response.status), let fallback {
                do {
                    if let stale = try await staleFallback(fallback, request: request, staleness: fallbackLimit,
                                                           bodyLimit: limit, context: context)
                    {
                        logger.info(
                            "serving stale \(request.url.redactedForMessages): the origin answered \(response.status)")
                        return stale
                    }
                } catch let damage as WebCacheError where damage.code == .damaged {
                    logger.warning("\(damage.message) It cannot stand in for the origin's \(response.status) answer.")
                }
            }
            return response
        } catch let error as WebCacheError where error.code == .network {
            guard let fallback else { throw error }
            let stale: WebResponse?
            do {
                stale = try await staleFallback(fallback, request: request, staleness: fallbackLimit, bodyLimit: limit,
                                                context: context)
            } catch let damage as WebCacheError where damage.code == .damaged {
                throw WebCacheError(.damaged, "\(error.message) \(damage.message) It cannot stand in.",
                                    cause: damage.cause)
            }
            if let stale {
                logger.info("serving stale \(request.url.redactedForMessages): \(error.message)")
                return stale
            }
            let stored = fallback.stored[fallback.selected]
            let why: String
            if stored.cacheControl.mustRevalidate || stored.cacheControl.noCache {
                let directive = stored.cacheControl.mustRevalidate ? "must-revalidate" : "no-cache"
                why = " The stored response has \(directive), so it is not served without the origin's say-so."
            } else {
                let staleness = Int(stored.staleness(now: clock()))
                why = " The stored response is \(staleness) seconds stale, more than its stale-if-error"
                    + " and the caller's limit allow."
            }
            throw WebCacheError(.network, error.message + why, cause: error.cause ?? error)
        }
    }

    /// Revalidates a stale entry after it was served (RFC 5861 §3), at most once at a time per entry.
    /// The request is validated directly: going through the rules again would only find the entry
    /// still within its `stale-while-revalidate` window.
    private func revalidateInBackground(
        _ request: HTTPRequest, entries: [CacheEntry], stored: [StoredResponse], selected: Int, limit: Int64?,
        context: RequestContext
    ) {
        let matching = HTTPCachePolicy.matchingVariants(stored, request: request.headers).map { stored[$0] }
        let conditional = HTTPCachePolicy.conditionalHeaders(selected: stored[selected], matching: matching)
        let validation =
            conditional.isEmpty
            ? nil : Validation(entries: entries, stored: stored, selected: selected, headers: conditional)
        revalidations.start(key: "\(context.partition) \(request.url.cacheKey.absoluteString)") { [self] in
            let response = try await fetch(request, validating: validation, context: context, limit: limit)
            for try await _ in response.body {}
        }
    }

    /// Serves a stale entry if `stale-if-error` or the caller's offline limit allows it.
    /// - Throws: ``WebCacheError`` with code ``WebCacheError/Code/damaged`` when its body is damaged.
    private func staleFallback(
        _ validation: Validation, request: HTTPRequest, staleness: TimeInterval?, bodyLimit: Int64?,
        context: RequestContext
    ) async throws -> WebResponse? {
        let stored = validation.stored[validation.selected]
        let now = clock()
        guard HTTPCachePolicy.staleIfError(request: request, stored: stored, now: now, callerLimit: staleness) else {
            return nil
        }
        return try await serve(validation.entries[validation.selected], request: request, source: .stale,
                               age: stored.currentAge(now: now), limit: bodyLimit, context: context)
    }

    // MARK: - Methods the store does not answer

    /// Sends a request of a method other than GET and HEAD to the network, then invalidates what
    /// RFC 9111 §4.4 says an unsafe one changed.
    private func passThrough(
        _ request: HTTPRequest, limit: Int64?, context: RequestContext
    ) async throws -> WebResponse {
        let response = try await send(request, context: context)
        for url in HTTPCachePolicy.invalidatedURLs(request: request, response: response.head) {
            let removed = try await storeCall("invalidate \(url.redactedForMessages)") {
                try await store.invalidate(url: url.absoluteString, partition: context.partition)
            }
            if removed.entryCount > 0 { logger.debug("invalidated \(url.redactedForMessages)") }
        }
        let pump = NetworkBodyPump(body: response.body, draft: nil, store: store, url: request.url, limit: limit,
                                   logger: logger, onFinish: { _ in })
        var served = WebResponse(url: request.url, status: response.head.status,
                                 headers: Self.servedHeaders(of: response), source: .network,
                                 body: WebResponse.Body(pull: { try await pump.next() }))
        served.remoteAddress = response.remoteAddress
        served.httpVersion = response.httpVersion
        served.notStoredReason = CacheStorability.Reason.methodNotCacheable.rawValue
        return served
    }

    // MARK: - Store access

    /// Every stored variant of `key` in the context's partition.
    func lookupVariants(of key: URL, context: RequestContext) throws -> [CacheEntry] {
        do {
            return try store.variants(partition: context.partition, method: .get, url: key.absoluteString)
        } catch {
            throw WebCacheError(.store, "The store could not be read for \(key.redactedForMessages).", cause: error)
        }
    }

    /// Every stored variant of `key` in the context's partition and, when it is the only one and
    /// fresh at `now` with a body read at once (``storedBody(_:url:discardsDamage:body:)``), its body,
    /// in one read of the store.
    func lookupVariants(of key: URL, context: RequestContext, withBodyIfFreshAt now: Date) throws
        -> (entries: [CacheEntry], body: Data?)
    {
        do {
            return try store.variants(
                partition: context.partition, method: .get, url: key.absoluteString, withBodyIfFreshAt: now,
                upTo: Int64(CacheStore.chunkSize))
        } catch {
            throw WebCacheError(.store, "The store could not be read for \(key.redactedForMessages).", cause: error)
        }
    }

    /// Serves a stored entry; when its body turns out damaged (and `refetches`), fetches the request
    /// again without conditions instead: a 304 would only confirm the damaged copy.
    private nonisolated(nonsending) func serveStored(
        _ entry: CacheEntry, request: HTTPRequest, source: ResponseSource, age: TimeInterval,
        head: ServedHeadCache.Head? = nil, limit: Int64?, context: RequestContext,
        refetchingIfDamaged refetches: Bool = true, body: Data? = nil
    ) async throws -> WebResponse {
        do {
            return try await serve(entry, request: request, source: source, age: age, head: head, limit: limit,
                                   context: context, discardsDamage: refetches, body: body)
        } catch let error as WebCacheError where error.code == .damaged && refetches {
            logger.warning("\(error.message) Fetching it again.")
            return try await fetch(request, validating: nil, context: context, limit: limit)
        }
    }

    /// A response served from a stored entry; HEAD gets the head alone.
    ///
    /// The body is checked as it is read (``CacheStore/BodyChunkReader``). A body that fits in one
    /// chunk is read and checked before the response is returned; a larger one is streamed, each
    /// chunk checked before it is handed over, so the response's body ends with
    /// ``WebCacheError/Code/damaged`` in place of a damaged chunk (for a body stored before the
    /// store had chunk checksums, in place of its end).
    ///
    /// - Parameter head: The entry's head, when the caller has it from ``heads`` already.
    /// - Parameter discardsDamage: Whether a body found damaged is removed from the store with the
    ///   entries that use it, so that the network's answer is stored in its place, now or at the next
    ///   load (`false` when the policy forbids the network: the damage is left for verify and salvage).
    /// - Throws: ``WebCacheError`` with code ``WebCacheError/Code/tooLarge`` when the stored body is over
    ///   `limit`, or ``WebCacheError/Code/damaged`` when a body read at once is damaged.
    nonisolated(nonsending) func serve(
        _ entry: CacheEntry, request: HTTPRequest, source: ResponseSource, age: TimeInterval,
        head: ServedHeadCache.Head? = nil, limit: Int64?, context: RequestContext, discardsDamage: Bool = true,
        body storedBytes: Data? = nil
    ) async throws -> WebResponse {
        let head = head ?? heads.head(of: entry)
        let decoder = Self.decoder(for: request, coding: head.coding)
        // Ranges count in the bytes served, so not of content decoded as it is read.
        if decoder == nil, let ranged = try await servedRanges(
            of: entry, request: request, head: head, source: source, age: age, limit: limit,
            discardsDamage: discardsDamage)
        {
            if let id = entry.id { _ = store.recordHit(entryID: id, at: clock()) }
            return ranged
        }
        var headers: HTTPHeaders
        let coding: String?
        if decoder != nil {
            headers = head.headers(age: age)
            coding = headers.removeContentCoding()
            // Decoded now: the origin's strong tag names the coded bytes.
            if coding != nil { headers.weakenEntityTag() }
        } else {
            headers = head.headers(age: age, contentLength: entry.servedContentLength)
            coding = nil
        }
        if let limit, request.method != .head, entry.bodySize > limit {
            throw WebCacheError(
                .tooLarge,
                "The stored response for \(request.url.redactedForMessages) has \(entry.bodySize) bytes, more than "
                    + "the limit of \(limit) bytes.")
        }
        var body: WebResponse.Body
        if request.method == .head || entry.bodyID == nil {
            body = WebResponse.Body(data: Data())
        } else {
            body = try await storedBody(entry, url: request.url, discardsDamage: discardsDamage, body: storedBytes)
            if let decoder, let coding {
                let decoded = DecodedBody(coded: body, decoder: decoder, coding: coding, url: request.url, limit: limit)
                try await decoded.start()
                body = WebResponse.Body(pull: { try await decoded.next() })
            }
        }
        if let id = entry.id { _ = store.recordHit(entryID: id, at: clock()) }
        return WebResponse(url: request.url, status: entry.status, headers: headers, source: source, age: age,
                           body: body)
    }

    /// The decoder of a stored body whose served `Content-Encoding` is `coding`
    /// (``ServedHeadCache/Head/coding``), when `request` takes content decoded.
    static func decoder(for request: HTTPRequest, coding: String?) -> ContentDecoder? {
        request.decodesContent ? coding.flatMap(ContentDecoder.init(coding:)) : nil
    }

    /// The stored body of `entry`: read at once when it fits in one chunk (one query, and the entry
    /// cannot be replaced under the caller), else chunk by chunk as the caller pulls it; checked
    /// either way (see ``serve(_:request:source:age:limit:context:discardsDamage:)``).
    ///
    /// - Parameter body: the body, when it was read and checked with the entry (in the same read).
    nonisolated(nonsending) func storedBody(
        _ entry: CacheEntry, url: URL, discardsDamage: Bool, body: Data? = nil
    ) async throws -> WebResponse.Body {
        guard let bodyID = entry.bodyID else { return WebResponse.Body(data: Data()) }
        if let body { return WebResponse.Body(data: body) }
        if entry.bodySize <= Int64(CacheStore.chunkSize) {
            let data = try await readStored(entry, url: url, discardsDamage: discardsDamage, streamed: false) {
                try store.bodyData(bodyID: bodyID)
            }
            return WebResponse.Body(data: data)
        }
        let reader = Mutex(store.bodyChunks(bodyID: bodyID))
        return WebResponse.Body(pull: { [self] in
            try await readStored(entry, url: url, discardsDamage: discardsDamage, streamed: true) {
                try reader.withLock { reader in try reader.next() }
            }
        })
    }

    /// Runs `read` on the store for the body of `entry`, turning a damaged body into the error of
    /// ``damage(of:url:cause:discarding:streamed:)`` and any other failure into a store error.
    func readStored<T>(
        _ entry: CacheEntry, url: URL, discardsDamage: Bool, streamed: Bool, _ read: () throws -> T
    ) async throws -> T {
        do {
            return try read()
        } catch let error as CacheStore.Error where error.code == .damagedBody {
            throw await damage(of: entry, url: url, cause: error, discarding: discardsDamage, streamed: streamed)
        } catch {
            let failure = Self.storedBodyError(entry, error)
            // Gone with a replaced entry before any of it was delivered: the load may read the store again.
            if !streamed, let error = error as? CacheStore.Error, error.code == .bodyMissing {
                throw StoredBodyGone(error: failure)
            }
            throw failure
        }
    }

    /// The error for a stored body of `entry` that could not be read for `error`, other than damage;
    /// it says so when the cache was closed under the read.
    static func storedBodyError(_ entry: CacheEntry, _ error: any Error) -> WebCacheError {
        let closed = (error as? CacheStore.Error)?.code == .closed
        return WebCacheError(
            .store, "The stored body of \(entry.url) could not be read" + (closed ? ": the cache was closed." : "."),
            cause: error)
    }

    /// The error for the damaged stored body of `entry`, after removing the body and the entries
    /// that use it from the store when `discarding` (a failure to remove it is logged).
    func damage(
        of entry: CacheEntry, url: URL, cause: CacheStore.Error, discarding: Bool, streamed: Bool
    ) async -> WebCacheError {
        if discarding, let bodyID = entry.bodyID {
            do {
                _ = try await store.discardBody(id: bodyID)
            } catch {
                logger.warning("The damaged stored copy of \(url.redactedForMessages) could not be removed: \(error)")
            }
        }
        var message = "The stored copy of \(url.redactedForMessages) is damaged: its body no longer matches the "
            + "checksums it was stored with."
        if streamed { message += " The bytes delivered before this error are not the whole stored response." }
        if !discarding { message += " " + CacheStore.Error.recoveryAdvice(forStoreAt: store.path) }
        return WebCacheError(.damaged, message, cause: cause)
    }

    /// Runs a store operation, turning its errors into ``WebCacheError``s that name what was being done.
    func storeCall<T: Sendable>(_ action: String, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw WebCacheError(.store, "The store failed to \(action).", cause: error)
        }
    }

    /// Stops background revalidations (RFC 5861 `stale-while-revalidate`) and waits for them.
    func shutdown() async {
        await revalidations.cancelAll()
    }

    // MARK: - Errors

    /// A transport failure as a ``WebCacheError`` naming the URL.
    static func networkError(_ error: any Error, url: URL) -> any Error {
        if error is CancellationError || error is WebCacheError { return error }
        if let transport = error as? TransportError {
            if transport.code == .bodyTooLarge || transport.code == .headerTooLarge {
                return WebCacheError(.tooLarge, transport.message, cause: transport)
            }
            if transport.code == .addressRefused {
                return WebCacheError(.forbidden, transport.message, cause: transport)
            }
            return WebCacheError(.network, transport.message, cause: transport)
        }
        return WebCacheError(.network, "The request for \(url.redactedForMessages) failed.", cause: error)
    }
}

/// What a validation knows: the stored variants, the one selected, and the conditional headers.
struct Validation: Sendable {
    var entries: [CacheEntry]
    var stored: [StoredResponse]
    var selected: Int
    var headers: HTTPHeaders
}
