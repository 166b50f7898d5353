import FoundationEssentials

/// Values quoted in messages.
public enum MessageText {
    /// `text` for a message: credentials (`//user:password@`) hidden and control and invisible
    /// characters spelled out, so that a message neither leaks a password, garbles a terminal nor
    /// hides what is wrong, and cut to `limit` characters with `...` when longer.
    public static func excerpt(_ text: String, limit: Int) -> String {
        let visible = redactingCredentials(text).unicodeScalars.map { scalar in
            isInvisible(scalar) ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined()
        return visible.count > limit ? String(visible.prefix(limit - 3)) + "..." : visible
    }

    /// Whether `scalar` shows nothing, or moves the text, where a message prints it: a control
    /// character, or a format character or separator such as a byte order mark (U+FEFF), a
    /// zero-width space or a direction mark.
    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) { return true }
        guard scalar.value >= 0xAD else { return false }
        switch scalar.properties.generalCategory {
        case .format, .lineSeparator, .paragraphSeparator: return true
        default: return false
        }
    }

    /// `text` with every `//` that a user part of no `/@?#` and no white space and an `@` follow
    /// written `//***@`: the regular expression `//[^/@?#\s]*@` replaced by hand (ICU's `\s` is the
    /// Unicode White_Space property).
    static func redactingCredentials(_ text: String) -> String {
        guard text.utf8.contains(UInt8(ascii: "@")) else { return text }
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            if scalars[index] == "/", index + 1 < scalars.count, scalars[index + 1] == "/" {
                var end = index + 2
                while end < scalars.count, !isCredentialEnd(scalars[end]) { end += 1 }
                if end < scalars.count, scalars[end] == "@" {
                    result.append(contentsOf: "//***@".unicodeScalars)
                    index = end + 1
                    continue
                }
            }
            result.append(scalars[index])
            index += 1
        }
        return String(result)
    }

    private static func isCredentialEnd(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "/" || scalar == "@" || scalar == "?" || scalar == "#" || scalar.properties.isWhitespace
    }

    /// `message` followed by the sentence of the error under it, when there is one: "… Underlying
    /// error: <cause>.", with one full stop however the cause's text ends. The errors' descriptions
    /// of every module end so.
    public static func withCause(_ message: String, _ cause: (any Error)?) -> String {
        guard let cause else { return message }
        return withUnderlying(message, String(describing: cause))
    }

    /// `message` followed by `underlying`, the text of the error under it, as
    /// ``withCause(_:_:)`` writes it; for a caller that has described the error already.
    public static func withUnderlying(_ message: String, _ underlying: String) -> String {
        "\(message) Underlying error: \(underlying)" + (underlying.hasSuffix(".") ? "" : ".")
    }
}
