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
    struct Kept: Sendable {
        /// The stored answer, for recording its hits.
        var answer: StoredAnswer
        /// Its freshness, worked out when it was kept.
        var freshness: StoredAnswer.Freshness
        /// The head the client gets, but for its `Age`.
        var head: ProxyHandler.ClientHead
        /// The body's bytes.
        var body: HeldBody
        /// The store's change count before the answer was read.
        var changeCount: UInt64
    }

    private struct Slot {
        var kept: Kept
        var lastUse: UInt64
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

    /// The kept answer for `target` with its head for `now` (its `Age` set), when the store's change
    /// count is still `changeCount` and the answer is fresh at `now`; one that no longer is goes.
    func answer(for target: String, changeCount: UInt64, now: Date) -> (kept: Kept, head: ProxyHandler.ClientHead)? {
        let found: (Kept, TimeInterval)? = state.withLock { state in
            guard let slot = state.slots[target] else { return nil }
            guard slot.kept.changeCount == changeCount, let age = slot.kept.freshness.age(at: now) else {
                state.bytes -= Self.cost(of: slot.kept)
                state.slots[target] = nil
                return nil
            }
            state.uses += 1
            state.slots[target]?.lastUse = state.uses
            return (slot.kept, age)
        }
        guard let (kept, age) = found else { return nil }
        var head = kept.head
        head.headers["Age"] = String(Int(max(0, age)))
        return (kept, head)
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
