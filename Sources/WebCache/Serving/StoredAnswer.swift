import CacheStore
import FoundationEssentials
import HTTPCaching
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

extension StoredAnswer {
    /// When a stored answer stops being fresh and how old it is meanwhile, worked out once, for a
    /// server that keeps the answer and serves it again (RFC 9111 §4.2.3).
    public struct Freshness: Sendable {
        /// The instant from which the stored response is no longer fresh by its stored lifetime.
        public var freshUntil: Date
        /// When the response was received.
        public var responseTime: Date
        /// Its age when it was received (`corrected_initial_age`).
        public var ageWhenReceived: TimeInterval

        /// Freshness that ends at `freshUntil`, for a response received at `responseTime` already
        /// `ageWhenReceived` seconds old.
        public init(freshUntil: Date, responseTime: Date, ageWhenReceived: TimeInterval) {
            self.freshUntil = freshUntil
            self.responseTime = responseTime
            self.ageWhenReceived = ageWhenReceived
        }

        /// The age at `now` while the response is still fresh then, as the loader decides a lone fresh
        /// variant; `nil` once it is not (or when the clock reads earlier than its receipt).
        public func age(at now: Date) -> TimeInterval? {
            guard freshUntil > now, now >= responseTime else { return nil }
            return ageWhenReceived + now.timeIntervalSince(responseTime)
        }
    }

    /// The stored response's freshness, for serving the answer again later.
    public var freshness: Freshness {
        Freshness(
            freshUntil: entry.freshUntil, responseTime: entry.responseTime,
            ageWhenReceived: StoredResponse.correctedInitialAge(
                headers: entry.headers, requestTime: entry.requestTime, responseTime: entry.responseTime))
    }

    /// Whether the same stored response answers every request for its URL, whatever else the request
    /// holds: it has no `Vary` field, and is stored as the origin sent it (not decoded).
    public var answersEveryRequest: Bool {
        !entry.variesByRequest && entry.decodedFrom == nil
    }
}
