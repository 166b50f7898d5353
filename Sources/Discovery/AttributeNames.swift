/// The attribute names a tokenizer keeps, looked up by their bytes without building a `String`.
///
/// A name of up to 16 ASCII bytes, lower-cased as it is read, is packed into two words; the table
/// is open-addressed by a multiplicative hash of them. Longer names, and names with other bytes,
/// are never kept (no name in the filter is like that).
struct AttributeNames: Sendable {
    /// An attribute name being read: its first 16 bytes packed little-endian, and its length.
    struct Key: Sendable, Equatable {
        var low: UInt64 = 0
        var high: UInt64 = 0
        /// The bytes read, up to ``AttributeNames/maximumLength`` + 1 (which matches nothing).
        var length = 0

        /// An empty key, to append to.
        init() {}

        /// The key of `name`, taken as it is (a kept name is in lower case).
        @inline(__always)
        init(_ name: String) {
            var name = name
            name.withUTF8 { for byte in $0 { append(byte) } }
        }

        /// Whether the name starts with the bytes of `prefix`.
        func starts(with prefix: Key) -> Bool {
            guard prefix.length <= length, prefix.length <= AttributeNames.maximumLength else { return false }
            return low & Self.mask(prefix.length) == prefix.low && high & Self.mask(prefix.length - 8) == prefix.high
        }

        /// The bits of a word that hold its first `count` bytes.
        private static func mask(_ count: Int) -> UInt64 {
            count <= 0 ? 0 : count >= 8 ? .max : (1 << (8 * UInt64(count))) - 1
        }

        /// Adds `bytes` with their ASCII capitals lowered, as ``append(_:)`` adds each: into an empty
        /// key (a name read whole, as most are) eight bytes at a time, else a byte at a time on a copy
        /// held in registers (a loop over the key where it is stored wrote it back at each byte).
        mutating func append(lowercasing bytes: UnsafeBufferPointer<UInt8>) {
            if length == 0, let start = bytes.baseAddress, bytes.count <= AttributeNames.maximumLength {
                var words: (low: UInt64, high: UInt64) = (0, 0)
                withUnsafeMutableBytes(of: &words) { $0.baseAddress!.copyMemory(from: start, byteCount: bytes.count) }
                let ones: UInt64 = 0x0101_0101_0101_0101
                let highBits: UInt64 = 0x8080_8080_8080_8080
                // A NUL among the bytes sets the high bit of the lowest zero byte (the zeros above
                // the bytes, masked off, flag nothing below them); a byte above ASCII has its own.
                let nul = ((words.low &- ones) & ~words.low & Self.mask(bytes.count)
                    | (words.high &- ones) & ~words.high & Self.mask(bytes.count - 8)) & highBits
                if nul == 0 && (words.low | words.high) & highBits == 0 {
                    // ASCII bytes from `A` (+0x3F reaches 0x80) up to `Z` (+0x25 does not) gain 0x20.
                    func lowered(_ word: UInt64) -> UInt64 {
                        word | ((word &+ 0x3F3F_3F3F_3F3F_3F3F) & ~(word &+ 0x2525_2525_2525_2525) & highBits) >> 2
                    }
                    low = lowered(words.low)
                    high = lowered(words.high)
                    length = bytes.count
                    return
                }
            }
            var key = self
            for byte in bytes { key.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
            self = key
        }

        /// Adds a byte, already lower-cased; a byte no kept name has (NUL, non-ASCII) spoils the key.
        @inline(__always)
        mutating func append(_ byte: UInt8) {
            guard length < AttributeNames.maximumLength, byte != 0, byte < 0x80 else {
                length = AttributeNames.maximumLength + 1
                return
            }
            if length < 8 {
                low |= UInt64(byte) << (8 * UInt64(length))
            } else {
                high |= UInt64(byte) << (8 * UInt64(length - 8))
            }
            length += 1
        }
    }

    /// An attribute name with its key, packed once where the name is declared rather than at each
    /// look-up (packing a name costs about as much as looking it up).
    struct Name: Sendable {
        /// The name, in lower case.
        let text: String
        /// ``text`` packed.
        let key: Key

        init(_ text: String) {
            self.text = text
            key = Key(text)
        }
    }

    /// The longest name the table can hold.
    static let maximumLength = 16

    private struct Slot: Sendable {
        var low: UInt64
        var high: UInt64
        var length: Int
    }

    private static let slotCount = 256
    private var slots: [Slot?]

    /// A table of `names`, which must be lower-case ASCII of at most 16 bytes.
    init(_ names: Set<String>) {
        slots = Array(repeating: nil, count: Self.slotCount)
        for name in names {
            let key = Key(name)
            precondition(key.length == name.utf8.count, "Attribute name '\(name)' cannot be kept.")
            var index = Self.slot(for: key)
            while slots[index] != nil { index = (index + 1) % Self.slotCount }
            slots[index] = Slot(low: key.low, high: key.high, length: key.length)
        }
    }

    /// The slot of the kept name `key` spells, or `nil`: a number below 256 that stands for the
    /// name, for a ``SlotSet``.
    @inline(__always)
    func slot(of key: Key) -> Int? {
        guard key.length <= Self.maximumLength else { return nil }
        var index = Self.slot(for: key)
        while let slot = slots[index] {
            if slot.low == key.low && slot.high == key.high && slot.length == key.length { return index }
            index = (index + 1) % Self.slotCount
        }
        return nil
    }

    /// A set of slots: which kept names a tag has had, without hashing the names.
    struct SlotSet: Sendable {
        private var words = SIMD4<UInt64>()

        /// Adds `slot`; `false` if it was already there.
        @inline(__always)
        mutating func insert(_ slot: Int) -> Bool {
            let bit = UInt64(1) << UInt64(slot & 63)
            guard words[slot >> 6] & bit == 0 else { return false }
            words[slot >> 6] |= bit
            return true
        }
    }

    @inline(__always)
    private static func slot(for key: Key) -> Int {
        var hash = key.low &* 0x9E37_79B9_7F4A_7C15 ^ key.high &* 0xC2B2_AE3D_27D4_EB4F ^ UInt64(key.length)
        hash ^= hash >> 29
        return Int(truncatingIfNeeded: hash >> 56)
    }
}
