import Foundation

/// Values quoted in messages.
public enum MessageText {
    /// `text` for a message: credentials (`//user:password@`) hidden and control characters spelled
    /// out, so that a message neither leaks a password nor garbles a terminal, and cut to `limit`
    /// characters with `...` when longer.
    public static func excerpt(_ text: String, limit: Int) -> String {
        let redacted = text.replacingOccurrences(of: "//[^/@?#\\s]*@", with: "//***@", options: .regularExpression)
        let visible = redacted.unicodeScalars.map { scalar in
            scalar.value < 0x20 || scalar.value == 0x7F ? "\\u{\(String(scalar.value, radix: 16))}" : String(scalar)
        }.joined()
        return visible.count > limit ? String(visible.prefix(limit - 3)) + "..." : visible
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
