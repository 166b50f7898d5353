import FoundationEssentials
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The families of the last few `font` and `font-family` values a stylesheet declared, so that a
/// value declared again (a site's font stack, written in rule after rule) is read once and its
/// families' names made and hashed once.
///
/// It holds ``capacity`` values of up to ``maximumValueLength`` bytes, the latest replacing the
/// oldest, compared as bytes, as ``ResolvedURLs`` holds URLs.
struct RecentFontValues: Sendable {
    /// How many values are remembered.
    static let capacity = 4
    /// The longest value remembered, in bytes: longer ones are read each time.
    static let maximumValueLength = 256

    /// A family a value names, with its hash for ``FontFamilyUse``.
    struct Family: Sendable {
        var name: String
        var hash: Int
    }

    private struct Entry: Sendable {
        var value: [UInt8]
        var shorthand: Bool
        var families: [Family]
    }

    private var entries: [Entry] = []
    /// Where the next value goes once ``entries`` is full.
    private var next = 0

    /// The families of `value`, a `font` shorthand (`shorthand`) or a `font-family` list: as
    /// remembered, or as `read` gives their names.
    mutating func families(
        in value: UnsafeBufferPointer<UInt8>, shorthand: Bool, read: () -> [String]
    ) -> [Family] {
        for entry in entries where entry.shorthand == shorthand && entry.value.count == value.count {
            let same = entry.value.withUnsafeBufferPointer { remembered in
                value.isEmpty || memcmp(remembered.baseAddress!, value.baseAddress!, value.count) == 0
            }
            if same { return entry.families }
        }
        let families = read().map { Family(name: $0, hash: FontFamilyUse.hash(of: $0)) }
        guard value.count <= Self.maximumValueLength else { return families }
        let entry = Entry(value: Array(value), shorthand: shorthand, families: families)
        if entries.count < Self.capacity {
            entries.append(entry)
        } else {
            entries[next] = entry
            next = (next + 1) % Self.capacity
        }
        return families
    }

    /// Forgets every value, for a new stylesheet.
    mutating func removeAll() {
        if !entries.isEmpty { entries.removeAll(keepingCapacity: true) }
        next = 0
    }
}
