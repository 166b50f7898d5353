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

    /// Writes an object whose first key (in sorted order) holds an array, an element at a time, byte
    /// for byte as ``write(_:to:)`` writes the whole object: a listing of any length is written in
    /// the memory of one element and 64 KiB of output.
    final class StreamedArray {
        private let output: any TextOutput
        private var pending = Data()
        private var count = 0

        /// Starts the object and its array, under `key`, which must sort before the keys given to
        /// ``finish(then:)``.
        init(key: String, to output: any TextOutput) throws {
            self.output = output
            pending.append(contentsOf: "{\n  ".utf8)
            pending.append(try JSONOutput.encode(key))
            pending.append(contentsOf: " : [\n".utf8)
        }

        /// Appends one element of the array.
        func append(_ element: some Encodable) throws {
            if count > 0 { pending.append(contentsOf: ",\n".utf8) }
            count += 1
            pending.append(Self.indented(try JSONOutput.encode(element), by: "    ", indentsFirstLine: true))
            if pending.count >= 1 << 16 {
                output.write(data: pending)
                pending.removeAll(keepingCapacity: true)
            }
        }

        /// Ends the array, writes the object's other members (keys in sorted order) and ends the object.
        func finish(then members: [(key: String, value: any Encodable)]) throws {
            pending.append(contentsOf: "\n  ]".utf8)
            for member in members {
                pending.append(contentsOf: ",\n  ".utf8)
                pending.append(try JSONOutput.encode(member.key))
                pending.append(contentsOf: " : ".utf8)
                pending.append(Self.indented(try JSONOutput.encode(member.value), by: "  ", indentsFirstLine: false))
            }
            pending.append(contentsOf: "\n}\n".utf8)
            output.write(data: pending)
            pending = Data()
        }

        /// `json` with `indent` before each of its lines that is not empty (a pretty-printed value has no
        /// line break inside a string), the first only if `indentsFirstLine`: nested one level further in.
        private static func indented(_ json: Data, by indent: String, indentsFirstLine: Bool) -> Data {
            var result = Data(capacity: json.count + json.count / 4)
            var start = json.startIndex
            var isFirstLine = true
            while start < json.endIndex {
                let end = json[start...].firstIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? json.endIndex
                if (!isFirstLine || indentsFirstLine) && json[start] != UInt8(ascii: "\n") {
                    result.append(contentsOf: indent.utf8)
                }
                result.append(json[start..<end])
                start = end
                isFirstLine = false
            }
            return result
        }
    }
}
