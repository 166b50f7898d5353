/// One media feature test (Media Queries Level 4 §4 "Media features" and §4.1 "Media feature types").
///
/// Plain (`(min-width: 600px)`), boolean (`(color)`) and range (`(400px <= width < 700px)`) forms.
/// Range features are compared as numbers in canonical units (pixels, dppx, a ratio's quotient);
/// discrete features as keywords. A feature or value this code does not know is unknown.
struct MediaFeature: Sendable, Hashable {
    enum Comparison: Sendable, Hashable {
        case less, lessOrEqual, equal, greaterOrEqual, greater

        func holds(_ left: Double, _ right: Double) -> Bool {
            // Pixel values are compared with a small tolerance, as fractional CSS pixels are.
            let epsilon = 1e-9
            switch self {
            case .less: return left < right - epsilon
            case .lessOrEqual: return left <= right + epsilon
            case .equal: return abs(left - right) <= epsilon
            case .greaterOrEqual: return left >= right - epsilon
            case .greater: return left > right + epsilon
            }
        }

        /// The comparison seen from the other side: `a < b` is `b > a`.
        var flipped: Comparison {
            switch self {
            case .less: .greater
            case .lessOrEqual: .greaterOrEqual
            case .equal: .equal
            case .greaterOrEqual: .lessOrEqual
            case .greater: .less
            }
        }
    }

    enum Value: Sendable, Hashable {
        case number(Double)
        case dimension(Double, String)
        case ratio(Double, Double)
        case keyword(String)
        /// A math function such as `calc(700px + 10em)`, resolved for the device.
        case expression([CSSValueToken])
    }

    /// One bound of a comparison: the feature compared with a value.
    struct Bound: Sendable, Hashable {
        var comparison: Comparison
        var value: Value
    }

    enum Test: Sendable, Hashable {
        case boolean
        /// `feature op value`, already turned around when the value was written first.
        case compare([Bound])
    }

    var name: String
    var test: Test

    // MARK: - Parsing

    /// Parses the tokens inside `( )`; `nil` when they are not a media feature (then the parentheses
    /// are `<general-enclosed>`).
    static func parse(_ tokens: [CSSValueToken]) -> MediaFeature? {
        let parts = tokens.filter { $0 != .whitespace }
        if parts.count == 1, case .ident(let name) = parts[0] {
            return MediaFeature(name: name.lowercased(), test: .boolean)
        }
        if parts.count >= 3, case .ident(let rawName) = parts[0], parts[1] == .colon {
            guard let value = parseValue(Array(parts[2...])) else { return nil }
            var name = rawName.lowercased()
            let comparison: Comparison
            if name.hasPrefix("min-") {
                comparison = .greaterOrEqual
                name.removeFirst(4)
            } else if name.hasPrefix("max-") {
                comparison = .lessOrEqual
                name.removeFirst(4)
            } else if name.hasPrefix("-webkit-min-") || name.hasPrefix("-webkit-max-") {
                comparison = name.hasPrefix("-webkit-min-") ? .greaterOrEqual : .lessOrEqual
                name = "-webkit-" + name.dropFirst(12)
            } else {
                comparison = .equal
            }
            // §4.1: "min-" and "max-" apply only to range features.
            if comparison != .equal, !rangeFeatures.contains(name) { return nil }
            return MediaFeature(name: name, test: .compare([Bound(comparison: comparison, value: value)]))
        }
        return parseRange(parts)
    }

    /// `<mf-range>`: `name op value`, `value op name`, `value op name op value` (§3 grammar).
    private static func parseRange(_ parts: [CSSValueToken]) -> MediaFeature? {
        var index = 0
        var pieces: [Either] = []
        while index < parts.count {
            if let (comparison, length) = comparisonOperator(parts, at: index) {
                pieces.append(.comparison(comparison))
                index += length
                continue
            }
            var end = index
            while end < parts.count, comparisonOperator(parts, at: end) == nil { end += 1 }
            let operand = Array(parts[index..<end])
            if operand.count == 1, case .ident(let name) = operand[0] {
                pieces.append(.name(name.lowercased()))
            } else if let value = parseValue(operand) {
                pieces.append(.value(value))
            } else {
                return nil
            }
            index = end
        }
        switch pieces.count {
        case 3:
            if case .name(let name) = pieces[0], case .comparison(let op) = pieces[1],
                case .value(let value) = pieces[2]
            {
                return ranged(name, [Bound(comparison: op, value: value)])
            }
            if case .value(let value) = pieces[0], case .comparison(let op) = pieces[1],
                case .name(let name) = pieces[2]
            {
                return ranged(name, [Bound(comparison: op.flipped, value: value)])
            }
            return nil
        case 5:
            guard case .value(let low) = pieces[0], case .comparison(let first) = pieces[1],
                case .name(let name) = pieces[2], case .comparison(let second) = pieces[3],
                case .value(let high) = pieces[4]
            else { return nil }
            // Both operators must point the same way: "a < x < b" or "a > x > b".
            let ascending: Set<Comparison> = [.less, .lessOrEqual]
            let descending: Set<Comparison> = [.greater, .greaterOrEqual]
            guard (ascending.contains(first) && ascending.contains(second))
                || (descending.contains(first) && descending.contains(second))
            else { return nil }
            return ranged(name, [Bound(comparison: first.flipped, value: low), Bound(comparison: second, value: high)])
        default:
            return nil
        }
    }

    private static func ranged(_ name: String, _ tests: [Bound]) -> MediaFeature? {
        guard rangeFeatures.contains(name) else { return nil }
        return MediaFeature(name: name, test: .compare(tests))
    }

    private enum Either {
        case name(String), value(Value), comparison(Comparison)
    }

    private static func comparisonOperator(_ parts: [CSSValueToken], at index: Int) -> (Comparison, Int)? {
        guard case .delim(let scalar) = parts[index] else { return nil }
        let followedByEquals = index + 1 < parts.count && parts[index + 1] == .delim("=")
        switch scalar {
        case "<": return followedByEquals ? (.lessOrEqual, 2) : (.less, 1)
        case ">": return followedByEquals ? (.greaterOrEqual, 2) : (.greater, 1)
        case "=": return (.equal, 1)
        default: return nil
        }
    }

    private static func parseValue(_ parts: [CSSValueToken]) -> Value? {
        if case .function(let name)? = parts.first, CSSLength.mathFunctions.contains(name) {
            return .expression(parts)
        }
        switch parts.count {
        case 1:
            switch parts[0] {
            case .number(let value): return .number(value)
            case .dimension(let value, let unit): return .dimension(value, unit)
            case .ident(let keyword): return .keyword(keyword.lowercased())
            default: return nil
            }
        case 3:
            guard case .number(let numerator) = parts[0], parts[1] == .delim("/"),
                case .number(let denominator) = parts[2]
            else { return nil }
            return .ratio(numerator, denominator)
        default:
            return nil
        }
    }

    // MARK: - Evaluation

    /// The range features (§4.1 "range" type), by canonical name.
    static let rangeFeatures: Set<String> = [
        "width", "height", "aspect-ratio", "resolution", "device-width", "device-height", "device-aspect-ratio",
        "color", "color-index", "monochrome", "-webkit-device-pixel-ratio",
    ]

    func evaluate(_ device: DeviceProfile) -> Truth {
        guard let actual = Self.actualValue(of: name, device: device) else { return .unknown }
        switch test {
        case .boolean:
            // §2.4.4 "Evaluating Media Features in a Boolean Context": true unless the value is 0 or "none".
            switch actual {
            case .number(let value): return Truth(value != 0)
            case .keyword(let keyword): return Truth(keyword != "none" && keyword != "no-preference")
            }
        case .compare(let tests):
            var result = Truth.true
            for bound in tests {
                result = result && Self.compare(actual, bound.comparison, bound.value, feature: name, device: device)
            }
            return result
        }
    }

    private enum Actual {
        case number(Double)
        case keyword(String)
    }

    /// The device's value: a number in canonical units for range features, a keyword for discrete ones.
    private static func actualValue(of name: String, device: DeviceProfile) -> Actual? {
        let width = Double(device.viewportWidth)
        let height = Double(device.viewportHeight)
        let screenWidth = Double(device.screenWidth)
        let screenHeight = Double(device.screenHeight)
        switch name {
        // §4.1–4.4 "Viewport/Page Characteristics": of the layout viewport, and the `device-` ones
        // (deprecated, §4.5 Level 4) of the screen.
        case "width": return .number(width)
        case "height": return .number(height)
        case "aspect-ratio": return .number(width / height)
        case "device-width": return .number(screenWidth)
        case "device-height": return .number(screenHeight)
        case "device-aspect-ratio": return .number(screenWidth / screenHeight)
        case "orientation": return .keyword(height >= width ? "portrait" : "landscape")
        // §5.1 "resolution" in dppx; -webkit-device-pixel-ratio as Chromium reads it.
        case "resolution", "-webkit-device-pixel-ratio": return .number(device.devicePixelRatio)
        case "scan": return .keyword("progressive")
        case "grid": return .number(0)
        case "update": return .keyword("fast")
        case "overflow-block", "overflow-inline": return .keyword("scroll")
        // §6 "Color": 8 bits per component on an sRGB screen, not monochrome.
        case "color": return .number(8)
        case "color-index", "monochrome": return .number(0)
        case "color-gamut": return .keyword("srgb")
        case "dynamic-range", "video-dynamic-range": return .keyword("standard")
        case "inverted-colors", "forced-colors": return .keyword("none")
        // §7 "Interaction": the device's pointer.
        case "pointer", "any-pointer": return .keyword(device.pointer.rawValue)
        case "hover", "any-hover": return .keyword(device.pointer == .fine ? "hover" : "none")
        // Media Queries Level 5 §11 "User Preference Media Features".
        case "prefers-color-scheme", "prefers-reduced-motion":
            return device.preferenceFeatures.first { $0.name == name }.map { .keyword($0.keyword) }
        case "prefers-contrast", "prefers-reduced-transparency", "prefers-reduced-data":
            return .keyword("no-preference")
        case "scripting": return .keyword("enabled")
        case "display-mode": return .keyword("browser")
        default: return nil
        }
    }

    private static func compare(
        _ actual: Actual, _ comparison: Comparison, _ value: Value, feature: String, device: DeviceProfile
    ) -> Truth {
        switch actual {
        case .keyword(let keyword):
            guard comparison == .equal, case .keyword(let expected) = value else { return .false }
            return Truth(keyword == expected)
        case .number(let number):
            guard let expected = canonical(value, feature: feature, device: device) else { return .false }
            return Truth(comparison.holds(number, expected))
        }
    }

    /// A written value in the feature's canonical unit; `nil` when its type does not fit (then the
    /// feature is false, as a mistyped value makes the query invalid).
    private static func canonical(_ value: Value, feature: String, device: DeviceProfile) -> Double? {
        switch feature {
        case "width", "height", "device-width", "device-height":
            switch value {
            case .dimension(let number, let unit):
                return CSSLength.pixels(per: unit, device: device).map { number * $0 }
            case .number(0): return 0
            case .expression(let tokens): return CSSLength.resolve(tokens, device: device)
            default: return nil
            }
        case "aspect-ratio", "device-aspect-ratio":
            switch value {
            case .ratio(let numerator, let denominator) where denominator != 0: return numerator / denominator
            case .number(let number): return number
            default: return nil
            }
        case "resolution":
            guard case .dimension(let number, let unit) = value else { return nil }
            switch unit {
            case "dppx", "x": return number
            case "dpi": return number / 96
            case "dpcm": return number * 2.54 / 96
            default: return nil
            }
        default:
            guard case .number(let number) = value else { return nil }
            return number
        }
    }
}
