import FoundationEssentials
import Synchronization

/// An answer read from the store that ``AnswerMemory`` keeps, with what decides how long it may be
/// served again without reading the store.
public protocol RememberedAnswer: AnyObject, Sendable {
    /// When the stored response stops being fresh, and its age meanwhile.
    var freshness: StoredAnswer.Freshness { get }
    /// The store's change count (``CacheStore/changeCount()``) taken before the answer was read.
    var changeCount: UInt64 { get }
    /// The bytes of its body.
    var bodySize: Int { get }
}

/// Fresh answers from the store kept in memory by key, as a browser keeps a memory cache in front
/// of its disk cache: one serves again while the store has not changed since it was read (its
/// ``RememberedAnswer/changeCount`` is still the store's) and its stored lifetime lasts. A commit to
/// the store makes a kept answer be read again at its next use, unless the caller tells the memory
/// that the commits since it was read left its entries as they were (``find(_:changeCount:now:unchangedSince:)``,
/// which the store tells of its own writer's commits).
///
/// The memory is bounded by ``capacity``, the least recently served answers going first; each counts
/// its body and ``slotOverhead``, so that answers without a body are bounded too. A `Note` may go
/// with a kept answer: something its user made from it and would otherwise make again (the
/// gateway's response for one age).
///
/// The loader keeps its fresh hits in one (``WebCache/Configuration-swift.struct/memoryCacheSize``);
/// a server built on the library keeps the answers it gets from ``WebCache/storedAnswer(for:policy:copyingBody:)``
/// in another, in the form it sends them. Its functions are inlinable, so that each use is
/// specialised for what it keeps.
public final class AnswerMemory<Answer: RememberedAnswer, Note: Sendable>: Sendable {
    /// A kept answer found fresh, its age now, and the note kept with it.
    public struct Found {
        /// The kept answer.
        public let answer: Answer
        /// Its age now, in seconds.
        public let age: TimeInterval
        /// What was noted with it (``note(_:for:answer:)``).
        public let note: Note?

        @usableFromInline
        init(answer: Answer, age: TimeInterval, note: Note?) {
            self.answer = answer
            self.age = age
            self.note = note
        }
    }

    @usableFromInline
    final class Slot {
        @usableFromInline let answer: Answer
        @usableFromInline var lastUse: UInt64
        @usableFromInline var note: Note?
        /// The latest change count at which the answer is known to be what the store holds.
        @usableFromInline var validAt: UInt64

        @inlinable
        init(answer: Answer, lastUse: UInt64) {
            self.answer = answer
            self.lastUse = lastUse
            self.validAt = answer.changeCount
        }
    }

    @usableFromInline
    struct State {
        @usableFromInline var slots: [String: Slot] = [:]
        @usableFromInline var bytes = 0
        @usableFromInline var uses: UInt64 = 0

        @inlinable
        init() {}
    }

    /// The most bytes kept at once, bodies and ``slotOverhead`` per answer.
    public let capacity: Int
    /// What an answer counts besides its body: its head and bookkeeping, about a kilobyte.
    public static var slotOverhead: Int { 1_024 }
    @usableFromInline let state = Mutex(State())

    /// Keeps at most `capacity` bytes; a body of more than an eighth of it is not kept.
    public init(capacity: Int) {
        self.capacity = capacity
    }

    /// Whether a body of `size` bytes may be kept.
    @inlinable
    public func admits(size: Int) -> Bool {
        size <= capacity / 8
    }

    /// The answer kept for `key` and its age at `now`, when it is what the store holds at its change
    /// count `changeCount` and is fresh at `now`; one that no longer is goes. An answer known good at
    /// an earlier count is still good when `unchangedSince` says that the commits since that count
    /// left its entries as they were (``CacheStore/entriesMayHaveChanged(url:since:until:)``); by
    /// default any change of the count ends it. One known good at a later count than `changeCount`
    /// (another caller's newer count) is not served to this caller, and stays.
    @inlinable
    public func find(
        _ key: String, changeCount: UInt64, now: Date,
        unchangedSince: (_ answer: Answer, _ count: UInt64) -> Bool = { _, _ in false }
    ) -> Found? {
        state.withLock { state in
            guard let slot = state.slots[key] else { return nil }
            if slot.validAt > changeCount { return nil }
            if slot.validAt < changeCount, unchangedSince(slot.answer, slot.validAt) { slot.validAt = changeCount }
            guard slot.validAt == changeCount, let age = slot.answer.freshness.age(at: now) else {
                state.bytes -= Self.cost(of: slot.answer)
                state.slots[key] = nil
                return nil
            }
            state.uses += 1
            slot.lastUse = state.uses
            return Found(answer: slot.answer, age: age, note: slot.note)
        }
    }

    /// Keeps `note` with `answer` for its next uses, unless `key` is no longer answered with it.
    @inlinable
    public func note(_ note: Note, for key: String, answer: Answer) {
        state.withLock { state in
            guard let slot = state.slots[key], slot.answer === answer else { return }
            slot.note = note
        }
    }

    /// What is kept for `key`, whatever the store's change count and the time.
    @inlinable
    public func answer(for key: String) -> Answer? {
        state.withLock { $0.slots[key]?.answer }
    }

    /// Keeps `answer` for `key`, in place of what was kept for it, letting the least recently served
    /// answers go while the bodies exceed ``capacity``; a body the memory does not admit is not kept.
    @inlinable
    public func keep(_ answer: Answer, for key: String) {
        guard admits(size: answer.bodySize) else { return }
        let capacity = capacity
        state.withLock { state in
            if let old = state.slots[key] { state.bytes -= Self.cost(of: old.answer) }
            state.uses += 1
            state.slots[key] = Slot(answer: answer, lastUse: state.uses)
            state.bytes += Self.cost(of: answer)
            guard state.bytes > capacity else { return }
            // Down to seven eighths, so that the next few answers kept do not each sort again.
            for (key, slot) in state.slots.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                guard state.bytes > capacity - capacity / 8 else { break }
                state.bytes -= Self.cost(of: slot.answer)
                state.slots[key] = nil
            }
        }
    }

    /// The bytes kept now, as ``capacity`` counts them.
    public var bytes: Int { state.withLock { $0.bytes } }

    @inlinable
    static func cost(of answer: Answer) -> Int {
        answer.bodySize + slotOverhead
    }
}
