/// A hash table keyed by ``URLKey``, for the tables a preload run looks up many times for every URL.
///
/// A key is already a hash of its URL under the process's random seed, so its bits pick the bucket
/// as they are: a Swift `Set` or `Dictionary` of keys runs its seeded hash over the key at every
/// look-up (about 200 instructions; the schedule made about 120 look-ups a URL on a site). Open
/// addressing with linear probing, at most half full; a removal moves the keys after it back, so
/// no look-up ever walks over removed ones.
struct URLKeyTable<Value> {
    private var keys: [URLKey]
    /// A bucket's value, `nil` when the bucket is empty.
    private var values: [Value?]
    /// How many keys the table holds.
    private(set) var count = 0

    /// A table with room for `minimumCapacity` keys before it grows.
    init(minimumCapacity: Int = 0) {
        var buckets = 8
        while buckets < 2 * minimumCapacity { buckets *= 2 }
        keys = Array(repeating: URLKey.unused, count: buckets)
        values = Array(repeating: nil, count: buckets)
    }

    var isEmpty: Bool { count == 0 }

    /// The value of `key`; setting `nil` removes it.
    subscript(key: URLKey) -> Value? {
        get {
            let (bucket, found) = find(key)
            return found ? values[bucket] : nil
        }
        set {
            let (bucket, found) = find(key)
            if let newValue {
                if found {
                    values[bucket] = newValue
                } else {
                    add(key, newValue, at: bucket)
                }
            } else if found {
                remove(at: bucket)
            }
        }
    }

    func contains(_ key: URLKey) -> Bool {
        find(key).found
    }

    /// Runs `body` on the value of `key`, made `defaultValue` first when the table has none.
    @discardableResult
    mutating func update<Result>(
        _ key: URLKey, default defaultValue: @autoclosure () -> Value, _ body: (inout Value) -> Result
    ) -> Result {
        var (bucket, found) = find(key)
        if !found { bucket = add(key, defaultValue(), at: bucket) }
        return body(&values[bucket]!)
    }

    /// Removes `key`; returns its value, `nil` when the table had none.
    @discardableResult
    mutating func removeValue(forKey key: URLKey) -> Value? {
        let (bucket, found) = find(key)
        guard found else { return nil }
        let value = values[bucket]
        remove(at: bucket)
        return value
    }

    /// Removes every key.
    mutating func removeAll() {
        guard count > 0 else { return }
        for bucket in values.indices { values[bucket] = nil }
        count = 0
    }

    /// The keys, in no particular order.
    var allKeys: [URLKey] {
        values.indices.compactMap { values[$0] == nil ? nil : keys[$0] }
    }

    /// Where `key` is, or the empty bucket where it would go.
    private func find(_ key: URLKey) -> (bucket: Int, found: Bool) {
        let mask = values.count - 1
        var bucket = key.bucketBits & mask
        while values[bucket] != nil {
            if keys[bucket] == key { return (bucket, true) }
            bucket = (bucket + 1) & mask
        }
        return (bucket, false)
    }

    /// Puts `key` and `value` in the empty `bucket`; returns the bucket that holds the key then,
    /// another one when the table had to grow.
    @discardableResult
    private mutating func add(_ key: URLKey, _ value: Value, at bucket: Int) -> Int {
        keys[bucket] = key
        values[bucket] = value
        count += 1
        guard 2 * count > values.count else { return bucket }
        grow()
        return find(key).bucket
    }

    private mutating func grow() {
        var larger = URLKeyTable(minimumCapacity: values.count)
        for bucket in values.indices {
            if let value = values[bucket] {
                larger.add(keys[bucket], value, at: larger.find(keys[bucket]).bucket)
            }
        }
        self = larger
    }

    /// Empties `bucket`, moving back each key after it that would no longer be found past the gap.
    private mutating func remove(at bucket: Int) {
        let mask = values.count - 1
        var gap = bucket
        values[gap] = nil
        count -= 1
        var next = (gap + 1) & mask
        while values[next] != nil {
            let home = keys[next].bucketBits & mask
            // Moved when the gap lies between its home bucket and where it is now (cyclically).
            if (next - home) & mask >= (next - gap) & mask {
                keys[gap] = keys[next]
                values[gap] = values[next]
                values[next] = nil
                gap = next
            }
            next = (next + 1) & mask
        }
    }
}

extension URLKeyTable where Value == Void {
    /// Adds `key`; returns whether it was not there before.
    @discardableResult
    mutating func insert(_ key: URLKey) -> Bool {
        let (bucket, found) = find(key)
        guard !found else { return false }
        add(key, (), at: bucket)
        return true
    }

    /// Removes `key`; returns whether it was there.
    @discardableResult
    mutating func remove(_ key: URLKey) -> Bool {
        removeValue(forKey: key) != nil
    }
}
