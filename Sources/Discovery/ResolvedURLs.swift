import FoundationEssentials

/// The URLs of the last few values a document resolved against its current base, so that a value
/// named again right away (an `<img src>` and its `srcset` 1x candidate, the same icon in each item
/// of a list) is resolved once and its text shared.
///
/// It holds ``capacity`` values, the latest replacing the oldest, compared as strings (cheaper
/// than hashing them into a table that grows); the owner empties it when the base changes.
struct ResolvedURLs: Sendable {
    /// How many values are remembered.
    static let capacity = 4

    private struct Entry: Sendable {
        var value: String
        var queryEncoding: TextEncoding
        var url: String?
    }

    private var entries: [Entry] = []
    /// Where the next value goes once ``entries`` is full.
    private var next = 0

    /// The URL text `value` resolves to against `base`, with its query in `queryEncoding`, or `nil`
    /// when it is not fetchable (``URLCleaner/resolve(_:against:queryEncoding:)``).
    mutating func url(for value: String, against base: URLCleaner.Base, queryEncoding: TextEncoding) -> String? {
        // The lengths first: comparing strings of different lengths still costs a call. The
        // entries are read in place: a loop over copies retained and released both their strings.
        let length = value.utf8.count
        let remembered: String?? = entries.withUnsafeBufferPointer { entries in
            for index in entries.indices
            where entries[index].value.utf8.count == length && entries[index].queryEncoding == queryEncoding
                && entries[index].value == value
            {
                return .some(entries[index].url)
            }
            return .none
        }
        if let remembered { return remembered }
        let entry = Entry(value: value, queryEncoding: queryEncoding,
                          url: URLCleaner.resolve(value, against: base, queryEncoding: queryEncoding))
        if entries.count < Self.capacity {
            entries.append(entry)
        } else {
            entries[next] = entry
            next = (next + 1) % Self.capacity
        }
        return entry.url
    }

    /// Forgets every value, for a new base.
    mutating func removeAll() {
        entries.removeAll(keepingCapacity: true)
        next = 0
    }
}
