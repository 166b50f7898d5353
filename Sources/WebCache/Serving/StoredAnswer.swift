import CacheStore
import Foundation
import HTTPCore

/// A stored response that answers a request as it is stored, decided on the calling thread without
/// the network (see ``WebCache/storedAnswer(for:policy:copyingBody:)``): its head as the loader would
/// give it, and where its body is, for a server that copies the body into its own buffers.
public struct StoredAnswer: Sendable {
    /// Where the body of a stored answer comes from.
    public enum Body: Sendable, Equatable {
        /// No body to send: the answer to `HEAD`, or a response stored without one.
        case none
        /// Body `id` in the store, of `size` bytes. Up to ``CacheStore/chunkSize`` bytes it is read at
        /// once and checked before the head is sent (``CacheStore/copyBody(bodyID:into:)``); a
        /// larger one is streamed chunk by chunk (``CacheStore/bodyCopier(bodyID:)``).
        case stored(id: Int64, size: Int64)
        /// The body, of at most ``CacheStore/chunkSize`` bytes, already copied from the store and
        /// checked, in the read that found the entry (asked for with `copyingBody`).
        case copied(CopiedBody)
    }

    /// The absolute URL the request resolved to.
    public let url: URL
    /// The stored status code.
    public let status: Int
    /// The stored fields as the loader serves them: hop-by-hop fields and `Set-Cookie` removed,
    /// `Age` when above 0, `Content-Length` of the stored body, a weak `ETag` for a decoded copy.
    public let headers: HTTPHeaders
    /// ``ResponseSource/hit``, or ``ResponseSource/stale`` for a stale copy the cache-only policy serves.
    public let source: ResponseSource
    /// The current age in seconds (RFC 9111 §4.2.3).
    public let age: TimeInterval
    /// The body to send.
    public let body: Body
    /// The entry served, for recording the hit.
    let entry: CacheEntry
    /// Whether a body found damaged is removed from the store (not under the cache-only policy,
    /// which leaves damage for verify and salvage, as the loader does).
    let discardsDamage: Bool
}
