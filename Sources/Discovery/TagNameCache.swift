/// The strings of the tag names a tokenizer has met, kept by the names' packed bytes
/// (``ElementName/packed(_:)``) so that a page's thousand `div`s decode one string rather than a
/// thousand: a hit costs a multiply and a compare, `String(decoding:as:)` about 130 instructions.
///
/// Direct-mapped: a name takes the slot its packed word hashes to, replacing what was there.
/// Names that do not pack (longer than 8 bytes) are not kept: the tokenizer decodes them each time.
struct TagNameCache: Sendable {
    private static let slotBits = 6
    /// Packed names, 0 for an empty slot (no packed name is 0); both arrays are made at the first
    /// name, so that a tokenizer that meets no tag allocates nothing. Arrays rather than inline
    /// storage: a tokenizer is a value moved with its scanner, and 1.5 KB of inline slots made each
    /// move a copy of them (measured in docs/benchmarks.md, 2026-12-04).
    private var keys: [UInt64] = []
    private var names: [String] = []

    /// The tag name whose packed bytes are `packed` as a string: the same as decoding its bytes
    /// with `String(decoding:as:)`.
    mutating func name(packed: UInt64) -> String {
        if keys.isEmpty {
            keys = Array(repeating: 0, count: 1 << Self.slotBits)
            names = Array(repeating: "", count: 1 << Self.slotBits)
        }
        let slot = Int(truncatingIfNeeded: (packed &* 0x9E37_79B9_7F4A_7C15) >> UInt64(64 - Self.slotBits))
        if keys[slot] == packed { return names[slot] }
        // A packed name has no zero byte below its last, so its length is where the zeros start.
        let count = 8 - packed.leadingZeroBitCount / 8
        let name = withUnsafeBytes(of: packed) { String(decoding: $0.prefix(count), as: UTF8.self) }
        keys[slot] = packed
        names[slot] = name
        return name
    }
}
