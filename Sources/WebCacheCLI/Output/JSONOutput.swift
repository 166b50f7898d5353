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
        try makeEncoder().encode(value)
    }

    /// The encoder of ``encode(_:)``.
    private static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// Writes an object whose first key (in sorted order) holds an array, an element at a time, byte
    /// for byte as ``write(_:to:)`` writes the whole object: a listing of any length is written in
    /// the memory of one element and 64 KiB of output.
    final class StreamedArray {
        private let output: any TextOutput
        private let encoder = JSONOutput.makeEncoder()
        private var pending: [UInt8] = []
        private var count = 0

        /// Starts the object and its array, under `key`, which must sort before the keys given to
        /// ``finish(then:)``.
        init(key: String, to output: any TextOutput) throws {
            self.output = output
            pending.append(contentsOf: "{\n  ".utf8)
            pending.append(contentsOf: try encoder.encode(key))
            pending.append(contentsOf: " : [\n".utf8)
        }

        /// Appends one element of the array.
        func append(_ element: some Encodable) throws {
            if count > 0 { pending.append(contentsOf: ",\n".utf8) }
            count += 1
            Self.append(try encoder.encode(element), indentedBy: "    ", indentsFirstLine: true, to: &pending)
            if pending.count >= 1 << 16 {
                output.write(data: Data(pending))
                pending.removeAll(keepingCapacity: true)
            }
        }

        /// Ends the array, writes the object's other members (keys in sorted order) and ends the object.
        func finish(then members: [(key: String, value: any Encodable)]) throws {
            pending.append(contentsOf: "\n  ]".utf8)
            for member in members {
                pending.append(contentsOf: ",\n  ".utf8)
                pending.append(contentsOf: try encoder.encode(member.key))
                pending.append(contentsOf: " : ".utf8)
                Self.append(try encoder.encode(member.value), indentedBy: "  ", indentsFirstLine: false, to: &pending)
            }
            pending.append(contentsOf: "\n}\n".utf8)
            output.write(data: Data(pending))
            pending = []
        }

        /// Appends `json` to `output` with `indent` before each of its lines that is not empty (a
        /// pretty-printed value has no line break inside a string), the first only if
        /// `indentsFirstLine`: nested one level further in.
        private static func append(
            _ json: Data, indentedBy indent: String, indentsFirstLine: Bool, to output: inout [UInt8]
        ) {
            let lineBreak = UInt8(ascii: "\n")
            let indent = Array(indent.utf8)
            json.withUnsafeBytes { bytes in
                var start = 0
                while start < bytes.count {
                    let end = bytes[start...].firstIndex(of: lineBreak).map { $0 + 1 } ?? bytes.count
                    if (start > 0 || indentsFirstLine) && bytes[start] != lineBreak { output.append(contentsOf: indent) }
                    output.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[start..<end]))
                    start = end
                }
            }
        }
    }
}
