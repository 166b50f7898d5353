import CacheStore
import FoundationEssentials
import HTTPCaching
import HTTPCore
import Transport

extension Loader {
    // MARK: - Partial entries (RFC 9111 §3.3, §3.4)

    /// Answers a GET for ranges from a stored partial entry, when one matches and no complete entry
    /// does; `nil` to load the request the usual way.
    ///
    /// The partial entry is used when it is fresh, or when the policy serves the store as it is;
    /// a stale one is revalidated first. Ranges its parts cover are served from them (206, one part
    /// or `multipart/byteranges` as from a complete entry; 416 when none starts before the end).
    /// Otherwise, for one range, the bytes it lacks (the whole range, to revalidate a stale entry)
    /// are asked of the origin with `If-Range` and the entry's strong tag: a 206 is stored as a
    /// part, combined with the others (into a complete entry once every byte is there), and the
    /// range is then served from the store; a 200 means the representation changed, and is served
    /// and stored as any response. Several ranges not all held go to the origin as they are asked.
    /// An entry whose parts went because the origin's validator changed gives way to the usual load.
    func loadFromParts(
        _ request: HTTPRequest, policy: CachePolicy, limit: Int64?, context: RequestContext
    ) async throws -> WebResponse? {
        guard request.method == .get, policy != .reloadIgnoringCacheData, let field = request.headers["Range"],
            let specs = RangeRequest.parse(field), specs.count <= RangeRequest.maximumRangeCount,
            let partial = try matchingPartial(request, context)
        else { return nil }
        let stored = partial.entry.storedResponse
        if let condition = request.headers["If-Range"], !RangeRequest.ifRangeHolds(condition, stored: stored) {
            return nil
        }
        let now = clock()
        let age = stored.currentAge(now: now)
        // The ranges a complete entry would send.
        let ranges = RangeRequest.servedRanges(of: specs, length: partial.completeLength).ranges
        guard !ranges.isEmpty else { return unsatisfiable(partial, request: request, age: age) }
        let usable: Bool
        switch policy {
        case .returnCacheDataDontLoad, .returnCacheDataElseLoad:
            usable = true
        default:
            var plain = request
            for name in ["Range", "If-Range"] { plain.headers.remove(name) }
            switch HTTPCachePolicy.decide(request: plain, variants: [stored], now: now) {
            case .fresh, .stale: usable = true
            case .validate, .miss: usable = false
            // only-if-cached, and the parts may not be used: the usual load answers 504.
            case .unsatisfiable: return nil
            }
        }
        let covers = ranges.map { EntryPart.cover($0.first...$0.last, with: partial.parts) }
        let held = covers.allSatisfy(\.missing.isEmpty)
        if usable, held {
            logger.debug("bytes \(ranges) of \(request.url.redactedForMessages) from stored parts")
            return try await serveParts(partial, ranges: ranges, covers: covers.map(\.pieces), request: request,
                                        source: stored.isFresh(now: now) ? .hit : .stale, age: age, limit: limit)
        }
        /// The stale parts in place of the origin's answer, when they hold every byte asked for and
        /// `stale-if-error` or the caller's offline limit allows it (RFC 5861 §4), as a complete
        /// entry stands in.
        func staleParts() async throws -> WebResponse? {
            let now = clock()
            guard held, HTTPCachePolicy.staleIfError(request: request, stored: stored, now: now,
                                                     callerLimit: policy.fallbackLimit)
            else { return nil }
            return try await serveParts(partial, ranges: ranges, covers: covers.map(\.pieces), request: request,
                                        source: .stale, age: stored.currentAge(now: now), limit: limit)
        }
        // Several ranges go to the origin as they were asked: when not all are held, the usual load
        // does it and tells what is held offline; when all are, the stale parts may stand in.
        guard ranges.count == 1 || held, let range = ranges.first, let cover = covers.first else { return nil }
        if case .returnCacheDataDontLoad = policy {
            throw WebCacheError(
                .notCached,
                "Only part of bytes \(range) of \(request.url.redactedForMessages) is in the store, and the policy "
                    + "forbids the network.")
        }
        let answer: WebResponse?
        do {
            if ranges.count > 1 {
                answer = try await fetch(request, validating: nil, context: context, limit: limit)
            } else {
                // What the parts lack, from its first byte to its last; the whole range when they must
                // be revalidated.
                let missing =
                    usable ? cover.missing[0].lowerBound...cover.missing[cover.missing.count - 1].upperBound
                    : range.first...range.last
                answer = try await completeParts(partial, missing: missing, range: range, request: request,
                                                 limit: limit, context: context)
            }
        } catch let error as WebCacheError where error.code == .network {
            guard let stale = try await staleParts() else { throw error }
            logger.info("serving stale parts of \(request.url.redactedForMessages): \(error.message)")
            return stale
        }
        if let answer, HTTPCachePolicy.isErrorStatus(answer.status), let stale = try await staleParts() {
            logger.info(
                "serving stale parts of \(request.url.redactedForMessages): the origin answered \(answer.status)")
            return stale
        }
        return answer
    }

    /// The stored partial entry that matches `request`'s Vary key, when no complete entry does.
    func matchingPartial(_ request: HTTPRequest, _ context: RequestContext) throws -> PartialEntry? {
        let key = request.url.cacheKey.absoluteString
        let partials: [PartialEntry]
        do {
            partials = try store.partialVariants(partition: context.partition, url: key)
        } catch {
            throw WebCacheError(.store, "The store could not be read for \(request.url.redactedForMessages).",
                                cause: error)
        }
        let stored = partials.map(\.entry.storedResponse)
        return HTTPCachePolicy.matchingVariants(stored, request: request.headers).first.map { partials[$0] }
    }

    /// Asks the origin for bytes `missing` of `partial`'s representation under `If-Range`, stores the
    /// answer, and serves `range` from the store when it is then held.
    private func completeParts(
        _ partial: PartialEntry, missing: ClosedRange<Int64>, range: ByteRange, request: HTTPRequest, limit: Int64?,
        context: RequestContext
    ) async throws -> WebResponse? {
        var outgoing = request
        outgoing.headers["Range"] = "bytes=\(missing.lowerBound)-\(missing.upperBound)"
        outgoing.headers.remove("If-Range")
        if let tag = partial.entry.etag { outgoing.headers["If-Range"] = tag }
        logger.debug(
            "asking for bytes \(missing.lowerBound)-\(missing.upperBound) of \(request.url.redactedForMessages)")
        let response = try await send(outgoing, context: context)
        guard response.head.status == 206,
            let draft = try? storableDraft(request: outgoing, response: response, context: context).get(),
            let part = draft.part
        else {
            if response.head.status == 206, missing != range.first...range.last {
                // Bytes other than those asked, which cannot be kept: the request goes as it was asked.
                for try await _ in response.body {}
                return nil
            }
            // A new representation (200), or another answer: passed on as it came.
            return networkResponse(response, to: outgoing, context: context, limit: limit, lead: nil)
        }
        var writer = store.makeBodyWriter()
        var received: Int64 = 0
        do {
            for try await chunk in response.body {
                received += Int64(chunk.count)
                guard received <= part.length else { break }
                try await writer.write(chunk)
            }
        } catch {
            try? await writer.discard()
            throw Loader.networkError(error, url: request.url)
        }
        guard received == part.length else {
            try? await writer.discard()
            throw WebCacheError(
                .network,
                "The 206 for \(request.url.redactedForMessages) carried \(received) bytes, not the \(part.length) "
                    + "its Content-Range states.")
        }
        let saved = try await storeCall("store bytes of \(request.url.redactedForMessages)") {
            try await store.savePart(draft.entry, first: part.first, completeLength: part.completeLength,
                                     completeHeaders: part.completeHeaders, body: writer, onlyIf: context.saveCondition)
        }
        if !saved.isPartial {
            logger.debug("\(request.url.redactedForMessages) is complete in the store")
            return try await serve(saved, request: request, source: .network, age: 0, limit: limit, context: context)
        }
        guard let now = try matchingPartial(request, context), now.entry.id == saved.id,
            case let cover = EntryPart.cover(range.first...range.last, with: now.parts), cover.missing.isEmpty
        else { return nil }
        return try await serveParts(now, ranges: [range], covers: [cover.pieces], request: request,
                                    source: .network, age: 0, limit: limit)
    }

    /// A 206 carrying `ranges` from the parts of `partial` (for each range, the pieces of
    /// ``EntryPart/cover(_:with:)`` in `covers`): one part, or several as `multipart/byteranges`.
    private func serveParts(
        _ partial: PartialEntry, ranges: [ByteRange], covers: [[(part: EntryPart, range: ClosedRange<Int64>)]],
        request: HTTPRequest, source: ResponseSource, age: TimeInterval, limit: Int64?
    ) async throws -> WebResponse {
        var headers = Self.storedHeaders(partial.entry.headers)
        headers.remove("Age")
        if age > 0 { headers["Age"] = String(Int(age)) }
        let pieces = Self.rangePieces(ranges, completeLength: partial.completeLength, headers: &headers) { index in
            covers[index].map { .span(bodyID: $0.part.bodyID, range: $0.range) }
        }
        let body = try await piecesBody(StoredPieces(store: store, pieces: pieces), entry: partial.entry,
                                        url: request.url, limit: limit, discardsDamage: true)
        if let id = partial.entry.id { _ = store.recordHit(entryID: id, at: clock()) }
        return WebResponse(url: request.url, status: 206, headers: headers, source: source, age: age, body: body)
    }

    /// 416 for a range that starts past the end of `partial`'s representation (RFC 9110 §15.5.17).
    private func unsatisfiable(_ partial: PartialEntry, request: HTTPRequest, age: TimeInterval) -> WebResponse {
        var headers = Self.storedHeaders(partial.entry.headers)
        for name in ["Content-Range", "Content-Length", "Content-Type", "Age"] { headers.remove(name) }
        headers.append(name: "Content-Range",
                       value: ContentRange(range: nil, completeLength: partial.completeLength).description)
        headers.append(name: "Content-Length", value: "0")
        return WebResponse(url: request.url, status: 416, headers: headers, source: .hit, age: age,
                           body: WebResponse.Body(data: Data()))
    }
}
