import Foundation

/// Random inputs: raw bytes, and mutations of real documents.
struct Mutator {
    var random: SeededGenerator

    /// Pieces of syntax worth inserting: they open or close the states a tokenizer keeps.
    static let fragments: [String] = [
        "<", ">", "\"", "'", "&", "&amp;", "&#x", "&#", "&#1114112;", "&notin", "url(", "url(\"", ")", "/*", "*/",
        "<!--", "-->", "<!", "<?", "</", "<script>", "</script>", "<style>", "</style>", "<svg>", "<math>",
        "<template>", "<noscript>", "<textarea>", "<title>", "<plaintext>", "<base href=", "<img src=", " srcset=",
        "<link rel=stylesheet href=", "@import ", "image-set(", "\\", "\u{0}", "\r", "\n", "\u{FEFF}", "\u{FFFD}",
        "<meta charset=utf-16>", "<meta charset=windows-1252>", "\u{E9}", "\u{10FFFF}", "=", ";", "{", "}",
    ]

    init(seed: UInt64) {
        random = SeededGenerator(seed: seed)
    }

    /// Random bytes, biased towards ASCII markup half of the time.
    mutating func randomBytes(maximumLength: Int) -> [UInt8] {
        let length = Int.random(in: 0...maximumLength, using: &random)
        if Bool.random(using: &random) {
            return (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
        }
        let alphabet = Array("<>/=\"' &;#()*!-abcdefghijklmnopqrstuvwxyz:.\n\\{}@,".utf8)
        return (0..<length).map { _ in alphabet.randomElement(using: &random)! }
    }

    /// `input` after one to eight random edits: byte flips, truncation, insertions, deletions, duplications.
    mutating func mutate(_ input: [UInt8]) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...8, using: &random) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0...bytes.count, using: &random)
            switch Int.random(in: 0..<6, using: &random) {
            case 0 where !bytes.isEmpty:
                let index = min(position, bytes.count - 1)
                bytes[index] ^= UInt8(1) << UInt8.random(in: 0...7, using: &random)
            case 1:
                bytes.removeSubrange(position...)
            case 2, 3:
                let fragment = Mutator.fragments.randomElement(using: &random)!
                bytes.insert(contentsOf: Array(fragment.utf8), at: position)
            case 4 where position < bytes.count:
                let end = min(bytes.count, position + Int.random(in: 1...64, using: &random))
                bytes.removeSubrange(position..<end)
            default:
                let end = min(bytes.count, position + Int.random(in: 0...128, using: &random))
                bytes.insert(contentsOf: bytes[position..<end], at: position)
            }
        }
        return bytes
    }

    /// Random split points for `count` bytes: chunk lengths that add up to at most `count`.
    mutating func chunkLengths(for count: Int) -> [Int] {
        var lengths: [Int] = []
        var remaining = count
        while remaining > 0 {
            let length = Int.random(in: 0...min(remaining, Bool.random(using: &random) ? 3 : 200), using: &random)
            lengths.append(length)
            remaining -= length
        }
        return lengths
    }

    /// A random string made of `alphabet` and the given fragments.
    mutating func text(from alphabet: String, fragments: [String], maximumLength: Int) -> String {
        let characters = Array(alphabet)
        var result = ""
        for _ in 0..<Int.random(in: 0...maximumLength, using: &random) {
            if Int.random(in: 0..<4, using: &random) == 0, let fragment = fragments.randomElement(using: &random) {
                result += fragment
            } else {
                result.append(characters.randomElement(using: &random)!)
            }
        }
        return result
    }
}
