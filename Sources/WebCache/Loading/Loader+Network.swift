import CacheStore
import FoundationEssentials
import HTTPCaching
import HTTPCore
import Transport

extension Loader {
    // MARK: - Fetching

    /// Fetches `request` from the network (conditionally when `validation` is given), coalescing it
    /// with identical fetches in flight, and stores the response when RFC 9111 allows it.
    func fetch(
        _ request: HTTPRequest, validating validation: Validation?, context: RequestContext, limit: Int64?
    ) async throws -> WebResponse {
        let key = coalescingKey(request, context: context)
        switch fetches.join(key) {
        case .follow(let flight):
            var validation = validation
            if case .stored(let entry, let source) = await flight.wait() {
                logger.debug("shared transfer \(request.url.redactedForMessages)")
                let age = source == .network ? 0 : entry.storedResponse.currentAge(now: clock())
                do {
                    return try await serve(entry, request: request, source: source, age: age, limit: limit,
                                           context: context)
                } catch let error as WebCacheError where error.code == .damaged {
                    logger.warning("\(error.message) Fetching it again.")
                    validation = nil
                }
            }
            return try await fetchUncoalesced(request, validating: validation, context: context, limit: limit,
                                              lead: nil)
        case .lead(let lead):
            do {
                return try await fetchUncoalesced(request, validating: validation, context: context, limit: limit,
                                                  lead: lead)
            } catch {
                lead.resolve(.notStored)
                throw error
            }
        }
    }

    /// Two requests share a transfer when partition, method, URL and every header field agree
    /// (names in any case, fields in any order). Its bytes are copied into a string made as long as
    /// the key: built from interpolated lines, sorted and joined, it cost several thousand
    /// instructions a request (a page is asked with an `Accept` field of about 150 bytes).
    private func coalescingKey(_ request: HTTPRequest, context: RequestContext) -> InFlightFetches.Key {
        let url = request.url.cacheKey.absoluteString
        var fields = request.headers.fields
        if fields.count > 1 { fields.sort(by: Self.precedesInKey) }
        var parts = [context.partition, request.method.rawValue, url]
        for field in fields { parts += [field.name, field.value] }
        let length = parts.reduce(parts.count - 1) { $0 + $1.utf8.count }
        let text = String(unsafeUninitializedCapacity: length) { buffer in
            var written = 0
            for (index, var part) in parts.enumerated() {
                // A field's name follows a line break and is lowercased; its value follows a colon.
                let isName = index >= 3 && index % 2 == 1
                if index > 0 {
                    buffer[written] = index >= 3 && !isName ? UInt8(ascii: ":") : UInt8(ascii: "\n")
                    written += 1
                }
                part.withUTF8 { bytes in
                    let target = UnsafeMutableBufferPointer(rebasing: buffer[written..<(written + bytes.count)])
                    _ = target.initialize(from: bytes)
                    if isName {
                        for offset in target.indices { target[offset] = asciiLower(target[offset]) }
                    }
                    written += bytes.count
                }
            }
            return written
        }
        return InFlightFetches.Key(text)
    }

    /// The order of fields in a coalescing key: by name, whatever its case, then by value.
    private static func precedesInKey(_ lhs: HTTPField, _ rhs: HTTPField) -> Bool {
        var left = lhs.name, right = rhs.name
        let order = left.withUTF8 { left in
            right.withUTF8 { right in
                for (a, b) in zip(left, right) where asciiLower(a) != asciiLower(b) {
                    return asciiLower(a) < asciiLower(b) ? -1 : 1
                }
                return left.count - right.count
            }
        }
        return order != 0 ? order < 0 : lhs.value < rhs.value
    }

    private func fetchUncoalesced(
        _ request: HTTPRequest, validating validation: Validation?, context: RequestContext, limit: Int64?,
        lead: InFlightFetches.Lead?
    ) async throws -> WebResponse {
        var outgoing = request
        if let validation {
            for field in validation.headers {
                outgoing.headers[field.name] = field.value
            }
        }
        let response = try await send(outgoing, context: context)
        let head = response.head

        if let validation, head.status == 304 {
            do {
                if let revalidated = try await freshen(validation, with: response, request: request, limit: limit,
                                                       context: context)
                {
                    lead?.resolve(.stored(revalidated.entry, source: .revalidated))
                    return revalidated.response
                }
                // RFC 9111 §4.3.3: a 304 that matches nothing stored cannot be used; ask again unconditionally.
                logger.debug("304 matched no stored response for \(request.url.redactedForMessages); refetching")
            } catch let error as WebCacheError where error.code == .damaged {
                // The 304 confirms a copy whose body is no longer what was stored.
                logger.warning("\(error.message) Fetching it again.")
            }
            return try await fetchUncoalesced(request, validating: nil, context: context, limit: limit, lead: lead)
        }

        if request.method == .head, head.status == 200 {
            try await applyHead(response, request: request, context: context)
        }
        return networkResponse(response, to: outgoing, context: context, limit: limit, lead: lead)
    }

    /// Updates or removes the stored GET responses a 200 to HEAD could have been chosen for (RFC 9111
    /// §4.3.5): those it confirms (``HTTPCachePolicy/headConfirms(_:head:)``) take its fields (§3.2)
    /// and its times, as after a 304; when it confirms none of them, the URL's stored responses are
    /// invalidated, as they no longer describe what the origin holds (§4.4: "remove ... or mark them
    /// as invalid").
    private func applyHead(_ response: TransportResponse, request: HTTPRequest, context: RequestContext) async throws {
        let entries = try lookupVariants(of: request.url.cacheKey, context: context)
        let stored = entries.map(\.storedResponse)
        let matching = HTTPCachePolicy.matchingVariants(stored, request: request.headers)
        guard !matching.isEmpty else { return }
        var updates: [MetadataUpdate] = []
        for index in matching where HTTPCachePolicy.headConfirms(stored[index], head: response.head) {
            guard let id = entries[index].id else { continue }
            let freshened = stored[index].freshened(
                with: response.head, requestTime: response.requestTime, responseTime: response.responseTime)
            updates.append(MetadataUpdate(entryID: id, freshened: freshened))
        }
        if updates.isEmpty {
            _ = try await storeCall("invalidate \(request.url.redactedForMessages) after a HEAD") {
                try await store.invalidate(url: request.url.cacheKey.absoluteString, partition: context.partition)
            }
            logger.debug("HEAD shows \(request.url.redactedForMessages) changed; its stored responses went")
        } else {
            _ = try await storeCall("update \(request.url.redactedForMessages) after a HEAD") {
                try await store.updateMetadata(updates)
            }
            logger.debug("HEAD freshened \(request.url.redactedForMessages)")
        }
    }

    /// The response for a network answer to `request` (as sent): its body streams to the caller and,
    /// when RFC 9111 allows, into the store at once (``NetworkBodyPump``).
    func networkResponse(
        _ response: TransportResponse, to request: HTTPRequest, context: RequestContext, limit: Int64?,
        lead: InFlightFetches.Lead?
    ) -> WebResponse {
        let decision = storableDraft(request: request, response: response, context: context)
        let draft = try? decision.get()
        let pump = NetworkBodyPump(
            body: response.body, draft: draft, store: store, url: request.url, limit: limit, logger: logger,
            condition: context.saveCondition, onFinish: { outcome in lead?.resolve(outcome) }
        )
        var served = WebResponse(url: request.url, status: response.head.status,
                                 headers: Self.servedHeaders(of: response), source: .network,
                                 body: WebResponse.Body(pull: { try await pump.next() }, network: response.body))
        served.remoteAddress = response.remoteAddress
        served.httpVersion = response.httpVersion
        if case .failure(let refusal) = decision {
            logger.debug("not storing \(request.url.redactedForMessages): \(refusal.reason)")
            served.notStoredReason = refusal.reason
        }
        return served
    }

    /// Why a network response is not stored.
    struct NotStored: Error {
        /// A short phrase, such as "response has no-store".
        var reason: String
    }

    /// What to save for a network response, or why it must not be stored: an entry, and for a 206
    /// that may be kept (``HTTPCachePolicy/storedPart(of:)``) the part it is.
    func storableDraft(
        request: HTTPRequest, response: TransportResponse, context: RequestContext
    ) -> Result<StorageDraft, NotStored> {
        guard request.method == .get else {
            return .failure(NotStored(reason: CacheStorability.Reason.methodNotCacheable.rawValue))
        }
        // Conditional fields this loader added are not part of the request the entry answers.
        var plain = request
        for name in ["If-None-Match", "If-Modified-Since"] { plain.headers.remove(name) }
        // A response without a date gets the time it was received, which a cache must record with
        // it (RFC 9110 §6.6.1): served again later, it tells how old it is. Added first, so that
        // its freshness is worked out from the fields it is stored with.
        var head = response.head
        if !head.headers.contains("Date") {
            head.headers.append(name: "Date", value: HTTPDate.format(response.responseTime))
        }
        // Made first, so that the response's directives are read once: the stored response holds them.
        let stored = StoredResponse(request: plain, response: head,
                                    requestTime: response.requestTime, responseTime: response.responseTime)
        let storability = HTTPCachePolicy.storability(
            request: plain, response: head, directives: stored?.cacheControl,
            credentialsArePartitioned: context.isPartitioned)
        guard case .storable = storability, let stored else {
            let reason = if case .notStorable(let reason) = storability { reason.rawValue } else {
                "the response cannot be stored"
            }
            return .failure(NotStored(reason: reason))
        }
        let key = request.url.cacheKey
        // A server error says the origin failed, not what the resource is: it may stand for the
        // response when nothing is stored, but never replaces one that is (RFC 9111 §4.3.3 lets a
        // cache treat it as no answer), so an origin's bad minute does not cost the offline copy.
        if response.head.status >= 500,
            (try? store.variants(partition: context.partition, method: .get, url: key.absoluteString))?.isEmpty == false
        {
            return .failure(NotStored(reason: "a \(response.head.status) does not replace the stored response"))
        }
        let headers = Self.storedHeaders(head.headers)
        let entry = CacheEntry(
            partition: context.partition, method: .get, url: key.absoluteString,
            varyKey: stored.varyKey, status: response.head.status, headers: headers,
            requestTime: response.requestTime, responseTime: response.responseTime,
            freshUntil: stored.freshUntil, staleUntil: stored.staleUntil, decodedFrom: response.decodedContentCoding
        )
        guard response.head.status == 206 else { return .success(StorageDraft(entry: entry, part: nil)) }
        guard response.decodedContentCoding == nil, let contentRange = HTTPCachePolicy.storedPart(of: response.head),
            let range = contentRange.range, let completeLength = contentRange.completeLength
        else { return .failure(NotStored(reason: CacheStorability.Reason.partialContent.rawValue)) }
        let complete = PartialEntry.completeHeaders(headers, completeLength: completeLength)
        return .success(StorageDraft(entry: entry, part: .init(first: range.first, length: range.length,
                                                               completeLength: completeLength,
                                                               completeHeaders: complete)))
    }

    /// The fields a network response is served with: as received, with a strong `ETag` made weak
    /// when the transport decoded the content, as those bytes are not the ones the tag names.
    static func servedHeaders(of response: TransportResponse) -> HTTPHeaders {
        var headers = response.head.headers
        if response.decodedContentCoding != nil { headers.weakenEntityTag() }
        return headers
    }

    /// The fields kept with a stored response: all but the hop-by-hop fields, which describe the
    /// connection that brought it (RFC 9111 §3.1, ``HopByHopFields``), and `Set-Cookie` (and the old
    /// `Set-Cookie2`), as a browser's disk cache keeps them. The caller of the network response sees
    /// them, and a session's jar has taken them; in the store file they would keep session
    /// identifiers the user never asked to keep, and a stored response served again (by the gateway,
    /// to another client) would set one client's cookie in another.
    static func storedHeaders(_ headers: HTTPHeaders) -> HTTPHeaders {
        var kept = HopByHopFields.removed(from: headers)
        kept.remove("Set-Cookie")
        kept.remove("Set-Cookie2")
        return kept
    }

    /// Applies a 304 to the stored responses it validates (RFC 9111 §4.3.4) and serves the selected one.
    ///
    /// The selected response is served before the new metadata is written, so that a 304 never makes
    /// a damaged copy fresh: a body read at once is checked first, and throws when damaged; a streamed
    /// body found damaged at its end is removed with its entries, metadata and all.
    /// - Throws: ``WebCacheError`` with code ``WebCacheError/Code/damaged`` when the body read at once is damaged.
    private func freshen(
        _ validation: Validation, with response: TransportResponse, request: HTTPRequest, limit: Int64?,
        context: RequestContext
    ) async throws -> (response: WebResponse, entry: CacheEntry)? {
        var indices = HTTPCachePolicy.variantsToFreshen(validation.stored, notModified: response.head)
        if indices.isEmpty, Self.validatesOnlySelected(validation, notModified: response.head) {
            indices = [validation.selected]
        }
        guard let first = indices.first else { return nil }
        var updates: [MetadataUpdate] = []
        var served: (CacheEntry, StoredResponse)?
        for index in indices {
            guard let id = validation.entries[index].id else { continue }
            let freshened = validation.stored[index].freshened(
                with: response.head, requestTime: response.requestTime, responseTime: response.responseTime)
            updates.append(MetadataUpdate(entryID: id, freshened: freshened))
            if index == first {
                var entry = validation.entries[index]
                entry.headers = freshened.headers
                entry.requestTime = freshened.requestTime
                entry.responseTime = freshened.responseTime
                entry.freshUntil = freshened.freshUntil
                entry.staleUntil = freshened.staleUntil
                served = (entry, freshened)
            }
        }
        guard let (entry, freshened) = served else { return nil }
        var webResponse = try await serve(entry, request: request, source: .revalidated,
                                          age: freshened.currentAge(now: clock()), limit: limit, context: context)
        webResponse.remoteAddress = response.remoteAddress
        webResponse.httpVersion = response.httpVersion
        _ = try await storeCall("update \(request.url.redactedForMessages) after a 304") {
            try await store.updateMetadata(updates)
        }
        logger.debug("revalidated \(request.url.redactedForMessages)")
        return (webResponse, entry)
    }

    /// Whether a 304 without any validator answers the selected response alone: the conditional
    /// request named no more than one entity tag. Origins often leave `ETag` and `Last-Modified` out of
    /// a 304; RFC 9111 §4.3.4 then selects nothing when the stored response has a validator, which
    /// would cost a second, unconditional request although the 304 can only be about the one
    /// response that was asked about.
    static func validatesOnlySelected(_ validation: Validation, notModified: HTTPResponseHead) -> Bool {
        guard !notModified.headers.contains("ETag"), !notModified.headers.contains("Last-Modified") else {
            return false
        }
        return validation.headers.listValues(for: "If-None-Match").count <= 1
    }

    // MARK: - Sending

    /// Sends one request through the transport, with the session's credentials, re-authenticating
    /// once when the session turns out to have expired.
    func send(_ request: HTTPRequest, context: RequestContext) async throws -> TransportResponse {
        try Task.checkCancellation()
        logger.trace("\(request.method.rawValue) \(request.url.redactedForMessages)")
        do {
            return try await context.session.send(request, through: transport, logger: logger)
        } catch {
            throw Loader.networkError(error, url: request.url)
        }
    }
}
