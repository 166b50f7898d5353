import Foundation
import HTTPCore
import Synchronization
import WebCache

/// Fresh answers from the store kept in memory, head and body, as Varnish keeps its objects: a hit
/// on one reads nothing from the store but its change count (``CacheStore/changeCount()``), and its
/// body goes to the client from this memory without a copy.
///
/// Only what the store would answer the same way to any plain request is kept: a fresh `200`
/// whose response has no `Vary` field and is stored as the origin sent it, for a `GET` without a
/// body, conditions, ranges, cache directives, credentials or a `Via` (``isPlain(_:)``); anything
/// else goes to the store each time. A kept answer serves while the store has not changed since it
/// was read and its stored lifetime lasts; its `Age` is computed for each request. Any commit to the
/// store, by this process or another, makes every kept answer be read again on its next request.
///
/// The bodies' bytes were checked when they were read from the store, as every read checks them;
/// the memory is bounded by ``capacity``, the least recently served going first, each answer
/// counting its body and ``slotOverhead`` for its head, so that empty bodies are bounded too.
final class HotAnswers: Sendable {
    /// One kept answer.
    final class Kept: Sendable {
        /// The stored answer, for recording its hits.
        let answer: StoredAnswer
        /// Its freshness, worked out when it was kept.
        let freshness: StoredAnswer.Freshness
        /// The head the client gets, but for its `Age`.
        let head: ProxyHandler.ClientHead
        /// The body's bytes.
        let body: HeldBody
        /// The store's change count before the answer was read.
        let changeCount: UInt64
        /// The URL the answer is stored under, as the access log names it.
        let url: String

        init(answer: StoredAnswer, freshness: StoredAnswer.Freshness, head: ProxyHandler.ClientHead, body: HeldBody,
             changeCount: UInt64) {
            self.answer = answer
            self.freshness = freshness
            self.head = head
            self.body = body
            self.changeCount = changeCount
            url = answer.url.absoluteString
        }
    }

    /// A kept answer ready to send at `age` (whole seconds): its head and body as one response of
    /// the HTTP server, which any number of connections may send at once. The head differs from one
    /// second to the next only in its `Age`, so a hit within the same second sends the same one.
    struct Ready: Sendable {
        var kept: Kept
        var age: Int
        /// The response made for this `age`, when one was (``prepared(_:age:for:kept:)``).
        var response: PreparedResponse?
    }

    private final class Slot {
        let kept: Kept
        var lastUse: UInt64
        /// The last response made for the answer, and the age it gives.
        var response: (age: Int, response: PreparedResponse)?

        init(kept: Kept, lastUse: UInt64) {
            self.kept = kept
            self.lastUse = lastUse
        }
    }

    private struct State {
        var slots: [String: Slot] = [:]
        var bytes = 0
        var uses: UInt64 = 0
    }

    /// The most bytes kept at once, bodies and ``slotOverhead`` per answer.
    let capacity: Int
    /// What an answer counts besides its body: its head and bookkeeping, about a kilobyte.
    static let slotOverhead = 1_024
    private let state = Mutex(State())

    /// Keeps at most `capacity` bytes; a body of more than an eighth of it is not kept.
    init(capacity: Int) {
        self.capacity = capacity
    }

    /// The request fields that can change what the store answers to a `GET`, besides its URL.
    private static let decidingFields = [
        "Range", "If-Match", "If-None-Match", "If-Modified-Since", "If-Unmodified-Since", "If-Range",
        "Cache-Control", "Pragma", "Authorization", "Via",
    ]

    /// Whether `request` is a `GET` whose answer from the store depends on its target alone.
    static func isPlain(_ request: ConnectionRequest) -> Bool {
        request.method == .get && request.bodyStream == nil
            && !decidingFields.contains(where: { request.headers.contains($0) })
    }

    /// The kept answer for `target` at its age at `now`, with the response made for that age if
    /// there is one, when the store's change count is still `changeCount` and the answer is fresh at
    /// `now`; one that no longer is goes.
    func answer(for target: String, changeCount: UInt64, now: Date) -> Ready? {
        state.withLock { state in
            guard let slot = state.slots[target] else { return nil }
            guard slot.kept.changeCount == changeCount, let age = slot.kept.freshness.age(at: now) else {
                state.bytes -= Self.cost(of: slot.kept)
                state.slots[target] = nil
                return nil
            }
            state.uses += 1
            slot.lastUse = state.uses
            let seconds = Int(max(0, age))
            let response = slot.response.flatMap { $0.age == seconds ? $0.response : nil }
            return Ready(kept: slot.kept, age: seconds, response: response)
        }
    }

    /// Notes `response`, made for `kept` at `age`, for the next hits on `target` of the same age,
    /// unless `target` is no longer answered with `kept`.
    func prepared(_ response: PreparedResponse, age: Int, for target: String, kept: Kept) {
        state.withLock { state in
            guard let slot = state.slots[target], slot.kept === kept else { return }
            slot.response = (age, response)
        }
    }

    /// What is kept for `target`, whatever the store's change count and the time.
    func kept(for target: String) -> Kept? {
        state.withLock { $0.slots[target]?.kept }
    }

    /// Whether a body of `size` bytes may be kept.
    func admits(size: Int) -> Bool {
        size <= capacity / 8
    }

    /// Keeps `kept` for `target`, in place of what was kept for it, letting the least recently served
    /// answers go while the bodies exceed ``capacity``.
    func keep(_ kept: Kept, for target: String) {
        guard admits(size: kept.body.count) else { return }
        state.withLock { state in
            if let old = state.slots[target] { state.bytes -= Self.cost(of: old.kept) }
            state.uses += 1
            state.slots[target] = Slot(kept: kept, lastUse: state.uses)
            state.bytes += Self.cost(of: kept)
            guard state.bytes > capacity else { return }
            // Down to seven eighths, so that the next few answers kept do not each sort again.
            for (key, slot) in state.slots.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                guard state.bytes > capacity - capacity / 8 else { break }
                state.bytes -= Self.cost(of: slot.kept)
                state.slots[key] = nil
            }
        }
    }

    /// The bytes kept now, as ``capacity`` counts them.
    var bytes: Int { state.withLock { $0.bytes } }

    private static func cost(of kept: Kept) -> Int {
        kept.body.count + slotOverhead
    }
}

/// A body's bytes in `malloc` memory of their own, freed when the last holder lets them go.
final class HeldBody: Sendable {
    /// The address, as a number (a pointer is not `Sendable`).
    private let address: UInt
    /// The size in bytes.
    let count: Int

    /// Owns `count` bytes at `memory`, which came from `malloc`.
    init(taking memory: UnsafeMutableRawPointer?, count: Int) {
        address = UInt(bitPattern: memory)
        self.count = count
    }

    /// The start of the bytes; valid while this body is held.
    var start: UnsafeMutableRawPointer? { UnsafeMutableRawPointer(bitPattern: address) }

    deinit {
        free(UnsafeMutableRawPointer(bitPattern: address))
    }
}
