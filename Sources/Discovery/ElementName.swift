/// The element names the scanner and its document tree act on, told apart by the tokenizer from a tag name's bytes so
/// that the scanner switches on a number instead of comparing the name with each string in turn.
///
/// A raw value is the name's bytes packed little-endian into a word (names of up to 8 bytes);
/// `plaintext`, the one longer name, has a value no packed name has (a zero byte below a non-zero
/// one: a name with a NUL byte is none of these, and the tokenizer turns NUL into U+FFFD anyway).
enum ElementName: UInt64, Sendable, CaseIterable {
    /// Any other name.
    case other = 0
    case plaintext = 0x100
    case a = 0x61
    case area = 0x61657261
    case audio = 0x6f69647561
    case base = 0x65736162
    case body = 0x79646f62
    case embed = 0x6465626d65
    case frame = 0x656d617266
    case head = 0x64616568
    case html = 0x6c6d7468
    case iframe = 0x656d61726669
    case image = 0x6567616d69
    case img = 0x676d69
    case input = 0x7475706e69
    case link = 0x6b6e696c
    case math = 0x6874616d
    case noembed = 0x6465626d656f6e
    case noframes = 0x73656d6172666f6e
    case noscript = 0x7470697263736f6e
    case object = 0x7463656a626f
    case picture = 0x65727574636970
    case script = 0x747069726373
    case source = 0x656372756f73
    case style = 0x656c797473
    case svg = 0x677673
    case table = 0x656c626174
    case td = 0x6474
    case template = 0x6574616c706d6574
    case textarea = 0x6165726174786574
    case th = 0x6874
    case title = 0x656c746974
    case track = 0x6b63617274
    case video = 0x6f65646976
    case xmp = 0x706d78
    case br = 0x7262
    case col = 0x6c6f63
    case hr = 0x7268
    case meta = 0x6174656d
    case param = 0x6d61726170
    case wbr = 0x726277
    case keygen = 0x6e656779656b
    case basefont = 0x746e6f6665736162
    case bgsound = 0x646e756f736762

    /// The element a tag name in ASCII lower case (as UTF-8) names.
    init(_ name: UnsafeBufferPointer<UInt8>) {
        if let packed = Self.packed(name) {
            self.init(packed: packed)
        } else {
            self = Self.equals(name, "plaintext") ? .plaintext : .other
        }
    }

    /// The element the name whose packed bytes are `packed` (``packed(_:)``) names.
    init(packed: UInt64) {
        self = ElementName(rawValue: packed) ?? .other
    }

    /// A name of 1 to 8 bytes, none of them NUL, packed little-endian into a word; `nil` for any
    /// other name. Two names pack to the same word only if they are the same bytes.
    static func packed(_ name: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard name.count <= 8, let start = name.baseAddress, !name.isEmpty else { return nil }
        var packed: UInt64 = 0
        withUnsafeMutableBytes(of: &packed) { $0.baseAddress!.copyMemory(from: start, byteCount: name.count) }
        // The lowest byte flagged as zero is the first zero byte (a flag above it may be false);
        // the bytes from `count` on are zero, so one is always flagged.
        let zeros = (packed &- 0x0101_0101_0101_0101) & ~packed & 0x8080_8080_8080_8080
        return zeros.trailingZeroBitCount / 8 < name.count ? nil : packed
    }

    private static func equals(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        bytes.count == word.utf8CodeUnitCount && bytes.elementsEqual(UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount))
    }
}
