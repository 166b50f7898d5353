import FoundationEssentials
import HTTPCore

/// Secondary cache keys for responses that carry `Vary` (RFC 9111 §4.1).
public enum VaryKey {
    /// The normalised secondary key of `request` for a response whose `Vary` value is `varyHeader`.
    ///
    /// The key lists each nominated field name, lowercased, deduplicated and sorted, one per line:
    /// `name: value` when the request has the field and `name` alone when it does not, so an absent
    /// field never matches an empty one. Values are normalised as §4.1 allows: list members are
    /// trimmed and joined by `,` and runs of spaces and tabs become one space. A response without
    /// `Vary` (or with an empty one) has the empty key.
    ///
    /// The value of a field that carries credentials (``HTTPHeaders/sensitiveNames``: `Cookie`,
    /// `Authorization`) is replaced by `sha256:` and the hex SHA-256 of its normalised value, so
    /// that keys still match exactly while a stored key never holds a secret.
    ///
    /// Compute the key once with the request that produced a response and store it; to reuse a
    /// stored response, compute the key again with the stored `Vary` and the new request and compare.
    ///
    /// - Returns: the key, or `nil` when `Vary` contains `*`, which never matches.
    public static func secondaryKey(forVary varyHeader: String?, request: HTTPHeaders) -> String? {
        // Most responses vary on nothing: their key is empty, and every hit asks for it.
        guard let varyHeader else { return "" }
        let names = HTTPHeaders.splitList(varyHeader)
        if names.contains("*") { return nil }
        let sorted = Set(names.map { $0.lowercased() }).sorted()
        return sorted.map { name in
            let lines = request.values(for: name)
            guard !lines.isEmpty else { return name }
            let value = lines.flatMap(HTTPHeaders.splitList).map(collapseWhitespace).joined(separator: ",")
            return "\(name): \(HTTPHeaders.sensitiveNames.contains(name) ? digest(of: value) : value)"
        }.joined(separator: "\n")
    }

    /// `sha256:` and the lowercase hex SHA-256 of `value` in UTF-8.
    private static func digest(of value: String) -> String {
        "sha256:" + Hex.lowercase(SHA256.hash(Data(value.utf8)))
    }

    /// The secondary key for a stored response's own headers, or `nil` for `Vary: *`.
    public static func secondaryKey(forResponse response: HTTPHeaders, request: HTTPHeaders) -> String? {
        secondaryKey(forVary: response["Vary"], request: request)
    }

    private static func collapseWhitespace(_ value: String) -> String {
        var result = ""
        var pendingSpace = false
        for character in value {
            if character == " " || character == "\t" || character == "\r" || character == "\n" {
                pendingSpace = true
            } else {
                if pendingSpace && !result.isEmpty { result.append(" ") }
                pendingSpace = false
                result.append(character)
            }
        }
        return result
    }
}
