import Foundation

/// A small, fast, seeded generator (SplitMix64), so every fuzz case can be replayed from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// How much fuzzing a run does. The test suite uses the base budgets; `scripts/fuzz.sh` raises them
/// with `WEBCACHE_FUZZ_SCALE` (a multiplier) and can pick another `WEBCACHE_FUZZ_SEED`.
enum FuzzBudget {
    /// The multiplier of every base budget: `WEBCACHE_FUZZ_SCALE`, 1 when unset or invalid.
    static let scale: Int = {
        guard let text = ProcessInfo.processInfo.environment["WEBCACHE_FUZZ_SCALE"], let value = Int(text),
            value > 0
        else { return 1 }
        return value
    }()

    /// The first seed: `WEBCACHE_FUZZ_SEED`, or a fixed value so that runs repeat.
    static let seed: UInt64 = {
        guard let text = ProcessInfo.processInfo.environment["WEBCACHE_FUZZ_SEED"], let value = UInt64(text) else {
            return 0x5EED_CAFE
        }
        return value
    }()

    /// The number of cases for a test whose base budget is `base`.
    static func cases(_ base: Int) -> Int {
        base * scale
    }
}

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

/// The fixtures of the discovery tests, read from the source tree.
enum DiscoveryFixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("DiscoveryTests/Fixtures")

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: folder.appendingPathComponent(name)))
    }
}
