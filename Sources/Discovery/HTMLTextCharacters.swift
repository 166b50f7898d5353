/// The characters of a document's text as the HTML tokenizer passes its runs on, character
/// references decoded (HTML §13.2.5.72–80), for ``TextCharacters``.
///
/// A run may end in the middle of a character or a reference when the piece of input ends there:
/// the tokenizer then says that the text goes on, and the unfinished part waits for the next run.
struct HTMLTextCharacters: Sendable {
    /// What the text holds so far.
    private(set) var characters = TextCharacters()
    /// The start of a character or reference cut off by the end of a piece of input.
    private var carried: [UInt8] = []

    /// The longest reference text kept across pieces of input: `&` and a name or number and `;`.
    private static let maximumCarried = 48

    /// Adds a run of text, which the next run continues when `continues` (the piece of input ended
    /// in it); a run that ends at a tag ends its characters too.
    mutating func read(_ bytes: UnsafeBufferPointer<UInt8>, continues: Bool) {
        var start = 0
        if !carried.isEmpty {
            var joined = carried
            carried = []
            let isReference = joined[0] == UInt8(ascii: "&")
            while start < bytes.count, joined.count < Self.maximumCarried {
                let byte = bytes[start]
                if isReference ? !Self.isReferenceByte(byte) : byte & 0xC0 != 0x80 { break }
                joined.append(byte)
                start += 1
                if byte == UInt8(ascii: ";") { break }
            }
            if start == bytes.count, continues, joined.count < Self.maximumCarried {
                carried = joined
                return
            }
            joined.withUnsafeBufferPointer { scan($0, continues: false) }
        }
        scan(UnsafeBufferPointer(rebasing: bytes[start...]), continues: continues)
    }

    /// Ends the text: what was carried is read as it is.
    mutating func finish() {
        guard !carried.isEmpty else { return }
        let rest = carried
        carried = []
        rest.withUnsafeBufferPointer { scan($0, continues: false) }
    }

    private mutating func scan(_ bytes: UnsafeBufferPointer<UInt8>, continues: Bool) {
        var index = 0
        let count = bytes.count
        var end = count
        if continues {
            let tail = TextCharacters.incompleteTail(bytes)
            if tail > 0 {
                end -= tail
                carried = Array(bytes[end...])
            }
        }
        // One pass, eight bytes at a time while they are ASCII without `&`: most runs of text are
        // short (the whitespace between tags), for which a search call would cost more.
        while index < end {
            if index + 8 <= end {
                let word = UnsafeRawPointer(bytes.baseAddress! + index).loadUnaligned(as: UInt64.self)
                let ampersands = word ^ 0x2626_2626_2626_2626
                let hasAmpersand = (ampersands &- 0x0101_0101_0101_0101) & ~ampersands & TextCharacters.highBits != 0
                if word & TextCharacters.highBits == 0 && !hasAmpersand {
                    characters.insertASCII(word)
                    index += 8
                    continue
                }
            }
            let byte = bytes[index]
            guard byte == UInt8(ascii: "&") else {
                index = characters.insertCharacter(bytes, at: index)
                continue
            }
            let ampersand = index
            var close = ampersand + 1
            while close < end, close - ampersand < Self.maximumCarried, Self.isReferenceByte(bytes[close]) {
                close += 1
                if bytes[close - 1] == UInt8(ascii: ";") { break }
            }
            if close == end, continues, carried.isEmpty, close - ampersand < Self.maximumCarried,
                bytes[close - 1] != UInt8(ascii: ";")
            {
                carried = Array(bytes[ampersand..<end])
                return
            }
            index = reference(UnsafeBufferPointer(rebasing: bytes[ampersand..<close]))
                .map { ampersand + $0 } ?? close
        }
    }

    /// Adds what the reference at the start of `text` (`&` and what may be its name) stands for;
    /// returns how many bytes it took, `nil` when all of `text` was read.
    private mutating func reference(_ text: UnsafeBufferPointer<UInt8>) -> Int? {
        guard text.count > 1 else {
            characters.insert(UInt32(UInt8(ascii: "&")))
            return 1
        }
        if text[1] == UInt8(ascii: "#") {
            guard let (scalar, end) = CharacterReferences.numericReference(text, from: 2) else {
                characters.insert(utf8: text)
                return nil
            }
            characters.insert(scalar.value)
            return end
        }
        var nameEnd = 1
        while nameEnd < text.count, CharacterReferences.isASCIIAlphanumeric(text[nameEnd]) { nameEnd += 1 }
        let hasSemicolon = nameEnd < text.count && text[nameEnd] == UInt8(ascii: ";")
        if hasSemicolon, let ascii = Self.asciiReference(UnsafeBufferPointer(rebasing: text[1..<nameEnd])) {
            characters.insert(ascii)
            return nameEnd + 1
        }
        let name = String(decoding: text[1..<nameEnd], as: UTF8.self)
        if hasSemicolon {
            if let value = NamedCharacterReferences.withSemicolon[name] {
                characters.insert(value)
            } else if name.utf8.count <= Self.longestName {
                // A reference the table lacks (`&Alpha;`) may be any character.
                characters.insertEverything()
            }
            return nameEnd + 1
        }
        // Without a semicolon, the longest legacy name that starts the run (`&copy2024`), else text.
        for length in stride(from: name.utf8.count, through: 1, by: -1) {
            if let value = NamedCharacterReferences.legacy[String(decoding: text[1..<(1 + length)], as: UTF8.self)] {
                characters.insert(value)
                characters.insert(utf8: UnsafeBufferPointer(rebasing: text[(1 + length)...]))
                return nil
            }
        }
        characters.insert(utf8: text)
        return nil
    }

    /// The character of `&amp;`, `&lt;`, `&gt;`, `&quot;` and `&apos;` (the references most text
    /// has), told from the name's bytes without looking it up.
    private static func asciiReference(_ name: UnsafeBufferPointer<UInt8>) -> UInt32? {
        func equals(_ word: StaticString) -> Bool {
            word.utf8CodeUnitCount == name.count && zip(name, UnsafeBufferPointer(start: word.utf8Start,
                                                                                 count: name.count)).allSatisfy(==)
        }
        switch name.count {
        case 2: return equals("lt") ? 0x3C : equals("gt") ? 0x3E : nil
        case 3: return equals("amp") ? 0x26 : nil
        case 4: return equals("quot") ? 0x22 : equals("apos") ? 0x27 : nil
        default: return nil
        }
    }

    /// The length of the longest name HTML defines, `CounterClockwiseContourIntegral` (the table
    /// holds a subset of them).
    private static let longestName = 31

    private static func isReferenceByte(_ byte: UInt8) -> Bool {
        CharacterReferences.isASCIIAlphanumeric(byte) || byte == UInt8(ascii: "#") || byte == UInt8(ascii: ";")
    }
}
