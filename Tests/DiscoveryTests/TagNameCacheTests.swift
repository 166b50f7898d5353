import Testing
import WebCacheTestSupport

@testable import Discovery

/// The tokenizer's cache of tag-name strings must give what decoding the bytes gives, for every
/// name it keeps and for names that take another's slot.
@Suite struct TagNameCacheTests {
    /// Bytes a tag name can hold after the tokenizer: lower-case letters, digits, punctuation, and
    /// bytes of UTF-8 characters, whole or cut (the name is truncated at its limit).
    static let alphabet: [UInt8] = Array("abcdefghijklmnopqrstuvwxyz0123456789-_:.".utf8)
        + [0x80, 0xA9, 0xC3, 0xE2, 0xF0, 0xFF]

    @Test func givesTheDecodedStringForManyNamesSharingSlots() {
        var random = SeededGenerator(seed: 17)
        var names: [[UInt8]] = []
        for _ in 0..<600 {
            let length = random.below(8) + 1
            names.append((0..<length).map { _ in random.pick(Self.alphabet) })
        }
        names += [Array("div".utf8), Array("a".utf8), Array("é".utf8), Array("abcdefgh".utf8)]
        var cache = TagNameCache()
        // Three rounds in changing orders: first sight, hits, and names whose slot another took.
        for round in 0..<3 {
            let order = round == 1 ? names.reversed() : names
            for name in order {
                name.withUnsafeBufferPointer { bytes in
                    guard let packed = ElementName.packed(bytes) else {
                        Issue.record("\(name) does not pack")
                        return
                    }
                    let expected = String(decoding: bytes, as: UTF8.self)
                    #expect(cache.name(packed: packed) == expected, "\(name)")
                    #expect(cache.name(packed: packed) == expected, "\(name), again")
                }
            }
        }
    }

    @Test func namesThatDoNotPackAreNone() {
        for name in ["", "abcdefghi", "a\u{0}", "\u{0}"] {
            #expect(Array(name.utf8).withUnsafeBufferPointer { ElementName.packed($0) } == nil, "\(name)")
        }
    }
}
