import Foundation

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
        "{" + fields.map { key, value in "\(quote(key)):\(render(value))" }.joined(separator: ",") + "}"
    }

    private static func render(_ value: Value) -> String {
        switch value {
        case .string(let text): quote(text)
        case .int(let number): String(number)
        case .double(let number): number.isFinite ? String(format: "%.3f", number) : "null"
        case .bool(let flag): flag ? "true" : "false"
        }
    }

    /// A JSON string literal (RFC 8259 §7).
    static func quote(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20:
                result += String(format: "\\u%04x", scalar.value)
            default:
                result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}
