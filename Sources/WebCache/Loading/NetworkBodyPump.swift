import CacheStore
import FoundationEssentials
import HTTPCore
import Transport

/// Streams a network response body to its caller and, when the response may be stored, into the
/// store at the same time, so a miss costs one pass over the bytes and flat memory.
///
/// The entry is saved in one transaction only after the last chunk has arrived: a transfer that
/// fails, is cut short, exceeds its size limit or is abandoned by its caller stores nothing (its
/// staged chunks are discarded, or collected by the store later if the process dies first).
actor NetworkBodyPump {
    private var iterator: Transport.ResponseBody.AsyncIterator?
    private var writer: BodyWriter?
    private let draft: StorageDraft?
    private let store: CacheStore
    private let url: URL
    private let limit: Int64?
    private let logger: Logger
    private let onFinish: @Sendable (InFlightFetches.Outcome) -> Void
    private let condition: CacheStore.SaveCondition?
    private var received: Int64 = 0
    private var storeFailure: (any Error)?
    private var finished = false

    /// - Parameters:
    ///   - draft: what to save once the body is complete, or `nil` when the response is not stored.
    ///   - onFinish: told once how the transfer ended (for coalesced followers).
    ///   - condition: asked when the entry is saved (``RequestContext/saveCondition``).
    init(
        body: Transport.ResponseBody, draft: StorageDraft?, store: CacheStore, url: URL, limit: Int64?,
        logger: Logger, condition: CacheStore.SaveCondition? = nil,
        onFinish: @escaping @Sendable (InFlightFetches.Outcome) -> Void
    ) {
        self.iterator = body.makeAsyncIterator()
        self.writer = draft == nil ? nil : store.makeBodyWriter()
        self.draft = draft
        self.store = store
        self.url = url
        self.limit = limit
        self.logger = logger
        self.onFinish = onFinish
        self.condition = condition
    }

    deinit {
        // Abandoned before the end: nothing was saved. Staged chunks are collected by the store.
        if !finished { onFinish(.notStored) }
    }

    /// The next chunk, or `nil` once the body is complete and, if storable, saved.
    /// - Throws: ``WebCacheError`` for a failed transfer, a body over the limit, or a failed save.
    func next() async throws -> Data? {
        guard !finished, var current = iterator else { return nil }
        let chunk: Data?
        do {
            chunk = try await current.next(isolation: self)
        } catch {
            await fail()
            throw Loader.networkError(error, url: url)
        }
        iterator = current
        guard let chunk else {
            try await complete()
            return nil
        }
        received += Int64(chunk.count)
        if let limit, received > limit {
            await fail()
            throw WebCacheError(
                .tooLarge,
                "The response from \(url.redactedForMessages) is larger than the limit of \(limit) bytes; "
                    + "nothing was stored.")
        }
        if var active = writer {
            // Out of the property while it writes: a writer held twice shares its chunk buffer, which
            // every append would then copy whole.
            writer = nil
            do {
                try await active.write(chunk)
                writer = active
            } catch {
                // Keep serving the caller; the failure is reported when the body ends.
                storeFailure = error
                writer = nil
                try? await active.discard()
            }
        }
        return chunk
    }

    private func complete() async throws {
        finished = true
        iterator = nil
        guard let draft else {
            onFinish(.notStored)
            return
        }
        guard let active = writer, storeFailure == nil else {
            onFinish(.notStored)
            throw notStored(storeFailure)
        }
        writer = nil
        do {
            if let part = draft.part {
                // A part is never handed to followers as a response: they ask for their own.
                onFinish(.notStored)
                guard received == part.length else {
                    try? await active.discard()
                    logger.warning("\(url.redactedForMessages): the 206 carried \(received) bytes, not the "
                                   + "\(part.length) its Content-Range states; it was not stored")
                    return
                }
                let saved = try await store.savePart(
                    draft.entry, first: part.first, completeLength: part.completeLength,
                    completeHeaders: part.completeHeaders, body: active, onlyIf: condition)
                logger.debug("stored bytes \(part.first)-\(part.first + received - 1) of \(url.redactedForMessages)"
                             + (saved.isPartial ? "" : ", which completes it"))
                return
            }
            let saved = try await store.save(draft.entry, body: active, onlyIf: condition)
            logger.debug("stored \(url.redactedForMessages) (\(received) bytes)")
            onFinish(.stored(saved, source: .network))
        } catch {
            onFinish(.notStored)
            if let refusal = error as? CacheStore.Error, refusal.code == .withdrawn {
                try? await active.discard()
                throw WebCacheError(.authorization,
                                    "The user signed out while the response from \(url.redactedForMessages) was "
                                        + "being received; it was not stored.", cause: refusal)
            }
            throw notStored(error)
        }
    }

    /// The error for a received response that the store did not take, for `cause`; it says so
    /// when the cache was closed meanwhile.
    private func notStored(_ cause: (any Error)?) -> WebCacheError {
        let closed = (cause as? CacheStore.Error)?.code == .closed
        return WebCacheError(
            .store,
            "The response from \(url.redactedForMessages) was received but "
                + (closed ? "the cache was closed before it could be stored." : "could not be stored."),
            cause: cause)
    }

    private func fail() async {
        finished = true
        iterator = nil
        if let active = writer {
            writer = nil
            try? await active.discard()
        }
        onFinish(.notStored)
    }
}

/// What a network response is stored as: an entry, and for a 206 the part of its representation
/// the body is (RFC 9111 §3.3).
struct StorageDraft: Sendable {
    /// A part of a partial entry: where its bytes go, and what the entry becomes once complete.
    struct Part: Sendable {
        /// The position of the body's first byte in the complete representation.
        var first: Int64
        /// The number of bytes the `Content-Range` states.
        var length: Int64
        /// The length of the complete representation.
        var completeLength: Int64
        /// The header fields of the complete entry: the 206's, without `Content-Range` and with the
        /// complete `Content-Length`.
        var completeHeaders: HTTPHeaders
    }

    /// The entry to save.
    var entry: CacheEntry
    /// For a 206, the part it is; `nil` for a complete response.
    var part: Part?
}
