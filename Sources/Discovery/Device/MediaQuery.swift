/// A media query list (Media Queries Level 4), parsed once and evaluated for any device.
///
/// ```swift
/// let query = MediaQueryList("screen and (400px <= width < 700px), print")
/// query.matches(.phone)   // true
/// ```
///
/// Evaluation is three-valued as §3 "Syntax" and §3.2 "Evaluating" say: a `<general-enclosed>`
/// (a feature this code does not know, or a value it cannot read) is *unknown*; `not unknown` is
/// unknown, and a query that is unknown at the top level is false. A query that does not parse is
/// `not all` (§3.1 "Error handling") and the others of its list still count. An empty list is true.
public struct MediaQueryList: Sendable, Hashable, CustomStringConvertible {
    /// The text as written.
    public let text: String
    private let queries: [MediaQuery]

    /// Parses a media query list; invalid queries become `not all`.
    public init(_ text: String) {
        self.text = text
        let tokens = CSSValueTokenizer.tokens(text)
        if tokens.allSatisfy({ $0 == .whitespace }) {
            queries = []
        } else {
            queries = tokens.splitAtTopLevelCommas().map { MediaQuery.parse($0) ?? .invalid }
        }
    }

    /// Whether the list matches `device`: some query in it does, or it is empty (§2.1).
    public func matches(_ device: DeviceProfile) -> Bool {
        queries.isEmpty || queries.contains { $0.evaluate(device) == .true }
    }

    /// Parses a `<media-condition>` alone, as `sizes` and `<source media>` hold; `nil` when invalid.
    static func condition(_ tokens: [CSSValueToken]) -> MediaCondition? {
        var cursor = CSSValueCursor(tokens)
        guard let condition = MediaCondition.parse(&cursor, allowsOr: true), cursor.peek == nil else { return nil }
        return condition
    }

    public var description: String { text }
}

/// One `<media-query>` (§3).
enum MediaQuery: Sendable, Hashable {
    /// `[not | only]? <media-type> [and <media-condition-without-or>]?`
    case typed(negated: Bool, type: String, condition: MediaCondition?)
    case condition(MediaCondition)
    /// A query that failed to parse: `not all`.
    case invalid

    static func parse(_ tokens: [CSSValueToken]) -> MediaQuery? {
        var cursor = CSSValueCursor(tokens)
        if case .ident(let first)? = cursor.peek {
            var negated = false
            var name = first.lowercased()
            if name == "not" || name == "only" {
                var lookahead = cursor
                _ = lookahead.next()
                if case .ident(let type)? = lookahead.peek {
                    negated = name == "not"
                    cursor = lookahead
                    name = type.lowercased()
                } else if name == "only" {
                    return nil
                } else {
                    // "not (…)": a condition.
                    return parseCondition(&cursor)
                }
            }
            guard !["and", "or", "not", "only", "layer"].contains(name) else { return nil }
            _ = cursor.next()
            var condition: MediaCondition?
            if cursor.takeKeyword("and") {
                guard let parsed = MediaCondition.parse(&cursor, allowsOr: false) else { return nil }
                condition = parsed
            }
            guard cursor.peek == nil else { return nil }
            return .typed(negated: negated, type: name, condition: condition)
        }
        return parseCondition(&cursor)
    }

    private static func parseCondition(_ cursor: inout CSSValueCursor) -> MediaQuery? {
        guard let condition = MediaCondition.parse(&cursor, allowsOr: true), cursor.peek == nil else { return nil }
        return .condition(condition)
    }

    func evaluate(_ device: DeviceProfile) -> Truth {
        switch self {
        case .invalid:
            return .false
        case .condition(let condition):
            return condition.evaluate(device)
        case .typed(let negated, let type, let condition):
            // §2.3 "Media types": screen and all match a browser window; print does not; the
            // deprecated types (tty, tv, handheld…) match nothing.
            var result = Truth(type == "all" || type == "screen")
            if let condition { result = result && condition.evaluate(device) }
            // An unknown result is false before "not" applies to the query as a whole.
            if result == .unknown { result = .false }
            return negated ? !result : result
        }
    }
}

/// A `<media-condition>` (§3): features joined by `and`, `or`, `not` and parentheses.
indirect enum MediaCondition: Sendable, Hashable {
    case not(MediaCondition)
    case and([MediaCondition])
    case or([MediaCondition])
    case feature(MediaFeature)
    /// `<general-enclosed>`: valid syntax this code does not evaluate; unknown.
    case unknown

    static func parse(_ cursor: inout CSSValueCursor, allowsOr: Bool) -> MediaCondition? {
        if cursor.takeKeyword("not") {
            return parseInParens(&cursor).map { .not($0) }
        }
        guard let first = parseInParens(&cursor) else { return nil }
        var terms = [first]
        var joiner: String?
        while case .ident(let word)? = cursor.peek {
            let lowered = word.lowercased()
            guard lowered == "and" || (lowered == "or" && allowsOr), joiner == nil || joiner == lowered else {
                return nil
            }
            joiner = lowered
            _ = cursor.next()
            guard let term = parseInParens(&cursor) else { return nil }
            terms.append(term)
        }
        guard terms.count > 1 else { return first }
        return joiner == "and" ? .and(terms) : .or(terms)
    }

    /// `<media-in-parens> = ( <media-condition> ) | <media-feature> | <general-enclosed>`
    private static func parseInParens(_ cursor: inout CSSValueCursor) -> MediaCondition? {
        switch cursor.next() {
        case .openParen:
            let inner = cursor.takeBlock()
            var nested = CSSValueCursor(inner)
            if let condition = parse(&nested, allowsOr: true), nested.peek == nil { return condition }
            if let feature = MediaFeature.parse(inner) { return .feature(feature) }
            return .unknown
        case .function:
            // A function is <general-enclosed>.
            _ = cursor.takeBlock()
            return .unknown
        default:
            return nil
        }
    }

    func evaluate(_ device: DeviceProfile) -> Truth {
        switch self {
        case .not(let condition): !condition.evaluate(device)
        case .and(let terms): terms.reduce(Truth.true) { $0 && $1.evaluate(device) }
        case .or(let terms): terms.reduce(Truth.false) { $0 || $1.evaluate(device) }
        case .feature(let feature): feature.evaluate(device)
        case .unknown: .unknown
        }
    }
}
