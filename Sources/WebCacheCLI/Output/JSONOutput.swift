import FoundationEssentials

/// Writes one JSON document to standard output, for `--json`: keys sorted so the output is stable,
/// instants as ISO 8601 strings in UTC, slashes in URLs left unescaped.
enum JSONOutput {
    /// Encodes `value` and writes it, followed by a newline, to `output`.
    static func write(_ value: some Encodable, to output: any TextOutput) throws {
        output.write(data: try encode(value) + Data("\n".utf8))
    }

    /// The encoded bytes of `value`.
    static func encode(_ value: some Encodable) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(value)
    }
}
