import CacheStore
import FoundationEssentials
import HTTPCaching
import HTTPCore

extension WebCache {
    /// The stored response that answers `request` as it is stored, decided at once on the calling
    /// thread: no suspension, no network, one indexed lookup. An HTTP server can then send the head
    /// and copy the body into its own buffers (``CacheStore/copyBody(bodyID:into:)``,
    /// ``CacheStore/bodyCopier(bodyID:)``) without going through ``load(_:policy:)``.
    ///
    /// It gives exactly what ``load(_:policy:)`` would serve from the store without asking the
    /// network: a `GET` or `HEAD` whose matching variant is fresh (or, under
    /// ``CachePolicy/returnCacheDataElseLoad`` and ``CachePolicy/returnCacheDataDontLoad``, any
    /// matching variant). Everything else is `nil`, for ``load(_:policy:)`` to answer: a miss, a
    /// stale entry, a `Range` request, content to be decoded on the way out, a body over
    /// ``WebRequest/maximumBodySize``, a URL that does not resolve, a store that cannot be read.
    ///
    /// With `copyingBody`, a body of at most ``CacheStore/chunkSize`` bytes is copied into memory of
    /// its own and checked in the same read as the entry (``StoredAnswer/Body/copied(_:)``), when the
    /// entry is the URL's only variant and fresh by its stored lifetime: one read of the store for
    /// the whole answer. A body found damaged or gone there is left for ``load(_:policy:)``: the
    /// answer is `nil`.
    ///
    /// The hit is not recorded yet: call ``recordHit(of:)`` once the answer is sent.
    public func storedAnswer(
        for request: WebRequest, policy: CachePolicy = .useProtocolCachePolicy, copyingBody: Bool = false
    ) -> StoredAnswer? {
        guard request.method == .get || request.method == .head, let url = try? resolve(request.url) else { return nil }
        return loader.storedAnswer(url, request: request, policy: policy, context: context, copyingBody: copyingBody)
    }

    /// Records that `answer` was served, as ``load(_:policy:)`` does for each hit.
    public func recordHit(of answer: StoredAnswer) {
        if let id = answer.entry.id { _ = store.recordHit(entryID: id, at: loader.clock()) }
    }

    /// The error to report when copying the body of `answer` failed with `error` after its head was
    /// sent; a damaged body is first removed from the store with the entries that use it (unless the
    /// policy forbade the network), so that the next request fetches it again, as ``load(_:policy:)``
    /// does when it finds a streamed body damaged.
    public func storedBodyFailed(_ answer: StoredAnswer, with error: any Error) async -> WebCacheError {
        guard let damage = error as? CacheStore.Error, damage.code == .damagedBody else {
            return Loader.storedBodyError(answer.entry, error)
        }
        return await loader.damage(of: answer.entry, url: answer.url, cause: damage, discarding: answer.discardsDamage,
                                   streamed: true)
    }
}

extension Loader {
    /// The stored answer to `request` for `url` (see ``WebCache/storedAnswer(for:policy:copyingBody:)``):
    /// the choices of ``load(_:request:policy:context:)`` for a stored response served as it is.
    func storedAnswer(
        _ url: URL, request: WebRequest, policy: CachePolicy, context: RequestContext, copyingBody: Bool
    ) -> StoredAnswer? {
        if store.configuration.readOnly, policy != .returnCacheDataDontLoad { return nil }
        var hop = HTTPRequest(method: request.method, url: url, headers: requestHeaders(request, to: url),
                              refusesPrivateAddresses: request.refusesPrivateAddresses)
        hop.decodesContent = request.decodesContent
        // Ranges are cut from the stored body by the loader.
        if request.method == .get, hop.headers.contains("Range") { return nil }
        let now = clock()
        let entries: [CacheEntry]
        let copied: CopiedBody?  // Freed unless it becomes the answer's body.
        if copyingBody && request.method == .get {
            guard let found = try? store.variants(
                partition: context.partition, method: .get, url: url.cacheKey.absoluteString,
                copyingBodyIfFreshAt: now, upTo: Int64(CacheStore.chunkSize))
            else { return nil }
            (entries, copied) = (found.entries, found.body.map(CopiedBody.init))
        } else {
            guard let found = try? lookupVariants(of: url.cacheKey, context: context) else { return nil }
            (entries, copied) = (found, nil)
        }
        let chosen: (entry: CacheEntry, source: ResponseSource, age: TimeInterval)
        var head: ServedHeadCache.Head?
        if policy.followsProtocol, let fresh = Self.freshAlone(entries, request: hop, now: now, heads: heads) {
            // A lone fresh variant, decided from its stored columns without parsing its directives.
            chosen = (entries[0], .hit, fresh.age)
            head = fresh.head
        } else {
            let stored = entries.map(\.storedResponse)
            guard let matching = HTTPCachePolicy.matchingVariants(stored, request: hop.headers).first else { return nil }
            switch policy {
            case .returnCacheDataElseLoad, .returnCacheDataDontLoad:
                // Fresh for reuse without a request (the stored column): `no-cache` makes a response stale at once.
                chosen = (entries[matching], entries[matching].isFresh(at: now) ? .hit : .stale,
                          stored[matching].currentAge(now: now))
            case .useProtocolCachePolicy, .offlineFallback:
                guard case .fresh(let index, let age) = HTTPCachePolicy.decide(request: hop, variants: stored, now: now),
                    !Self.mustNotServeDecoded(entries[index], stored[index], to: hop)
                else { return nil }
                chosen = (entries[index], .hit, age)
            case .reloadIgnoringCacheData:
                return nil
            }
        }
        let entry = chosen.entry
        let served = head ?? heads.head(of: entry)
        // Content stored coded, for a caller that takes it decoded, is decoded by the loader.
        if Self.decoder(for: hop, coding: served.coding) != nil { return nil }
        let headers = served.headers(age: chosen.age, contentLength: entry.servedContentLength)
        var body = StoredAnswer.Body.none
        if let bodyID = entry.bodyID, request.method != .head {
            if let limit = request.maximumBodySize, entry.bodySize > limit { return nil }
            // A copy is made only of an only variant, so it is of this entry.
            body = copied.map { .copied($0) } ?? .stored(id: bodyID, size: entry.bodySize)
        }
        return StoredAnswer(url: url, status: entry.status, headers: headers, source: chosen.source, age: chosen.age,
                            body: body, entry: entry, discardsDamage: policy != .returnCacheDataDontLoad)
    }
}
