import FoundationEssentials

/// A JSON value: the DevTools protocol's messages, a token endpoint's answer, a web app manifest.
/// Sendable, so that messages can cross from the pipe's reading thread to the tasks that wait for them.
///
/// A number written without a fraction or an exponent that fits 64 bits is read as an ``integer(_:)``,
/// exactly (a user id above 2⁵³ keeps its last digits); any other as a ``number(_:)``. The two compare
/// (and hash) by value: `.integer(2)` equals `.number(2.0)`.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    // MARK: - Reading

    /// The member `key` of an object; `nil` for anything else or a missing member.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The string, if this is one.
    public var stringValue: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The number, if this is one (an integer beyond 2⁵³ rounded to the nearest `Double`).
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .number(let value): value
        default: nil
        }
    }

    /// The number as an integer, if this is a number with no fraction that `Int` holds exactly.
    public var intValue: Int? {
        int64Value.flatMap { Int(exactly: $0) }
    }

    /// The number as a 64-bit integer, if this is a number with no fraction within 64 bits: what
    /// makes `.integer(2)` and `.number(2.0)` one value.
    public var int64Value: Int64? {
        switch self {
        case .integer(let value): value
        case .number(let value): Int64(exactly: value)
        default: nil
        }
    }

    public static func == (left: JSONValue, right: JSONValue) -> Bool {
        switch (left, right) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer, .integer), (.integer, .number), (.number, .integer):
            left.int64Value.map { $0 == right.int64Value } ?? false
        case (.number(let a), .number(let b)): a == b
        case (.string(let a), .string(let b)): a == b
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)): a == b
        default: false
        }
    }

    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null: hasher.combine(0)
        case .bool(let value): hasher.combine(1); hasher.combine(value)
        case .integer, .number:
            hasher.combine(2)
            if let whole = int64Value { hasher.combine(whole) } else { hasher.combine(doubleValue) }
        case .string(let value): hasher.combine(3); hasher.combine(value)
        case .array(let value): hasher.combine(4); hasher.combine(value)
        case .object(let value): hasher.combine(5); hasher.combine(value)
        }
    }

    /// The Boolean, if this is one.
    public var boolValue: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    // MARK: - Coding

    /// Parses one JSON text.
    /// - Throws: an error naming the byte where `data` stops being JSON.
    public static func parse(_ data: Data) throws -> JSONValue {
        try JSONParser.parse(data)
    }

    /// The JSON text of this value.
    public func serialized() -> Data {
        var output: [UInt8] = []
        JSONParser.write(self, to: &output)
        return Data(output)
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByFloatLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
