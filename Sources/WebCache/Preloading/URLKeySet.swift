#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A set of ``URLKey``s that costs 16 bytes a key however many it holds, for what a preload run
/// keeps for every URL it has seen.
///
/// A hash set of keys costs 21 to 43 bytes a key (buckets at most three quarters full, doubled
/// when they are), and twice that while it doubles: 6 MB at the end of a run of 110,000 URLs. This
/// one keeps the last ``recentLimit`` keys added in such a set, and the rest sorted, one after
/// another, in memory mapped for them alone, which a merge extends in place from its end: memory
/// the set has not written to yet is reserved address space, not memory the process holds, so the
/// set holds 16 bytes a key and a small table besides. Looking a key up is a probe of the small
/// table and a binary search of the sorted keys.
struct URLKeySet {
    /// How many keys are added to the hash set before they are merged into the sorted ones: a merge
    /// moves every sorted key once, so a run of a million URLs moves about 1 GB in all.
    static let recentLimit = 16_384

    private var recent = URLKeyTable<Void>()
    private var sorted = SortedURLKeys()

    /// How many keys the set holds.
    var count: Int { recent.count + sorted.count }

    func contains(_ key: URLKey) -> Bool {
        recent.contains(key) || sorted.contains(key)
    }

    /// Adds `key`; returns whether it was not there before.
    @discardableResult
    mutating func insert(_ key: URLKey) -> Bool {
        guard !sorted.contains(key), recent.insert(key) else { return false }
        if recent.count >= Self.recentLimit {
            if !isKnownUniquelyReferenced(&sorted) { sorted = sorted.copy() }
            sorted.merge(recent.allKeys.sorted())
            recent.removeAll()
        }
        return true
    }
}

/// Keys in ascending order in an anonymous memory mapping of their own, which is reserved far
/// beyond what they fill: the pages not yet written cost nothing, so growing needs no copy until the
/// reservation is full (``reservedKeys`` keys, 16 million URLs), when it doubles.
final class SortedURLKeys {
    /// How many keys the first reservation holds: 256 MiB of address space.
    static let reservedKeys = 1 << 24

    private var keys: UnsafeMutablePointer<URLKey>?
    private var capacity = 0
    private(set) var count = 0

    init() {}

    deinit {
        unmap()
    }

    func contains(_ key: URLKey) -> Bool {
        guard let keys else { return false }
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if keys[middle] < key {
                low = middle + 1
            } else {
                high = middle
            }
        }
        return low < count && keys[low] == key
    }

    /// Merges `added`, ascending and none of them here already, into the keys, from the end, in place.
    func merge(_ added: [URLKey]) {
        reserve(count + added.count)
        guard let keys else { return }
        var kept = count - 1
        var next = added.count - 1
        var target = count + added.count - 1
        while next >= 0 {
            if kept >= 0, added[next] < keys[kept] {
                keys[target] = keys[kept]
                kept -= 1
            } else {
                keys[target] = added[next]
                next -= 1
            }
            target -= 1
        }
        count += added.count
    }

    /// Another instance with the same keys.
    func copy() -> SortedURLKeys {
        let copy = SortedURLKeys()
        copy.reserve(count)
        if let keys, let target = copy.keys { target.update(from: keys, count: count) }
        copy.count = count
        return copy
    }

    /// Makes room for `wanted` keys: maps the reservation, or a reservation twice as large as the
    /// keys need, copying the keys into it.
    private func reserve(_ wanted: Int) {
        guard wanted > capacity else { return }
        var newCapacity = max(Self.reservedKeys, capacity)
        while newCapacity < wanted { newCapacity *= 2 }
        let bytes = newCapacity * MemoryLayout<URLKey>.stride
        guard let region = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0),
            region != MAP_FAILED
        else {
            preconditionFailure("Could not reserve \(bytes) bytes of address space for the URLs of a preload run.")
        }
        let moved = region.bindMemory(to: URLKey.self, capacity: newCapacity)
        if let keys { moved.update(from: keys, count: count) }
        unmap()
        keys = moved
        capacity = newCapacity
    }

    private func unmap() {
        if let keys { munmap(keys, capacity * MemoryLayout<URLKey>.stride) }
    }
}
