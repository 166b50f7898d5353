/// SQLite's `GLOB` syntax, which `prune --url-pattern` matches URLs with: `*` any text, `?` one
/// character, `[abc]` one character of a set (`[^abc]` one not in it, `[a-z]` a range, a `]` first
/// in the set stands for itself). Matching is case-sensitive, and there is no escape character:
/// `[[]`, `[*]` and `[?]` match `[`, `*` and `?` themselves.
///
/// SQLite does not reject a pattern: a `[` that no `]` closes only makes it match nothing, which is
/// why such a pattern is refused before it runs.
enum GlobPattern {
    /// Why `pattern` can match nothing, in words; `nil` when every set it opens is closed.
    static func problem(in pattern: String) -> String? {
        let characters = Array(pattern.unicodeScalars)  // SQLite reads the pattern a code point at a time
        var index = 0
        while index < characters.count {
            if characters[index] == "[" {
                // As SQLite reads a set: an optional `^`, then a `]` that stands for itself, then up to `]`.
                let start = index
                index += 1
                if index < characters.count, characters[index] == "^" { index += 1 }
                if index < characters.count, characters[index] == "]" { index += 1 }
                while index < characters.count, characters[index] != "]" { index += 1 }
                if index == characters.count {
                    return "the '[' at character \(start + 1) opens a set that no ']' closes, so the pattern "
                        + "matches nothing; write '[[]' to match a '[' itself"
                }
            }
            index += 1
        }
        return nil
    }
}
