import Testing

@testable import Discovery

/// An ``AttributeNames/Name``, packed once where it is declared, finds the kept attribute of its
/// name and no other.
@Suite struct AttributeNameTests {
    @Test func everyKeptNameFindsItsOwnValue() {
        let names = HTMLScanner.attributeFilter.sorted()
        let html = "<p " + names.map { "\($0.uppercased())=\"v-\($0)\"" }.joined(separator: " ") + " other=x>"
        var tokenizer = HTMLTokenizer(attributeFilter: HTMLScanner.attributeNames)
        let bytes = Array(html.utf8)
        var index = 0
        let token = bytes.withUnsafeBufferPointer { tokenizer.nextToken(in: $0, at: &index) }
        guard case .startTag(let tag)? = token else {
            Issue.record("no start tag: \(String(describing: token))")
            return
        }
        for name in names {
            #expect(tag[AttributeNames.Name(name)] == "v-\(name)", "\(name)")
        }
        #expect(tag[AttributeNames.Name("other")] == nil)
        #expect(tag[AttributeNames.Name("sr")] == nil && tag[AttributeNames.Name("srcsetx")] == nil)
    }
}

/// A name's bytes appended at once (``AttributeNames/Key/append(lowercasing:)``, eight at a time
/// into an empty key) make the key that appending them lowered one by one makes.
@Suite struct AttributeKeyTests {
    @Test func appendingARunMatchesAppendingEachByte() {
        let names: [[UInt8]] = [
            Array("SRC".utf8), Array("Data-Lazy-Src".utf8), Array("aria-Expanded-XY".utf8),
            Array("aria-expanded-xyz".utf8), Array("@[`{AZaz09-:_".utf8), [0x41, 0x00, 0x42], [0x61, 0xC3, 0xA9],
            Array("x".utf8), [], Array("ABCDEFGH".utf8), Array("ABCDEFGHI".utf8), [0x7F, 0x5A, 0x5B, 0x40],
        ]
        for prefix in [[], Array("D".utf8)] as [[UInt8]] {
            for name in names {
                var expected = AttributeNames.Key()
                for byte in prefix + name { expected.append(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) }
                var key = AttributeNames.Key()
                prefix.withUnsafeBufferPointer { key.append(lowercasing: $0) }
                name.withUnsafeBufferPointer { key.append(lowercasing: $0) }
                #expect(key == expected, "\(prefix + name)")
            }
        }
    }
}
