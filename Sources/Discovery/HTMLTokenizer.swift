/// The part of the HTML tokenizer (HTML §13.2.5) that a preload scanner needs.
///
/// It is a pull tokenizer over UTF-8 bytes: ``nextToken(in:at:)`` runs until a start or end tag is
/// complete and returns it, keeping its state between pieces of input so a tag, attribute, comment
/// delimiter or character reference may be split anywhere. Every character the states look at is
/// ASCII, and in UTF-8 an ASCII byte is never part of a longer sequence, so the states see the same
/// characters as they would in decoded text; bytes become a `String` (broken sequences U+FFFD) only
/// in a kept attribute value or a tag name. The tree-construction side (the scanner) switches it into
/// raw-text states after `<script>`, `<style>`, `<textarea>`… and tells it whether CDATA sections
/// are allowed (foreign content) and whether to keep text (the contents of `<style>`).
///
/// Text, comments, raw text, script data, bogus comments and quoted attribute values are skipped
/// with ``ByteSearch`` (`memchr`) to the next byte that can change the state; nothing is allocated
/// for a token but the strings of the tag name and of the attributes the filter keeps.
///
/// Text is kept only for CSS; the characters of the text a page shows (in the data state, a
/// `<textarea>`, an `<xmp>`, `<plaintext>` and CDATA) are gathered in ``characters``, character
/// references decoded, for `@font-face` `unicode-range`. Memory per token is
/// bounded: tag names beyond ``maximumNameLength`` UTF-8 bytes are truncated, attribute names
/// beyond 16 bytes match nothing, and values beyond ``maximumAttributeValueLength`` bytes are dropped.
struct HTMLTokenizer: Sendable {
    /// A complete tag.
    enum Token: Sendable, Equatable {
        case startTag(HTMLTag)
        /// An end tag's name and the element it names.
        case endTag(String, ElementName)
    }

    /// Tag names longer than this many UTF-8 bytes are truncated, so they match nothing.
    static let maximumNameLength = 64
    /// Attribute values longer than this (64 KiB of UTF-8) are dropped.
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
    /// Text kept since the owner last emptied it, as UTF-8.
    var text: [UInt8] = []
    /// The characters of the text the page shows so far.
    private(set) var characters = HTMLTextCharacters()
    /// Whether the raw text being read is shown (a `<textarea>`'s or an `<xmp>`'s).
    private var rawTextIsShown = false

    private let attributeFilter: AttributeNames
    private var state = State.data
    private var tagName = ByteBuffer()
    private var tagNames = TagNameCache()
    /// Whether the continuation bytes of the tag name's last non-ASCII character are kept.
    private var tagNameContinues = false
    private var isEndTag = false
    private var isSelfClosing = false
    private var attributes = TagAttributes()
    /// The kept attributes the tag has had so far, by their slot in ``attributeFilter``.
    private var seenAttributes = AttributeNames.SlotSet()
    private var attributeName = AttributeNames.Key()
    private var hasAttribute = false
    /// The slot in ``attributeFilter`` of the attribute whose value is being read, if it is kept.
    private var keptAttribute: Int?
    private var attributeValue = ByteBuffer()
    private var attributeValueOverflowed = false
    private var markup: [UInt8] = []
    private var rawTextEndTag: [UInt8] = []
    private var candidateEndTag: [UInt8] = []
    /// Where a `</name` that turns out not to be the end tag goes back to.
    private var endTagFallback = State.rawText

    /// Creates a tokenizer that keeps only the attributes named in `attributeFilter`.
    init(attributeFilter: AttributeNames) {
        self.attributeFilter = attributeFilter
    }

    // MARK: - Content models

    /// Treats what follows as raw text (or RCDATA) up to `</name`.
    mutating func switchToRawText(endTag name: String) {
        state = .rawText
        endTagFallback = .rawText
        rawTextEndTag = Array(name.utf8)
        rawTextIsShown = name == "textarea" || name == "xmp"
    }

    /// Ends the document's characters: a reference or character cut off by its end is read as it is.
    mutating func finishCharacters() {
        characters.finish()
    }

    /// Treats what follows as script data up to `</script`, with the escaped states of HTML
    /// §13.2.5.15–32: inside `<!-- <script>`, a `</script>` does not end the script.
    mutating func switchToScriptData() {
        state = .scriptData
        endTagFallback = .scriptData
        rawTextEndTag = Array("script".utf8)
    }

    /// Treats the rest of the document as text (`<plaintext>`).
    mutating func switchToPlaintext() {
        state = .plaintext
    }

    // MARK: - Tokenizing

    /// Consumes `input` from `index` until a tag is complete; `nil` when the input is used up.
    mutating func nextToken(in input: UnsafeBufferPointer<UInt8>, at index: inout Int) -> Token? {
        let count = input.count
        while index < count {
            // The states that run far: jump to the next byte that can end them.
            switch state {
            case .data, .rawText:
                let end = ByteSearch.firstOrEnd(UInt8(ascii: "<"), in: input, from: index)
                keepText(input, index, end)
                if end > index, state == .data || rawTextIsShown {
                    characters.read(UnsafeBufferPointer(rebasing: input[index..<end]), continues: end == count)
                }
                guard end < count else {
                    index = count
                    return nil
                }
                state = state == .data ? .tagOpen : .rawTextLessThan
                index = end + 1
                continue
            case .scriptData:
                guard let end = ByteSearch.first(UInt8(ascii: "<"), in: input, from: index, to: count) else {
                    index = count
                    return nil
                }
                state = .scriptDataLessThan
                index = end + 1
                continue
            case .plaintext:
                keepText(input, index, count)
                characters.read(UnsafeBufferPointer(rebasing: input[index..<count]), continues: true)
                index = count
                return nil
            case .comment:
                guard let end = ByteSearch.first(UInt8(ascii: "-"), in: input, from: index, to: count) else {
                    index = count
                    return nil
                }
                state = .commentEndDash
                index = end + 1
                continue
            case .bogusComment, .doctype:
                guard let end = ByteSearch.first(UInt8(ascii: ">"), in: input, from: index, to: count) else {
                    index = count
                    return nil
                }
                state = .data
                index = end + 1
                continue
            case .cdata:
                let end = ByteSearch.firstOrEnd(UInt8(ascii: "]"), in: input, from: index)
                keepText(input, index, end)
                if end > index {
                    characters.read(UnsafeBufferPointer(rebasing: input[index..<end]), continues: end == count)
                }
                guard end < count else {
                    index = count
                    return nil
                }
                state = .cdataBracket
                index = end + 1
                continue
            // Inside a tag: its own loop, which takes a run and the byte that ends it in each state.
            case .tagName, .beforeAttributeName, .attributeName, .afterAttributeName, .beforeAttributeValue,
                .attributeValueDoubleQuoted, .attributeValueSingleQuoted, .attributeValueUnquoted,
                .afterAttributeValueQuoted, .selfClosingStartTag:
                if let token = tagStates(in: input, at: &index) { return token }
                continue
            default:
                break
            }
            guard index < count else { return nil }
            let byte = input[index]
            index += 1
            if let token = step(byte, index: &index) { return token }
        }
        return nil
    }

    /// One byte in the states that look at every byte; `index` is already past it.
    private mutating func step(_ byte: UInt8, index: inout Int) -> Token? {
        switch state {
        case .tagOpen:
            if Self.isASCIIAlpha(byte) {
                startTag(isEnd: false)
                state = .tagName
                index -= 1
            } else if byte == UInt8(ascii: "/") {
                state = .endTagOpen
            } else if byte == UInt8(ascii: "!") {
                markup.removeAll(keepingCapacity: true)
                state = .markupDeclarationOpen
            } else if byte == UInt8(ascii: "?") {
                state = .bogusComment
            } else {
                keepText(UInt8(ascii: "<"))
                state = .data
                index -= 1
            }
        case .endTagOpen:
            if Self.isASCIIAlpha(byte) {
                startTag(isEnd: true)
                state = .tagName
                index -= 1
            } else if byte == UInt8(ascii: ">") {
                state = .data
            } else {
                state = .bogusComment
                index -= 1
            }
        case .markupDeclarationOpen:
            markupDeclarationOpen(byte, index: &index)
        case .commentStart:
            switch byte {
            case UInt8(ascii: "-"): state = .commentStartDash
            case UInt8(ascii: ">"): state = .data
            default: state = .comment
            }
        case .commentStartDash:
            switch byte {
            case UInt8(ascii: "-"): state = .commentEnd
            case UInt8(ascii: ">"): state = .data
            default: state = .comment
            }
        case .commentEndDash:
            state = byte == UInt8(ascii: "-") ? .commentEnd : .comment
        case .commentEnd:
            switch byte {
            case UInt8(ascii: ">"): state = .data
            case UInt8(ascii: "!"): state = .commentEndBang
            case UInt8(ascii: "-"): break
            default: state = .comment
            }
        case .commentEndBang:
            switch byte {
            case UInt8(ascii: "-"): state = .commentEndDash
            case UInt8(ascii: ">"): state = .data
            default: state = .comment
            }
        case .cdataBracket:
            if byte == UInt8(ascii: "]") {
                state = .cdataEnd
            } else {
                keepText(UInt8(ascii: "]"))
                state = .cdata
                index -= 1
            }
        case .cdataEnd:
            switch byte {
            case UInt8(ascii: "]"):
                keepText(UInt8(ascii: "]"))
            case UInt8(ascii: ">"):
                state = .data
            default:
                keepText(UInt8(ascii: "]"))
                keepText(UInt8(ascii: "]"))
                state = .cdata
                index -= 1
            }
        case .rawTextLessThan:
            if byte == UInt8(ascii: "/") {
                candidateEndTag.removeAll(keepingCapacity: true)
                state = .rawTextEndTagOpen
            } else {
                keepText(UInt8(ascii: "<"))
                state = .rawText
                index -= 1
            }
        case .rawTextEndTagOpen:
            if Self.isASCIIAlpha(byte) {
                state = .rawTextEndTagName
            } else {
                keepText(UInt8(ascii: "<"))
                keepText(UInt8(ascii: "/"))
                state = endTagFallback
            }
            index -= 1
        case .rawTextEndTagName:
            return rawTextEndTagName(byte, index: &index)
        case .data, .rawText, .scriptData, .plaintext, .comment, .bogusComment, .doctype, .cdata:
            // Handled a run at a time by nextToken(in:at:).
            break
        case .tagName, .beforeAttributeName, .attributeName, .afterAttributeName, .beforeAttributeValue,
            .attributeValueDoubleQuoted, .attributeValueSingleQuoted, .attributeValueUnquoted,
            .afterAttributeValueQuoted, .selfClosingStartTag:
            // Handled by tagStates(in:at:).
            break
        default:
            scriptData(byte, index: &index)
        }
        return nil
    }

    // MARK: - Tags

    /// The states inside a tag (HTML §13.2.5.8 to §13.2.5.40, tag name to self-closing start tag),
    /// from `index` until the tag is emitted or the input is used up: in each state, the run of
    /// bytes it passes over in one loop and then the byte that ends the run, without going back
    /// through ``nextToken(in:at:)`` and ``step(_:index:)`` for it (two dispatches a byte that were
    /// the tokenizer's hottest lines). A tag leaves these states only by being emitted.
    private mutating func tagStates(in input: UnsafeBufferPointer<UInt8>, at index: inout Int) -> Token? {
        let count = input.count
        while index < count {
            switch state {
            case .tagName:
                // The run found first, in a local: the loop wrote `index` back at every byte.
                var end = index
                while end < count, !Self.endsTagName(input[end]) { end += 1 }
                for nameIndex in index..<end { appendTagName(input[nameIndex]) }
                index = end
                guard index < count else { return nil }
                let byte = input[index]
                index += 1
                switch byte {
                case UInt8(ascii: "/"): state = .selfClosingStartTag
                case UInt8(ascii: ">"): return emitTag()
                default: state = .beforeAttributeName
                }
            case .beforeAttributeName:
                while index < count, Self.isSpace(input[index]) { index += 1 }
                guard index < count else { return nil }
                let byte = input[index]
                switch byte {
                case UInt8(ascii: "/"), UInt8(ascii: ">"):
                    state = .afterAttributeName
                case UInt8(ascii: "="):
                    startAttribute()
                    attributeName.append(byte)
                    state = .attributeName
                    index += 1
                default:
                    startAttribute()
                    state = .attributeName
                }
            case .attributeName:
                var end = index
                while end < count, !Self.endsAttributeName(input[end]) { end += 1 }
                attributeName.append(lowercasing: UnsafeBufferPointer(rebasing: input[index..<end]))
                index = end
                guard index < count else { return nil }
                if input[index] == UInt8(ascii: "=") {
                    state = .beforeAttributeValue
                    keptAttribute = attributeFilter.slot(of: attributeName)
                    index += 1
                } else {
                    state = .afterAttributeName
                }
            case .afterAttributeName:
                while index < count, Self.isSpace(input[index]) { index += 1 }
                guard index < count else { return nil }
                let byte = input[index]
                index += 1
                switch byte {
                case UInt8(ascii: "/"):
                    state = .selfClosingStartTag
                case UInt8(ascii: "="):
                    state = .beforeAttributeValue
                    keptAttribute = attributeFilter.slot(of: attributeName)
                case UInt8(ascii: ">"):
                    return emitTag()
                default:
                    startAttribute()
                    state = .attributeName
                    index -= 1
                }
            case .beforeAttributeValue:
                while index < count, Self.isSpace(input[index]) { index += 1 }
                guard index < count else { return nil }
                let byte = input[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""): state = .attributeValueDoubleQuoted
                case UInt8(ascii: "'"): state = .attributeValueSingleQuoted
                case UInt8(ascii: ">"): return emitTag()
                default:
                    state = .attributeValueUnquoted
                    index -= 1
                }
            case .attributeValueDoubleQuoted, .attributeValueSingleQuoted:
                let quote = state == .attributeValueDoubleQuoted ? UInt8(ascii: "\"") : UInt8(ascii: "'")
                let end = ByteSearch.firstOrEnd(quote, in: input, from: index)
                appendAttributeValue(input, index, end)
                guard end < count else {
                    index = count
                    return nil
                }
                state = .afterAttributeValueQuoted
                index = end + 1
            case .attributeValueUnquoted:
                var end = index
                while end < count, !Self.endsUnquotedValue(input[end]) { end += 1 }
                appendAttributeValue(input, index, end)
                index = end
                guard index < count else { return nil }
                index += 1
                // The run ends at whitespace or `>`.
                if input[end] == UInt8(ascii: ">") { return emitTag() }
                state = .beforeAttributeName
            case .afterAttributeValueQuoted:
                let byte = input[index]
                index += 1
                switch byte {
                case 0x09, 0x0A, 0x0C, 0x0D, 0x20:
                    state = .beforeAttributeName
                case UInt8(ascii: "/"):
                    state = .selfClosingStartTag
                case UInt8(ascii: ">"):
                    return emitTag()
                default:
                    state = .beforeAttributeName
                    index -= 1
                }
            case .selfClosingStartTag:
                if input[index] == UInt8(ascii: ">") {
                    index += 1
                    isSelfClosing = true
                    return emitTag()
                }
                state = .beforeAttributeName
            default:
                return nil
            }
        }
        return nil
    }

    private mutating func startTag(isEnd: Bool) {
        tagName.removeAll()
        tagNameContinues = false
        isEndTag = isEnd
        isSelfClosing = false
        hasAttribute = false
        seenAttributes = AttributeNames.SlotSet()
        if !attributes.isEmpty { attributes = TagAttributes() }
    }

    private mutating func startAttribute() {
        finishAttribute()
        hasAttribute = true
        attributeName = AttributeNames.Key()
        keptAttribute = nil
        attributeValue.removeAll()
        attributeValueOverflowed = false
    }

    @inline(__always)
    private mutating func appendAttributeValue(_ byte: UInt8) {
        guard keptAttribute != nil else { return }
        if attributeValue.count < Self.maximumAttributeValueLength {
            if byte == 0 {
                attributeValue.append(contentsOf: TextDecoder.replacementUTF8)
            } else {
                attributeValue.append(byte)
            }
        } else {
            attributeValueOverflowed = true
        }
    }

    /// Appends `input[start..<end]` to a kept attribute value.
    private mutating func appendAttributeValue(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        guard keptAttribute != nil, start < end else { return }
        if attributeValue.count + (end - start) > Self.maximumAttributeValueLength
            || ByteSearch.first(0, in: input, from: start, to: end) != nil
        {
            for index in start..<end { appendAttributeValue(input[index]) }
        } else {
            attributeValue.append(contentsOf: UnsafeBufferPointer(rebasing: input[start..<end]))
        }
    }

    /// Keeps the attribute if it is wanted and its name is new: the first of duplicates wins.
    private mutating func finishAttribute() {
        guard hasAttribute else { return }
        hasAttribute = false
        guard let slot = keptAttribute ?? attributeFilter.slot(of: attributeName), !attributeValueOverflowed,
            seenAttributes.insert(slot)
        else { return }
        attributes.append(TagAttributes.Attribute(
            key: attributeName,
            value: attributeValue.withUnsafeBufferPointer { raw in
                Self.withNewlinesNormalized(raw, CharacterReferences.decodeAttributeValue)
            }))
    }

    /// Calls `body` with `raw` where each CR LF pair and each lone CR is one LF, as HTML's
    /// preprocessing of the input stream (§13.2.3.5) leaves the text before it is tokenized; a CR
    /// written as a character reference is decoded after it and stays. Kept values are split on
    /// whitespace by Swift's characters in places (class lists, `~=` in selectors), where a CR LF
    /// pair is one character that no whitespace test matched.
    private static func withNewlinesNormalized<T>(
        _ raw: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) -> T
    ) -> T {
        guard var index = ByteSearch.first(0x0D, in: raw, from: 0, to: raw.count) else { return body(raw) }
        var normalized = Array(raw[..<index])
        normalized.reserveCapacity(raw.count)
        while index < raw.count {
            let byte = raw[index]
            index += 1
            if byte == 0x0D {
                normalized.append(0x0A)
                if index < raw.count, raw[index] == 0x0A { index += 1 }
            } else {
                normalized.append(byte)
            }
        }
        return normalized.withUnsafeBufferPointer(body)
    }

    private mutating func emitTag() -> Token {
        finishAttribute()
        state = .data
        let name: String, element: ElementName
        if let packed = tagName.withUnsafeBufferPointer(ElementName.packed) {
            (name, element) = (tagNames.name(packed: packed), ElementName(packed: packed))
        } else {
            (name, element) = tagName.withUnsafeBufferPointer { (String(decoding: $0, as: UTF8.self), ElementName($0)) }
        }
        if isEndTag { return .endTag(name, element) }
        let tag = HTMLTag(name: name, element: element, isSelfClosing: isSelfClosing, attributes: attributes)
        attributes = TagAttributes()
        return .startTag(tag)
    }

    /// Appends a tag name byte, lower-cased, NUL as U+FFFD, up to ``maximumNameLength`` bytes (a
    /// character that starts below the limit is kept whole).
    @inline(__always)
    private mutating func appendTagName(_ byte: UInt8) {
        if byte >= 0x80 && byte < 0xC0 {
            if tagNameContinues || tagName.count < Self.maximumNameLength { tagName.append(byte) }
            return
        }
        tagNameContinues = false
        guard tagName.count < Self.maximumNameLength else { return }
        if byte == 0 {
            tagName.append(contentsOf: TextDecoder.replacementUTF8)
        } else {
            tagName.append(Self.lowercased(byte))
            tagNameContinues = byte >= 0xC0
        }
    }

    // MARK: - Markup declarations and raw text

    private mutating func markupDeclarationOpen(_ byte: UInt8, index: inout Int) {
        markup.append(byte)
        if markup.count <= 2 && markup.allSatisfy({ $0 == UInt8(ascii: "-") }) {
            if markup.count == 2 { state = .commentStart }
            return
        }
        if Self.startsCaseInsensitive(Self.doctype, markup) {
            if markup.count == 7 { state = .doctype }
            return
        }
        if allowsCDATA && Self.cdataStart.starts(with: markup) {
            if markup.count == 7 { state = .cdata }
            return
        }
        // Not a comment, DOCTYPE or CDATA: a bogus comment up to the next `>`, which may be this byte.
        state = .bogusComment
        index -= 1
    }

    private static let doctype = Array("doctype".utf8)
    private static let cdataStart = Array("[CDATA[".utf8)

    /// Whether `prefix`, lower-cased, starts `word`.
    private static func startsCaseInsensitive(_ word: [UInt8], _ prefix: [UInt8]) -> Bool {
        prefix.count <= word.count && zip(word, prefix).allSatisfy { $0 == lowercased($1) }
    }

    private mutating func rawTextEndTagName(_ byte: UInt8, index: inout Int) -> Token? {
        if Self.isASCIIAlpha(byte) && candidateEndTag.count < rawTextEndTag.count {
            candidateEndTag.append(byte)
            return nil
        }
        if isCandidateTheEndTag() {
            switch byte {
            case 0x09, 0x0A, 0x0C, 0x0D, 0x20:
                startTag(isEnd: true)
                tagName.append(contentsOf: rawTextEndTag)
                state = .beforeAttributeName
                return nil
            case UInt8(ascii: "/"):
                startTag(isEnd: true)
                tagName.append(contentsOf: rawTextEndTag)
                state = .selfClosingStartTag
                return nil
            case UInt8(ascii: ">"):
                startTag(isEnd: true)
                tagName.append(contentsOf: rawTextEndTag)
                return emitTag()
            default:
                break
            }
        }
        keepText(UInt8(ascii: "<"))
        keepText(UInt8(ascii: "/"))
        if collectsText { text.append(contentsOf: candidateEndTag) }
        state = endTagFallback
        index -= 1
        return nil
    }

    private func isCandidateTheEndTag() -> Bool {
        candidateEndTag.count == rawTextEndTag.count
            && zip(candidateEndTag, rawTextEndTag).allSatisfy { Self.lowercased($0) == $1 }
    }

    // MARK: - Script data

    /// The script data states other than the end tag name, whose text is never kept.
    private mutating func scriptData(_ byte: UInt8, index: inout Int) {
        switch state {
        case .scriptDataLessThan:
            if byte == UInt8(ascii: "/") {
                candidateEndTag.removeAll(keepingCapacity: true)
                endTagFallback = .scriptData
                state = .rawTextEndTagOpen
            } else if byte == UInt8(ascii: "!") {
                state = .scriptDataEscapeStart
            } else {
                state = .scriptData
                index -= 1
            }
        case .scriptDataEscapeStart, .scriptDataEscapeStartDash:
            if byte == UInt8(ascii: "-") {
                state = state == .scriptDataEscapeStart ? .scriptDataEscapeStartDash : .scriptDataEscapedDashDash
            } else {
                state = .scriptData
                index -= 1
            }
        case .scriptDataEscaped, .scriptDataEscapedDash, .scriptDataEscapedDashDash:
            switch byte {
            case UInt8(ascii: "-"):
                state = state == .scriptDataEscaped ? .scriptDataEscapedDash : .scriptDataEscapedDashDash
            case UInt8(ascii: "<"):
                state = .scriptDataEscapedLessThan
            case UInt8(ascii: ">") where state == .scriptDataEscapedDashDash:
                state = .scriptData
            default:
                state = .scriptDataEscaped
            }
        case .scriptDataEscapedLessThan:
            candidateEndTag.removeAll(keepingCapacity: true)
            if byte == UInt8(ascii: "/") {
                endTagFallback = .scriptDataEscaped
                state = .rawTextEndTagOpen
            } else if Self.isASCIIAlpha(byte) {
                state = .scriptDataDoubleEscapeStart
                index -= 1
            } else {
                state = .scriptDataEscaped
                index -= 1
            }
        case .scriptDataDoubleEscapeStart, .scriptDataDoubleEscapeEnd:
            let isStart = state == .scriptDataDoubleEscapeStart
            switch byte {
            case 0x09, 0x0A, 0x0C, 0x0D, 0x20, UInt8(ascii: "/"), UInt8(ascii: ">"):
                state = isCandidateTheEndTag() == isStart ? .scriptDataDoubleEscaped : .scriptDataEscaped
            default:
                if Self.isASCIIAlpha(byte) {
                    if candidateEndTag.count <= rawTextEndTag.count { candidateEndTag.append(byte) }
                } else {
                    state = isStart ? .scriptDataEscaped : .scriptDataDoubleEscaped
                    index -= 1
                }
            }
        case .scriptDataDoubleEscaped, .scriptDataDoubleEscapedDash, .scriptDataDoubleEscapedDashDash:
            switch byte {
            case UInt8(ascii: "-"):
                state =
                    state == .scriptDataDoubleEscaped ? .scriptDataDoubleEscapedDash : .scriptDataDoubleEscapedDashDash
            case UInt8(ascii: "<"):
                state = .scriptDataDoubleEscapedLessThan
            case UInt8(ascii: ">") where state == .scriptDataDoubleEscapedDashDash:
                state = .scriptData
            default:
                state = .scriptDataDoubleEscaped
            }
        case .scriptDataDoubleEscapedLessThan:
            if byte == UInt8(ascii: "/") {
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

    @inline(__always)
    private mutating func keepText(_ byte: UInt8) {
        if collectsText { text.append(byte) }
    }

    @inline(__always)
    private mutating func keepText(_ input: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) {
        if collectsText && start < end { text.append(contentsOf: UnsafeBufferPointer(rebasing: input[start..<end])) }
    }

    // MARK: - Characters

    /// Whether `byte` is one of the bytes below 64 that the bits of `set` stand for (bit `b` for
    /// byte `b`): one shift and test rather than a comparison for each byte of the set.
    @inline(__always)
    private static func isIn(_ byte: UInt8, _ set: UInt64) -> Bool {
        byte < 64 && set >> UInt64(byte) & 1 != 0
    }

    /// Tab, line feed, form feed, carriage return and space, as bits for ``isIn(_:_:)``.
    private static var spaceBits: UInt64 { 1 << 0x09 | 1 << 0x0A | 1 << 0x0C | 1 << 0x0D | 1 << 0x20 }

    /// ASCII whitespace as the tokenizer knows it: tab, line feed, form feed, carriage return, space.
    @inline(__always)
    private static func isSpace(_ byte: UInt8) -> Bool {
        isIn(byte, spaceBits)
    }

    /// Whether `byte` ends an unquoted attribute value: whitespace or `>`.
    @inline(__always)
    private static func endsUnquotedValue(_ byte: UInt8) -> Bool {
        isIn(byte, spaceBits | 1 << UInt8(ascii: ">"))
    }

    /// Whether `byte` ends a tag name: whitespace, `/` or `>`.
    @inline(__always)
    private static func endsTagName(_ byte: UInt8) -> Bool {
        isIn(byte, spaceBits | 1 << UInt8(ascii: ">") | 1 << UInt8(ascii: "/"))
    }

    /// Whether `byte` ends an attribute name: whitespace, `/`, `>` or `=`.
    @inline(__always)
    private static func endsAttributeName(_ byte: UInt8) -> Bool {
        isIn(byte, spaceBits | 1 << UInt8(ascii: ">") | 1 << UInt8(ascii: "/") | 1 << UInt8(ascii: "="))
    }

    @inline(__always)
    private static func isASCIIAlpha(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    @inline(__always)
    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}

/// A start tag with the attributes the scanner asked for, decoded, first occurrence of each name.
struct HTMLTag: Sendable, Equatable {
    /// The tag name in ASCII lower case.
    var name: String
    /// The element ``name`` names, if the scanner acts on it.
    var element: ElementName
    /// Whether the tag ended with `/>`.
    var isSelfClosing: Bool
    /// The kept attributes.
    var attributes: TagAttributes

    /// The value of the kept attribute `name`, if the tag has it.
    subscript(_ name: AttributeNames.Name) -> String? { attributes[name] }
}
