import Testing
import WebCacheTestSupport

@testable import HTTPCore

/// The list splitter reads bytes; on every field value made of the characters that matter to it
/// (commas, quotes, backslashes, spaces, tabs) and a few others, non-ASCII ones included, it splits
/// as a splitter that walks the value a character at a time does.
struct ListSplittingDifferentialTests {
    /// Splits at commas outside quoted strings, one `Character` at a time: the reference.
    static func splitByCharacters(_ value: String) -> [String] {
        var members: [String] = []
        var current = ""
        var inQuotes = false
        var escaped = false
        for character in value {
            if escaped {
                current.append(character)
                escaped = false
                continue
            }
            switch character {
            case "\\" where inQuotes:
                current.append(character)
                escaped = true
            case "\"":
                inQuotes.toggle()
                current.append(character)
            case "," where !inQuotes:
                let member = current.trimmingHTTPWhitespace()
                if !member.isEmpty { members.append(member) }
                current = ""
            default:
                current.append(character)
            }
        }
        let member = current.trimmingHTTPWhitespace()
        if !member.isEmpty { members.append(member) }
        return members
    }

    @Test func splitsAsTheCharacterSplitterOnRandomValues() {
        let alphabet: [String] = [",", "\"", "\\", " ", "\t", "=", "a", "Z", "9", "é", "→", "max-age"]
        var generator = SeededGenerator(seed: 17)
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...24, using: &generator)
            let value = (0..<length).map { _ in alphabet.randomElement(using: &generator)! }.joined()
            #expect(HTTPHeaders.splitList(value) == Self.splitByCharacters(value), "\(value.debugDescription)")
        }
    }
}
