import FoundationEssentials
import HTTPCore

/// Writes one flat JSON object with its keys in the given order, for JSON-lines output.
enum JSONLine {
    enum Value: ExpressibleByStringLiteral {
        case string(String)
        case int(Int)
        case double(Double)
        case bool(Bool)

        init(stringLiteral value: String) {
            self = .string(value)
        }
    }

    static func encode(_ fields: [(String, Value)]) -> String {
        "{" + fields.map { key, value in "\(JSONString.quoted(key)):\(render(value))" }.joined(separator: ",") + "}"
    }

    private static func render(_ value: Value) -> String {
        switch value {
        case .string(let text): JSONString.quoted(text)
        case .int(let number): String(number)
        case .double(let number): number.isFinite ? String(printf: "%.3f", number) : "null"
        case .bool(let flag): flag ? "true" : "false"
        }
    }
}
