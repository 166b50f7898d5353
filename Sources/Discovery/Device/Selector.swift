import FoundationEssentials

/// A selector list (Selectors Level 4), parsed for matching against a ``DocumentTree``.
///
/// Type, universal, id, class and attribute selectors (§6, §7), the four combinators (§16),
/// `:is()`, `:where()`, `:not()`, `:has()` (§4), the tree-structural pseudo-classes (§14) and
/// `:root`, `:link`, `:any-link` are decided from the tree. Pseudo-classes that depend on state the
/// scanner cannot see (`:hover`, `:checked`, `:empty`, `:lang()`…) are undecided, and a rule whose
/// selector is undecided counts as matching; pseudo-elements (`::before`) match where their
/// originating element does.
public struct SelectorList: Sendable, Hashable {
    /// The text as written.
    public let text: String
    /// The complex selectors; `nil` when the list does not parse (then nothing is decided).
    let selectors: [ComplexSelector]?

    /// Parses a selector list.
    public init(_ text: String) {
        self.text = text
        var cursor = CSSValueCursor(text)
        let parsed = SelectorParser.list(&cursor, forgiving: false)
        // A selector Chromium rejects makes it drop the whole rule: the list matches nothing.
        let rejected = parsed?.contains { $0.compounds.contains { $0.simple.contains(.invalid) } } ?? false
        selectors = rejected ? [] : parsed
    }

    init(selectors: [ComplexSelector]?, text: String) {
        self.text = text
        self.selectors = selectors
    }
}

/// Compound selectors joined by combinators, read left to right.
struct ComplexSelector: Sendable, Hashable {
    enum Combinator: Sendable, Hashable {
        case descendant, child, nextSibling, subsequentSibling
    }

    /// The compounds; `combinators[i]` joins `compounds[i]` and `compounds[i + 1]`.
    var compounds: [CompoundSelector]
    var combinators: [Combinator]
    /// For a relative selector in `:has()`: how the anchor relates to the first compound.
    var leading: Combinator?
}

struct CompoundSelector: Sendable, Hashable {
    /// The type selector's name in lower case; `nil` for none or `*`.
    var name: String?
    var simple: [SimpleSelector] = []
}

indirect enum SimpleSelector: Sendable, Hashable {
    enum AttributeMatch: Sendable, Hashable {
        case exists, equals, includes, dashMatch, prefix, suffix, substring
    }

    enum Nth: Sendable, Hashable {
        case child, lastChild, ofType, lastOfType
    }

    case id(String)
    case className(String)
    case attribute(name: String, match: AttributeMatch, value: String, caseInsensitive: Bool)
    case `is`([ComplexSelector])
    case not([ComplexSelector])
    case has([ComplexSelector])
    case nth(Nth, a: Int, b: Int, of: [ComplexSelector]?)
    case root
    case link
    /// The element at this index only: the anchor of a `:has()` relative selector.
    case anchor(Int)
    /// A pseudo-element: its originating element is what is matched.
    case pseudoElement
    /// State the scanner cannot know.
    case undecided
    /// A selector Chromium rejects (another engine's prefix): the whole list never matches.
    case invalid
}

/// A recursive-descent parser over value tokens (Selectors Level 4 §18 "Grammar").
enum SelectorParser {
    /// Pseudo-classes that depend on user interaction, form state, text or language.
    private static let statePseudoClasses: Set<String> = [
        "hover", "active", "focus", "focus-within", "focus-visible", "visited", "target", "target-within",
        "checked", "disabled", "enabled", "indeterminate", "default", "required", "optional", "valid", "invalid",
        "in-range", "out-of-range", "read-only", "read-write", "placeholder-shown", "autofill", "-webkit-autofill",
        "empty", "blank", "lang", "dir", "fullscreen", "modal", "open", "closed", "popover-open", "playing", "paused",
        "user-invalid", "user-valid", "defined", "host", "host-context", "current", "past", "future",
        "local-link", "picture-in-picture", "state", "-webkit-full-screen", "-internal-autofill-selected",
        "first", "left", "right",
    ]
    /// Pseudo-elements that CSS 2 wrote with one colon.
    private static let legacyPseudoElements: Set<String> = ["before", "after", "first-line", "first-letter"]

    /// A comma-separated list; a forgiving list (`:is()`, `:where()`) drops the selectors that fail.
    static func list(_ cursor: inout CSSValueCursor, forgiving: Bool, relative: Bool = false) -> [ComplexSelector]? {
        var result: [ComplexSelector] = []
        for part in Array(cursor.tokens[cursor.position...]).splitAtTopLevelCommas() {
            var inner = CSSValueCursor(part)
            if let selector = complex(&inner, relative: relative), inner.peek == nil {
                result.append(selector)
            } else if !forgiving {
                return nil
            }
        }
        cursor.position = cursor.tokens.count
        return result
    }

    private static func complex(_ cursor: inout CSSValueCursor, relative: Bool) -> ComplexSelector? {
        var selector = ComplexSelector(compounds: [], combinators: [])
        if relative, let leading = combinator(&cursor) { selector.leading = leading }
        guard let first = compound(&cursor) else { return nil }
        selector.compounds.append(first)
        while cursor.peek != nil {
            let hadSpace = cursor.tokens.indices.contains(cursor.position)
                && cursor.tokens[cursor.position] == .whitespace
            let joined = combinator(&cursor) ?? (hadSpace ? .descendant : nil)
            guard let joined, let next = compound(&cursor) else { return nil }
            selector.combinators.append(joined)
            selector.compounds.append(next)
        }
        return selector
    }

    private static func combinator(_ cursor: inout CSSValueCursor) -> ComplexSelector.Combinator? {
        switch cursor.peek {
        case .delim(">"): _ = cursor.next(); return .child
        case .delim("+"): _ = cursor.next(); return .nextSibling
        case .delim("~"): _ = cursor.next(); return .subsequentSibling
        default: return nil
        }
    }

    private static func compound(_ cursor: inout CSSValueCursor) -> CompoundSelector? {
        cursor.skipWhitespace()
        var compound = CompoundSelector()
        var parsedAny = false
        // The type selector, with an optional namespace prefix (`svg|rect`, `*|a`).
        if cursor.position < cursor.tokens.count {
            switch cursor.tokens[cursor.position] {
            case .ident(let name):
                cursor.position += 1
                compound.name = name.lowercased()
                parsedAny = true
            case .delim("*"):
                cursor.position += 1
                parsedAny = true
            default: break
            }
            if cursor.position < cursor.tokens.count, cursor.tokens[cursor.position] == .delim("|") {
                cursor.position += 1
                if cursor.position < cursor.tokens.count, case .ident(let name) = cursor.tokens[cursor.position] {
                    compound.name = name.lowercased()
                } else {
                    compound.name = nil
                }
                cursor.position += 1
            }
        }
        while cursor.position < cursor.tokens.count {
            let token = cursor.tokens[cursor.position]
            switch token {
            case .hash(let id):
                cursor.position += 1
                compound.simple.append(.id(id))
            case .delim("."):
                cursor.position += 1
                guard cursor.position < cursor.tokens.count, case .ident(let name) = cursor.tokens[cursor.position]
                else { return nil }
                cursor.position += 1
                compound.simple.append(.className(name))
            case .openBracket:
                cursor.position += 1
                guard let attribute = attribute(cursor.takeBlock(closing: .closeBracket)) else { return nil }
                compound.simple.append(attribute)
            case .colon:
                cursor.position += 1
                guard let pseudo = pseudo(&cursor) else { return nil }
                compound.simple.append(pseudo)
            default:
                return parsedAny || !compound.simple.isEmpty ? compound : nil
            }
            parsedAny = true
        }
        return parsedAny ? compound : nil
    }

    private static func attribute(_ tokens: [CSSValueToken]) -> SimpleSelector? {
        let parts = tokens.filter { $0 != .whitespace }
        guard case .ident(let rawName)? = parts.first else { return nil }
        let name = rawName.lowercased()
        guard parts.count > 1 else { return .attribute(name: name, match: .exists, value: "", caseInsensitive: false) }
        var index = 1
        var match = SimpleSelector.AttributeMatch.equals
        if case .delim(let scalar) = parts[index], scalar != "=" {
            switch scalar {
            case "~": match = .includes
            case "|": match = .dashMatch
            case "^": match = .prefix
            case "$": match = .suffix
            case "*": match = .substring
            default: return nil
            }
            index += 1
        }
        guard index + 1 < parts.count, parts[index] == .delim("=") else { return nil }
        let value: String
        switch parts[index + 1] {
        case .ident(let text), .string(let text): value = text
        default: return nil
        }
        var caseInsensitive = false
        if index + 2 < parts.count {
            guard case .ident(let flag) = parts[index + 2], index + 3 == parts.count else { return nil }
            caseInsensitive = flag.lowercased() == "i"
        }
        return .attribute(name: name, match: match, value: value, caseInsensitive: caseInsensitive)
    }

    private static func pseudo(_ cursor: inout CSSValueCursor) -> SimpleSelector? {
        guard cursor.position < cursor.tokens.count else { return nil }
        if cursor.tokens[cursor.position] == .colon {
            // A pseudo-element: its name, and arguments if any, are skipped.
            cursor.position += 1
            guard cursor.position < cursor.tokens.count else { return nil }
            switch cursor.tokens[cursor.position] {
            case .ident(let name):
                cursor.position += 1
                return isForeignPrefix(name) ? .invalid : .pseudoElement
            case .function(let name):
                cursor.position += 1
                _ = cursor.takeBlock()
                return isForeignPrefix(name) ? .invalid : .pseudoElement
            default:
                return nil
            }
        }
        switch cursor.tokens[cursor.position] {
        case .ident(let rawName):
            cursor.position += 1
            let name = rawName.lowercased()
            switch name {
            case "root", "scope": return .root
            case "link", "any-link", "-webkit-any-link": return .link
            case "first-child": return .nth(.child, a: 0, b: 1, of: nil)
            case "last-child": return .nth(.lastChild, a: 0, b: 1, of: nil)
            case "only-child": return .is([only(.child, .lastChild)])
            case "first-of-type": return .nth(.ofType, a: 0, b: 1, of: nil)
            case "last-of-type": return .nth(.lastOfType, a: 0, b: 1, of: nil)
            case "only-of-type": return .is([only(.ofType, .lastOfType)])
            default:
                if legacyPseudoElements.contains(name) { return .pseudoElement }
                if statePseudoClasses.contains(name) { return .undecided }
                return isForeignPrefix(name) ? .invalid : .undecided
            }
        case .function(let name):
            cursor.position += 1
            var inner = CSSValueCursor(cursor.takeBlock())
            switch name {
            case "is", "where", "matches", "-webkit-any":
                return .is(list(&inner, forgiving: true) ?? [])
            case "not":
                guard let selectors = list(&inner, forgiving: false) else { return nil }
                return .not(selectors)
            case "has":
                guard let selectors = list(&inner, forgiving: false, relative: true) else { return nil }
                return .has(selectors)
            case "nth-child", "nth-last-child", "nth-of-type", "nth-last-of-type":
                let kind: SimpleSelector.Nth =
                    switch name {
                    case "nth-child": .child
                    case "nth-last-child": .lastChild
                    case "nth-of-type": .ofType
                    default: .lastOfType
                    }
                return nth(kind, inner.tokens)
            default:
                return isForeignPrefix(name) ? .invalid : .undecided
            }
        default:
            return nil
        }
    }

    private static func only(_ first: SimpleSelector.Nth, _ last: SimpleSelector.Nth) -> ComplexSelector {
        ComplexSelector(
            compounds: [
                CompoundSelector(
                    name: nil, simple: [.nth(first, a: 0, b: 1, of: nil), .nth(last, a: 0, b: 1, of: nil)]),
            ],
            combinators: [])
    }

    /// `an+b [of S]?` (CSS Syntax §6 "The An+B microsyntax"), read from the argument's text.
    private static func nth(_ kind: SimpleSelector.Nth, _ tokens: [CSSValueToken]) -> SimpleSelector? {
        var formula = tokens
        var of: [ComplexSelector]?
        if let ofIndex = tokens.firstIndex(where: { $0.identifier?.lowercased() == "of" }) {
            formula = Array(tokens[..<ofIndex])
            var rest = CSSValueCursor(Array(tokens[(ofIndex + 1)...]))
            guard let selectors = list(&rest, forgiving: false) else { return nil }
            of = selectors
        }
        var text = ""
        for token in formula {
            switch token {
            case .ident(let name): text += name.lowercased()
            case .number(let value): text += (value >= 0 && !text.isEmpty ? "+" : "") + String(Int(value))
            case .dimension(let value, let unit):
                text += (value >= 0 && !text.isEmpty ? "+" : "") + String(Int(value)) + unit
            case .delim(let scalar): text.unicodeScalars.append(scalar)
            case .whitespace: continue
            default: return nil
            }
        }
        switch text {
        case "odd": return .nth(kind, a: 2, b: 1, of: of)
        case "even": return .nth(kind, a: 2, b: 0, of: of)
        default: break
        }
        guard let nIndex = text.firstIndex(of: "n") else {
            guard let b = Int(text.replacing("+", with: "")) else { return nil }
            return .nth(kind, a: 0, b: b, of: of)
        }
        let aText = String(text[..<nIndex])
        let bText = String(text[text.index(after: nIndex)...]).replacing("+", with: "")
        let a: Int
        switch aText {
        case "", "+": a = 1
        case "-": a = -1
        default:
            guard let value = Int(aText.replacing("+", with: "")) else { return nil }
            a = value
        }
        let b = bText.isEmpty ? 0 : Int(bText.replacing("--", with: "")) ?? Int.min
        guard b != Int.min else { return nil }
        return .nth(kind, a: a, b: b, of: of)
    }

    /// Another engine's vendor prefix, which Chromium rejects in a selector.
    private static func isForeignPrefix(_ name: String) -> Bool {
        let lowered = name.lowercased()
        return lowered.hasPrefix("-moz-") || lowered.hasPrefix("-ms-") || lowered.hasPrefix("-o-")
    }
}
