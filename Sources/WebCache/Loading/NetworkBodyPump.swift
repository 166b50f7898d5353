import CacheStore
import Foundation
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
    private let draft: CacheEntry?
    private let store: CacheStore
    private let url: URL
    private let limit: Int64?
    private let logger: Logger
    private let onFinish: @Sendable (InFlightFetches.Outcome) -> Void
    private var received: Int64 = 0
    private var storeFailure: (any Error)?
    private var finished = false

    /// - Parameters:
    ///   - draft: the entry to save once the body is complete, or `nil` when the response is not stored.
    ///   - onFinish: told once how the transfer ended (for coalesced followers).
    init(
        body: Transport.ResponseBody, draft: CacheEntry?, store: CacheStore, url: URL, limit: Int64?,
        logger: Logger, onFinish: @escaping @Sendable (InFlightFetches.Outcome) -> Void
    ) {
        self.iterator = body.makeAsyncIterator()
        self.writer = draft == nil ? nil : store.makeBodyWriter()
        self.draft = draft
        self.store = store
        self.url = url
        self.limit = limit
        self.logger = logger
        self.onFinish = onFinish
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
            throw WebCacheError(.store,
                                "The response from \(url.redactedForMessages) was received but could not be stored.",
                                cause: storeFailure)
        }
        writer = nil
        do {
            let saved = try await store.save(draft, body: active)
            logger.debug("stored \(url.redactedForMessages) (\(received) bytes)")
            onFinish(.stored(saved, source: .network))
        } catch {
            onFinish(.notStored)
            throw WebCacheError(.store,
                                "The response from \(url.redactedForMessages) was received but could not be stored.",
                                cause: error)
        }
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
