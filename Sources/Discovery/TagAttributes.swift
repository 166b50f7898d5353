/// The attributes of a tag that the tokenizer kept (``AttributeNames``), in the order they came,
/// the first of duplicates only.
///
/// A tag keeps a handful, so they are a list looked up by their names packed into two words
/// (``AttributeNames/Key``): cheaper to fill and to ask than a dictionary, which allocates its
/// table for each tag and hashes each name on the way in and again on every look-up.
struct TagAttributes: Sendable, Equatable {
    /// One kept attribute.
    struct Attribute: Sendable, Equatable {
        /// The name, packed.
        var key: AttributeNames.Key
        /// The value, its character references decoded.
        var value: String

        /// The name in lower case, unpacked from ``key`` (a kept name is ASCII of at most 16 bytes,
        /// all of them in the key): kept as text, it was one more string to retain and release for
        /// each attribute of each tag, for the few readers of the name.
        var name: String {
            withUnsafeBytes(of: (key.low, key.high)) { String(decoding: $0.prefix(key.length), as: UTF8.self) }
        }
    }

    /// The attributes, in the order the tag has them.
    private(set) var list: [Attribute] = []

    var isEmpty: Bool { list.isEmpty }

    /// The value of the attribute named `name` (in lower case), if the tag kept it: a name known
    /// only at run time, packed for the look-up.
    subscript(_ name: String) -> String? {
        guard !list.isEmpty else { return nil }
        return self[AttributeNames.Key(name)]
    }

    /// The value of the attribute named `name`, if the tag kept it.
    subscript(_ name: AttributeNames.Name) -> String? {
        guard !list.isEmpty else { return nil }
        return self[name.key]
    }

    /// The value of the attribute whose packed name is `key`, if the tag kept it.
    subscript(_ key: AttributeNames.Key) -> String? {
        for attribute in list where attribute.key == key { return attribute.value }
        return nil
    }

    /// Adds an attribute, which must not be there yet.
    mutating func append(_ attribute: Attribute) {
        // One allocation for a tag's attributes rather than a growth at the 2nd and 3rd.
        if list.isEmpty { list.reserveCapacity(6) }
        list.append(attribute)
    }

    /// Whether an attribute's name starts with `prefix` (ASCII, in lower case, at most 16 bytes).
    func containsName(startingWith prefix: AttributeNames.Key) -> Bool {
        list.contains { $0.key.starts(with: prefix) }
    }

    /// The attributes by name.
    var dictionary: [String: String] {
        Dictionary(list.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
    }
}
