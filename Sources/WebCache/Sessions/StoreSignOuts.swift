import CacheStore
import Synchronization

/// The sign-outs of the signed-in user's partition as the store counts them
/// (``CacheStore/signOutCount(partition:)``), for every process that shares the store: a `logout` run
/// by another process ends this cache's session too.
final class StoreSignOuts: Sendable {
    let store: CacheStore
    let partition: String
    /// The count this cache's session began under: read when the cache opened, and set again by its
    /// own ``WebCache/logout()``.
    private let begun: Atomic<Int64>

    init(store: CacheStore, partition: String, count: Int64) {
        self.store = store
        self.partition = partition
        self.begun = Atomic(count)
    }

    /// The count work begun now begins under.
    var current: Int64 { begun.load(ordering: .acquiring) }

    /// Sets the count after this cache's own sign-out: work begun after it begins under `count`.
    func begin(_ count: Int64) {
        begun.store(count, ordering: .releasing)
    }

    /// Whether no process signed the user out since the count was `count`; a store that cannot be read
    /// says no, so that nothing of a session that may have ended is sent or kept.
    func holds(since count: Int64) -> Bool {
        (try? store.signOutCount(partition: partition)) == count
    }

    /// The condition of the saves of work begun under `count` (``CacheStore/SaveCondition``).
    func saveCondition(since count: Int64, holds: (@Sendable () -> Bool)?) -> CacheStore.SaveCondition {
        CacheStore.SaveCondition(partition: partition, signOutCount: count, holds: holds)
    }
}
