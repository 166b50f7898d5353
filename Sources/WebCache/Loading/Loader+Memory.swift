import CacheStore
import FoundationEssentials
import HTTPCaching
import HTTPCore
import Synchronization

/// A fresh hit the loader keeps in memory (``Loader/memory``): what ``Loader/serve`` answered for
/// it, but for its `Age`, and to whom.
final class MemoryHit: RememberedAnswer {
    /// The partition it was read from.
    let partition: String
    /// Whether it answered a caller that takes content decoded.
    let decodesContent: Bool
    let status: Int
    /// The entry's head, which gives the fields served with `Age`
    /// (``ServedHeadCache/Head/headers(age:contentLength:)``).
    let head: ServedHeadCache.Head
    /// The stored body's `Content-Length`, which ``Loader/serve`` sets after `Age`.
    let contentLength: String?
    let body: Data
    /// The entry served, for recording its hits.
    let entryID: Int64?
    let freshness: StoredAnswer.Freshness
    let changeCount: UInt64

    var bodySize: Int { body.count }

    init(
        entry: CacheEntry, head: ServedHeadCache.Head, body: Data, changeCount: UInt64, partition: String,
        decodesContent: Bool
    ) {
        self.partition = partition
        self.decodesContent = decodesContent
        status = entry.status
        self.head = head
        contentLength = entry.servedContentLength
        self.body = body
        entryID = entry.id
        freshness = StoredAnswer.Freshness(
            freshUntil: entry.freshUntil, responseTime: entry.responseTime, ageWhenReceived: head.initialAge)
        self.changeCount = changeCount
    }
}

extension Loader {
    /// Where a request's answer would be kept in ``memory``, and the store's change count taken now.
    struct MemoryPlace {
        /// The URL's key in the store; a kept answer serves only the partition and coding it was read for.
        let key: String
        let changeCount: UInt64
    }

    /// The request fields that can change what a fresh lone variant without `Vary` answers to a
    /// `GET`, besides its URL, the partition and whether the caller takes content decoded: requests
    /// with any of them go to the store each time.
    static let memoryDecidingFields = [
        "Range", "If-Range", "If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since",
        "Cache-Control", "Pragma",
    ]

    /// Where `request` for `key` is kept in ``memory`` when the memory is on and the request is a
    /// `GET` whose fresh answer depends on nothing else (``memoryDecidingFields``), with the store's
    /// change count taken before the store is read, so that what is kept is never newer than its count.
    func memoryPlace(for request: HTTPRequest, key: URL) -> MemoryPlace? {
        guard memory != nil, request.method == .get,
            !Self.memoryDecidingFields.contains(where: { request.headers.contains($0) }),
            let changeCount = try? store.changeCount()
        else { return nil }
        return MemoryPlace(key: key.absoluteString, changeCount: changeCount)
    }

    /// The kept answer for `request` at `place`, served as ``serve`` serves the entry it was read
    /// from, and its hit recorded; `nil` when none is kept, the store changed, it is no longer fresh
    /// at `now`, it was read for another partition or coding, or its body is over `limit` (the store
    /// then says so).
    func memoryAnswer(
        at place: MemoryPlace, request: HTTPRequest, context: RequestContext, now: Date, limit: Int64?
    ) -> WebResponse? {
        let found = memory?.find(place.key, changeCount: place.changeCount, now: now) { _, since in
            !store.entriesMayHaveChanged(url: place.key, since: since, until: place.changeCount)
        }
        guard let found,
            found.answer.partition == context.partition, found.answer.decodesContent == request.decodesContent,
            limit.map({ Int64(found.answer.body.count) <= $0 }) ?? true
        else { return nil }
        let hit = found.answer
        let headers = hit.head.headers(age: found.age, contentLength: hit.contentLength)
        if let id = hit.entryID { _ = store.recordHit(entryID: id, at: clock()) }
        memoryHits.add(1, ordering: .relaxed)
        logger.debug("hit \(request.url.redactedForMessages) (memory)")
        return WebResponse(url: request.url, status: hit.status, headers: headers, source: .hit, age: found.age,
                           body: WebResponse.Body(data: hit.body))
    }

    /// Keeps `response`, served from `entry` with `head` and its `body` read at once, at `place` when
    /// it answers every request that reaches the place alike: a `200` from the store as the entry
    /// holds it (not decoded as served), without `Vary`.
    func remember(
        _ response: WebResponse, entry: CacheEntry, head: ServedHeadCache.Head, body: Data, at place: MemoryPlace,
        request: HTTPRequest, context: RequestContext
    ) {
        guard let memory, response.source == .hit, entry.status == 200, !entry.variesByRequest,
            Self.decoder(for: request, coding: head.coding) == nil
        else { return }
        let hit = MemoryHit(entry: entry, head: head, body: body, changeCount: place.changeCount,
                            partition: context.partition, decodesContent: request.decodesContent)
        memory.keep(hit, for: place.key)
    }
}
