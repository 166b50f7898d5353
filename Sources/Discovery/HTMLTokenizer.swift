/// The part of the HTML tokenizer (HTML §13.2.5) that a preload scanner needs.
///
/// It is a pull tokenizer over Unicode scalars: ``nextToken(in:at:)`` runs until a start or end tag
/// is complete and returns it, keeping its state between pieces of input so a tag, attribute,
/// comment delimiter or character reference may be split anywhere. The tree-construction side
/// (the scanner) switches it into raw-text states after `<script>`, `<style>`, `<textarea>`… and
/// tells it whether CDATA sections are allowed (foreign content) and whether to keep text (the
/// contents of `<style>`).
///
/// Character references in text are not decoded: text is only kept for CSS. Memory per token is
/// bounded: tag and attribute names beyond ``maximumNameLength`` UTF-8 bytes are truncated, and
/// values beyond ``maximumAttributeValueLength`` scalars are dropped.
struct HTMLTokenizer: Sendable {
    /// A complete tag.
    enum Token: Sendable, Equatable {
        case startTag(HTMLTag)
        case endTag(String)
    }

    /// Tag and attribute names longer than this many UTF-8 bytes are truncated, so they match nothing.
    static let maximumNameLength = 64
    /// Attribute values longer than this (64 Ki scalars) are dropped.
    static let maximumAttributeValueLength = 64 * 1024

    private enum State {
        case data, tagOpen, endTagOpen, tagName
        case beforeAttributeName, attributeName, afterAttributeName, beforeAttributeValue
        case attributeValueDoubleQuoted, attributeValueSingleQuoted, attributeValueUnquoted, afterAttributeValueQuoted
        case selfClosingStartTag, markupDeclarationOpen, bogusComment
        case commentStart, commentStartDash, comment, commentEndDash, commentEnd, commentEndBang
        case doctype, cdata, cdataBracket, cdataEnd
        case rawText, rawTextLessThan, rawTextEndTagOpen, rawTextEndTagName, plaintext
        case scriptData, scriptDataLessThan, scriptDataEscapeStart, scriptDataEscapeStartDash
        case scriptDataEscaped, scriptDataEscapedDash, scriptDataEscapedDashDash, scriptDataEscapedLessThan
        case scriptDataDoubleEscapeStart, scriptDataDoubleEscaped, scriptDataDoubleEscapedDash
        case scriptDataDoubleEscapedDashDash, scriptDataDoubleEscapedLessThan, scriptDataDoubleEscapeEnd
    }

    /// Whether text in data, CDATA and raw-text states is kept in ``text``.
    var collectsText = false
    /// Whether `<![CDATA[` opens a CDATA section (true in SVG and MathML content).
    var allowsCDATA = false
    /// Text kept since the owner last emptied it.
    var text: [Unicode.Scalar] = []

    private let attributeFilter: Set<String>
    private var state = State.data
    private var tagName = ""
    private var isEndTag = false
    private var isSelfClosing = false
    private var attributes: [String: String] = [:]
    private var attributeName = ""
    private var hasAttribute = false
    private var keepsAttributeValue = false
    private var attributeValue: [Unicode.Scalar] = []
    private var attributeValueOverflowed = false
    private var markup: [Unicode.Scalar] = []
    private var rawTextEndTag: [Unicode.Scalar] = []
    private var candidateEndTag: [Unicode.Scalar] = []
    /// Where a `</name` that turns out not to be the end tag goes back to.
    private var endTagFallback = State.rawText

    /// Creates a tokenizer that keeps only the attributes named in `attributeFilter` (lower case).
    init(attributeFilter: Set<String>) {
        self.attributeFilter = attributeFilter
    }

    // MARK: - Content models

    /// Treats what follows as raw text (or RCDATA) up to `</name`.
    mutating func switchToRawText(endTag name: String) {
        state = .rawText
        endTagFallback = .rawText
        rawTextEndTag = Array(name.unicodeScalars)
    }

    /// Treats what follows as script data up to `</script`, with the escaped states of HTML
    /// §13.2.5.15–32: inside `<!-- <script>`, a `</script>` does not end the script.
    mutating func switchToScriptData() {
        state = .scriptData
        endTagFallback = .scriptData
        rawTextEndTag = Array("script".unicodeScalars)
    }

    /// Treats the rest of the document as text (`<plaintext>`).
    mutating func switchToPlaintext() {
        state = .plaintext
    }

    // MARK: - Tokenizing

    /// Consumes `input` from `index` until a tag is complete; `nil` when the input is used up.
    mutating func nextToken(in input: [Unicode.Scalar], at index: inout Int) -> Token? {
        while index < input.count {
            let scalar = input[index]
            index += 1
            switch state {
            case .data:
                if scalar == "<" {
                    state = .tagOpen
                } else if collectsText {
                    text.append(scalar)
                }
            case .plaintext:
                if collectsText { text.append(scalar) }
            case .tagOpen:
                if Self.isASCIIAlpha(scalar) {
                    startTag(isEnd: false)
                    state = .tagName
                    index -= 1
                } else if scalar == "/" {
                    state = .endTagOpen
                } else if scalar == "!" {
                    markup.removeAll(keepingCapacity: true)
                    state = .markupDeclarationOpen
                } else if scalar == "?" {
                    state = .bogusComment
                } else {
                    keepText("<")
                    state = .data
                    index -= 1
                }
            case .endTagOpen:
                if Self.isASCIIAlpha(scalar) {
                    startTag(isEnd: true)
                    state = .tagName
                    index -= 1
                } else if scalar == ">" {
                    state = .data
                } else {
                    state = .bogusComment
                    index -= 1
                }
            case .tagName:
                switch scalar {
                case "\t", "\n", "\u{0C}", "\r", " ": state = .beforeAttributeName
                case "/": state = .selfClosingStartTag
                case ">": return emitTag()
                default: Self.appendName(scalar, to: &tagName)
                }
            case .beforeAttributeName:
                switch scalar {
                case "\t", "\n", "\u{0C}", "\r", " ":
                    break
                case "/", ">":
                    state = .afterAttributeName
                    index -= 1
                case "=":
                    startAttribute()
                    Self.appendName(scalar, to: &attributeName)
                    state = .attributeName
                default:
                    startAttribute()
                    state = .attributeName
                    index -= 1
                }
            case .attributeName:
                switch scalar {
                case "\t", "\n", "\u{0C}", "\r", " ", "/", ">":
                    state = .afterAttributeName
                    index -= 1
                case "=":
                    state = .beforeAttributeValue
                    keepsAttributeValue = attributeFilter.contains(attributeName)
                default:
                    Self.appendName(scalar, to: &attributeName)
                }
            case .afterAttributeName:
                switch scalar {
                case "\t", "\n", "\u{0C}", "\r", " ":
                    break
                case "/":
                    state = .selfClosingStartTag
                case "=":
                    state = .beforeAttributeValue
                    keepsAttributeValue = attributeFilter.contains(attributeName)
                case ">":
                    return emitTag()
                default:
                    startAttribute()
                    state = .attributeName
                    index -= 1
                }
            case .beforeAttributeValue:
                switch scalar {
                case "\t", "\n", "\u{0C}", "\r", " ":
                    break
                case "\"":
                    state = .attributeValueDoubleQuoted
                case "'":
                    state = .attributeValueSingleQuoted
                case ">":
                    return emitTag()
                default:
                    state = .attributeValueUnquoted
                    index -= 1
                }
            case .attributeValueDoubleQuoted:
                if scalar == "\"" {
                    state = .afterAttributeValueQuoted
                } else {
                    appendAttributeValue(scalar)
                }
            case .attributeValueSingleQuoted:
                if scalar == "'" {
                    state = .afterAttributeValueQuoted
                } else {
                    appendAttributeValue(scalar)
                }
            case .attributeValueUnquoted:
                switch scalar {
                case "\t", "\n", "\u{0C}", "\r", " ": state = .beforeAttributeName
                case ">": return emitTag()
                default: appendAttributeValue(scalar)
                }
            case .afterAttributeValueQuoted:
                switch scalar {
                case "\t", "\n", "\u{0C}", "\r", " ":
                    state = .beforeAttributeName
                case "/":
                    state = .selfClosingStartTag
                case ">":
                    return emitTag()
                default:
                    state = .beforeAttributeName
                    index -= 1
                }
            case .selfClosingStartTag:
                if scalar == ">" {
                    isSelfClosing = true
                    return emitTag()
                }
                state = .beforeAttributeName
                index -= 1
            case .markupDeclarationOpen:
                markupDeclarationOpen(scalar, index: &index)
            case .bogusComment, .doctype:
                if scalar == ">" { state = .data }
            case .commentStart:
                switch scalar {
                case "-": state = .commentStartDash
                case ">": state = .data
                default: state = .comment
                }
            case .commentStartDash:
                switch scalar {
                case "-": state = .commentEnd
                case ">": state = .data
                default: state = .comment
                }
            case .comment:
                if scalar == "-" { state = .commentEndDash }
            case .commentEndDash:
                state = scalar == "-" ? .commentEnd : .comment
            case .commentEnd:
                switch scalar {
                case ">": state = .data
                case "!": state = .commentEndBang
                case "-": break
                default: state = .comment
                }
            case .commentEndBang:
                switch scalar {
                case "-": state = .commentEndDash
                case ">": state = .data
                default: state = .comment
                }
            case .cdata:
                if scalar == "]" {
                    state = .cdataBracket
                } else {
                    keepText(scalar)
                }
            case .cdataBracket:
                if scalar == "]" {
                    state = .cdataEnd
                } else {
                    keepText("]")
                    state = .cdata
                    index -= 1
                }
            case .cdataEnd:
                switch scalar {
                case "]":
                    keepText("]")
                case ">":
                    state = .data
                default:
                    keepText("]")
                    keepText("]")
                    state = .cdata
                    index -= 1
                }
            case .rawText:
                if scalar == "<" {
                    state = .rawTextLessThan
                } else if collectsText {
                    text.append(scalar)
                }
            case .rawTextLessThan:
                if scalar == "/" {
                    candidateEndTag.removeAll(keepingCapacity: true)
                    state = .rawTextEndTagOpen
                } else {
                    keepText("<")
                    state = .rawText
                    index -= 1
                }
            case .rawTextEndTagOpen:
                if Self.isASCIIAlpha(scalar) {
                    state = .rawTextEndTagName
                } else {
                    keepText("<")
                    keepText("/")
                    state = endTagFallback
                }
                index -= 1
            case .scriptData, .scriptDataLessThan, .scriptDataEscapeStart, .scriptDataEscapeStartDash,
                .scriptDataEscaped, .scriptDataEscapedDash, .scriptDataEscapedDashDash, .scriptDataEscapedLessThan,
                .scriptDataDoubleEscapeStart, .scriptDataDoubleEscaped, .scriptDataDoubleEscapedDash,
                .scriptDataDoubleEscapedDashDash, .scriptDataDoubleEscapedLessThan, .scriptDataDoubleEscapeEnd:
                scriptData(scalar, index: &index)
            case .rawTextEndTagName:
                if let token = rawTextEndTagName(scalar, index: &index) { return token }
            }
        }
        return nil
    }

    // MARK: - Tags

    private mutating func startTag(isEnd: Bool) {
        tagName = ""
        isEndTag = isEnd
        isSelfClosing = false
        attributes.removeAll(keepingCapacity: true)
        hasAttribute = false
    }

    private mutating func startAttribute() {
        finishAttribute()
        hasAttribute = true
        attributeName = ""
        keepsAttributeValue = false
        attributeValue.removeAll(keepingCapacity: true)
        attributeValueOverflowed = false
    }

    private mutating func appendAttributeValue(_ scalar: Unicode.Scalar) {
        guard keepsAttributeValue else { return }
        if attributeValue.count < Self.maximumAttributeValueLength {
            attributeValue.append(scalar == "\0" ? TextDecoder.replacement : scalar)
        } else {
            attributeValueOverflowed = true
        }
    }

    /// Keeps the attribute if it is wanted and its name is new: the first of duplicates wins.
    private mutating func finishAttribute() {
        guard hasAttribute else { return }
        hasAttribute = false
        let name = attributeName
        guard !attributeValueOverflowed, attributes[name] == nil, attributeFilter.contains(name) else { return }
        attributes[name] = CharacterReferences.decodeAttributeValue(attributeValue)
    }

    private mutating func emitTag() -> Token {
        finishAttribute()
        state = .data
        if isEndTag { return .endTag(tagName) }
        return .startTag(HTMLTag(name: tagName, isSelfClosing: isSelfClosing, attributes: attributes))
    }

    // MARK: - Markup declarations and raw text

    private mutating func markupDeclarationOpen(_ scalar: Unicode.Scalar, index: inout Int) {
        markup.append(scalar)
        let lowered = markup.map { Self.lowercased($0) }
        if lowered.count <= 2 && lowered.allSatisfy({ $0 == "-" }) {
            if lowered.count == 2 { state = .commentStart }
            return
        }
        if Array("doctype".unicodeScalars).starts(with: lowered) {
            if lowered.count == 7 { state = .doctype }
            return
        }
        if allowsCDATA && Array("[CDATA[".unicodeScalars).starts(with: markup) {
            if markup.count == 7 { state = .cdata }
            return
        }
        // Not a comment, DOCTYPE or CDATA: a bogus comment up to the next `>`, which may be this scalar.
        state = .bogusComment
        index -= 1
    }

    private mutating func rawTextEndTagName(_ scalar: Unicode.Scalar, index: inout Int) -> Token? {
        if Self.isASCIIAlpha(scalar) && candidateEndTag.count < rawTextEndTag.count {
            candidateEndTag.append(scalar)
            return nil
        }
        let matches = candidateEndTag.map { Self.lowercased($0) } == rawTextEndTag
        if matches {
            switch scalar {
            case "\t", "\n", "\u{0C}", "\r", " ":
                startTag(isEnd: true)
                tagName.unicodeScalars.append(contentsOf: rawTextEndTag)
                state = .beforeAttributeName
                return nil
            case "/":
                startTag(isEnd: true)
                tagName.unicodeScalars.append(contentsOf: rawTextEndTag)
                state = .selfClosingStartTag
                return nil
            case ">":
                startTag(isEnd: true)
                tagName.unicodeScalars.append(contentsOf: rawTextEndTag)
                return emitTag()
            default:
                break
            }
        }
        keepText("<")
        keepText("/")
        for kept in candidateEndTag { keepText(kept) }
        state = endTagFallback
        index -= 1
        return nil
    }

    // MARK: - Script data

    /// The script data states other than the end tag name, whose text is never kept.
    private mutating func scriptData(_ scalar: Unicode.Scalar, index: inout Int) {
        switch state {
        case .scriptData:
            if scalar == "<" { state = .scriptDataLessThan }
        case .scriptDataLessThan:
            if scalar == "/" {
                candidateEndTag.removeAll(keepingCapacity: true)
                endTagFallback = .scriptData
                state = .rawTextEndTagOpen
            } else if scalar == "!" {
                state = .scriptDataEscapeStart
            } else {
                state = .scriptData
                index -= 1
            }
        case .scriptDataEscapeStart, .scriptDataEscapeStartDash:
            if scalar == "-" {
                state = state == .scriptDataEscapeStart ? .scriptDataEscapeStartDash : .scriptDataEscapedDashDash
            } else {
                state = .scriptData
                index -= 1
            }
        case .scriptDataEscaped, .scriptDataEscapedDash, .scriptDataEscapedDashDash:
            switch scalar {
            case "-":
                state = state == .scriptDataEscaped ? .scriptDataEscapedDash : .scriptDataEscapedDashDash
            case "<":
                state = .scriptDataEscapedLessThan
            case ">" where state == .scriptDataEscapedDashDash:
                state = .scriptData
            default:
                state = .scriptDataEscaped
            }
        case .scriptDataEscapedLessThan:
            candidateEndTag.removeAll(keepingCapacity: true)
            if scalar == "/" {
                endTagFallback = .scriptDataEscaped
                state = .rawTextEndTagOpen
            } else if Self.isASCIIAlpha(scalar) {
                state = .scriptDataDoubleEscapeStart
                index -= 1
            } else {
                state = .scriptDataEscaped
                index -= 1
            }
        case .scriptDataDoubleEscapeStart, .scriptDataDoubleEscapeEnd:
            let isStart = state == .scriptDataDoubleEscapeStart
            switch scalar {
            case "\t", "\n", "\u{0C}", "\r", " ", "/", ">":
                let isScript = candidateEndTag.map { Self.lowercased($0) } == rawTextEndTag
                state = isScript == isStart ? .scriptDataDoubleEscaped : .scriptDataEscaped
            default:
                if Self.isASCIIAlpha(scalar) {
                    if candidateEndTag.count <= rawTextEndTag.count { candidateEndTag.append(scalar) }
                } else {
                    state = isStart ? .scriptDataEscaped : .scriptDataDoubleEscaped
                    index -= 1
                }
            }
        case .scriptDataDoubleEscaped, .scriptDataDoubleEscapedDash, .scriptDataDoubleEscapedDashDash:
            switch scalar {
            case "-":
                state =
                    state == .scriptDataDoubleEscaped ? .scriptDataDoubleEscapedDash : .scriptDataDoubleEscapedDashDash
            case "<":
                state = .scriptDataDoubleEscapedLessThan
            case ">" where state == .scriptDataDoubleEscapedDashDash:
                state = .scriptData
            default:
                state = .scriptDataDoubleEscaped
            }
        case .scriptDataDoubleEscapedLessThan:
            if scalar == "/" {
                candidateEndTag.removeAll(keepingCapacity: true)
                state = .scriptDataDoubleEscapeEnd
            } else {
                state = .scriptDataDoubleEscaped
                index -= 1
            }
        default:
            break
        }
    }

    private mutating func keepText(_ scalar: Unicode.Scalar) {
        if collectsText { text.append(scalar) }
    }

    // MARK: - Characters

    private static func isASCIIAlpha(_ scalar: Unicode.Scalar) -> Bool {
        (0x41...0x5A).contains(scalar.value) || (0x61...0x7A).contains(scalar.value)
    }

    private static func lowercased(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        (0x41...0x5A).contains(scalar.value) ? Unicode.Scalar(scalar.value + 0x20)! : scalar
    }

    private static func appendName(_ scalar: Unicode.Scalar, to name: inout String) {
        guard name.utf8.count < maximumNameLength else { return }
        name.unicodeScalars.append(scalar == "\0" ? TextDecoder.replacement : lowercased(scalar))
    }
}

/// A start tag with the attributes the scanner asked for, decoded, first occurrence of each name.
struct HTMLTag: Sendable, Equatable {
    /// The tag name in ASCII lower case.
    var name: String
    /// Whether the tag ended with `/>`.
    var isSelfClosing: Bool
    /// Kept attributes by lower-case name.
    var attributes: [String: String]

    subscript(_ name: String) -> String? { attributes[name] }
}
