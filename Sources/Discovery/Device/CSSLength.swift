/// CSS lengths as a device resolves them: absolute units, font-relative units at the initial font
/// size, viewport units, and math functions (CSS Values and Units Level 4).
enum CSSLength {
    /// The initial font size, which `em`, `rem`, `ex` and `ch` are relative to in media queries and
    /// `sizes` (Media Queries Level 4 §1.3 "Units": "relative units … are based on the initial value").
    static let initialFontSize = 16.0

    /// Pixels per unit (CSS Values 4 §6.2 "Absolute lengths", §6.1 "Relative lengths"), or `nil` for
    /// a unit that is not a length.
    static func pixels(per unit: String, device: DeviceProfile) -> Double? {
        switch unit {
        case "px": 1
        case "in": 96
        case "cm": 96 / 2.54
        case "mm": 96 / 25.4
        case "q": 96 / 101.6
        case "pt": 96.0 / 72
        case "pc": 16
        case "em", "rem", "lh", "rlh": initialFontSize
        // The initial font's x-height and "0" advance; Chromium's default fonts measure about half an em.
        case "ex", "rex", "ch", "rch", "cap", "rcap": initialFontSize / 2
        case "ic", "ric": initialFontSize
        case "vw", "svw", "lvw", "dvw", "vi", "svi", "lvi", "dvi": Double(device.viewportWidth) / 100
        case "vh", "svh", "lvh", "dvh", "vb", "svb", "lvb", "dvb": Double(device.viewportHeight) / 100
        case "vmin", "svmin", "lvmin", "dvmin": Double(min(device.viewportWidth, device.viewportHeight)) / 100
        case "vmax", "svmax", "lvmax", "dvmax": Double(max(device.viewportWidth, device.viewportHeight)) / 100
        default: nil
        }
    }

    /// The length the tokens spell, in CSS pixels: a dimension, a unitless `0`, or `calc()`, `min()`,
    /// `max()`, `clamp()` over them; `nil` when the tokens are not one length.
    static func resolve(_ tokens: [CSSValueToken], device: DeviceProfile) -> Double? {
        var cursor = CSSValueCursor(tokens)
        guard let value = parseLength(&cursor, device: device), cursor.peek == nil else { return nil }
        return value
    }

    /// Parses one length from the cursor.
    static func parseLength(_ cursor: inout CSSValueCursor, device: DeviceProfile) -> Double? {
        switch cursor.next() {
        case .dimension(let value, let unit):
            return pixels(per: unit, device: device).map { value * $0 }
        case .number(0):
            return 0
        case .function(let name) where mathFunctions.contains(name):
            var inner = CSSValueCursor(cursor.takeBlock())
            guard case .length(let pixels)? = MathExpression.function(name, &inner, device: device) else { return nil }
            return pixels
        default:
            return nil
        }
    }

    static let mathFunctions: Set<String> = ["calc", "-webkit-calc", "min", "max", "clamp"]
}

/// The value of a math expression (CSS Values 4 §10 "Mathematical expressions"): a number or a
/// length in pixels; percentages are not resolved here (`sizes` and media queries have none).
enum MathExpression: Equatable {
    case number(Double)
    case length(Double)

    /// Evaluates `name(…)` whose arguments the cursor holds; `nil` when invalid or mistyped.
    static func function(_ name: String, _ cursor: inout CSSValueCursor, device: DeviceProfile) -> MathExpression? {
        if name == "calc" || name == "-webkit-calc" {
            guard let value = sum(&cursor, device: device), cursor.peek == nil else { return nil }
            return value
        }
        var arguments: [MathExpression] = []
        for part in cursor.tokens[cursor.position...].map({ $0 }).splitAtTopLevelCommas() {
            var argument = CSSValueCursor(part)
            guard let value = sum(&argument, device: device), argument.peek == nil else { return nil }
            arguments.append(value)
        }
        cursor.position = cursor.tokens.count
        guard let first = arguments.first, arguments.allSatisfy({ $0.isLength == first.isLength }) else { return nil }
        let values = arguments.map(\.magnitude)
        let result: Double
        switch name {
        case "min": result = values.min()!
        case "max": result = values.max()!
        default:
            guard values.count == 3 else { return nil }
            result = max(values[0], min(values[1], values[2]))
        }
        return first.isLength ? .length(result) : .number(result)
    }

    var isLength: Bool {
        if case .length = self { return true }
        return false
    }

    var magnitude: Double {
        switch self {
        case .number(let value), .length(let value): value
        }
    }

    /// `<calc-sum> = <calc-product> [ [ '+' | '-' ] <calc-product> ]*`
    private static func sum(_ cursor: inout CSSValueCursor, device: DeviceProfile) -> MathExpression? {
        guard var result = product(&cursor, device: device) else { return nil }
        while true {
            let sign: Double
            switch cursor.peek {
            case .delim("+"): sign = 1
            case .delim("-"): sign = -1
            // "+1px" and "-1px" tokenize as signed numbers: the sign is the operator.
            case .number(let value) where value < 0, .dimension(let value, _) where value < 0: sign = 0
            default: return result
            }
            if sign != 0 { _ = cursor.next() }
            guard let operand = product(&cursor, device: device), operand.isLength == result.isLength else {
                return nil
            }
            let delta = sign == 0 ? operand.magnitude : sign * operand.magnitude
            result = result.isLength ? .length(result.magnitude + delta) : .number(result.magnitude + delta)
        }
    }

    /// `<calc-product> = <calc-value> [ [ '*' | '/' ] <calc-value> ]*`
    private static func product(_ cursor: inout CSSValueCursor, device: DeviceProfile) -> MathExpression? {
        guard var result = value(&cursor, device: device) else { return nil }
        while true {
            let divides: Bool
            switch cursor.peek {
            case .delim("*"): divides = false
            case .delim("/"): divides = true
            default: return result
            }
            _ = cursor.next()
            guard let operand = value(&cursor, device: device) else { return nil }
            if divides {
                // "/": the right side must be a number, and not zero.
                guard case .number(let divisor) = operand, divisor != 0 else { return nil }
                result = result.isLength ? .length(result.magnitude / divisor) : .number(result.magnitude / divisor)
            } else {
                // "*": at least one side must be a number.
                guard !(result.isLength && operand.isLength) else { return nil }
                let product = result.magnitude * operand.magnitude
                result = result.isLength || operand.isLength ? .length(product) : .number(product)
            }
        }
    }

    /// `<calc-value> = <number> | <dimension> | ( <calc-sum> ) | a nested math function`
    private static func value(_ cursor: inout CSSValueCursor, device: DeviceProfile) -> MathExpression? {
        switch cursor.next() {
        case .number(let value):
            return .number(value)
        case .dimension(let value, let unit):
            return CSSLength.pixels(per: unit, device: device).map { .length(value * $0) }
        case .openParen:
            var inner = CSSValueCursor(cursor.takeBlock())
            guard let value = sum(&inner, device: device), inner.peek == nil else { return nil }
            return value
        case .function(let name) where CSSLength.mathFunctions.contains(name):
            var inner = CSSValueCursor(cursor.takeBlock())
            return function(name, &inner, device: device)
        default:
            return nil
        }
    }
}
