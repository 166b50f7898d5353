/// A streaming CSS tokenizer (CSS Syntax Level 3 §4) that keeps only what locates references.
///
/// It consumes UTF-8 in pieces of any size and records each URL once its token is
/// complete: `url(…)` (quoted or not, with escapes), the string or `url()` right after a top-level
/// `@import`, strings inside `image-set()` and `-webkit-image-set()`, and `src("…")`. References
/// inside an `@font-face` block are fonts. Comments and strings are tokenized, so a `url(` inside
/// them is not a reference. An `@import` is valid only at the top, after nothing but `@charset`,
/// `@layer` statements and other `@import`s, and with no `@layer` between it and an earlier one
/// (CSS Cascade 5 §2); browsers ignore any other, and its URL, as the URL of `@namespace`, is no
/// reference.
///
/// Every character that changes its state is ASCII, which in UTF-8 is never part of a longer
/// sequence, so it runs on bytes: a non-ASCII byte is a name character, as the character it belongs
/// to is; escapes and broken sequences are decoded only in the values it records. Comments are
/// skipped with ``ByteSearch``.
///
/// Memory is bounded: a string, URL or name longer than ``maximumTokenLength`` bytes is dropped.
struct CSSTokenizer: Sendable {
    /// A reference found in CSS, still relative and as written after escapes are decoded.
    struct Found: Sendable {
        var value: String
        var kind: Reference.Kind
        var construct: Reference.CSSConstruct
        /// The `@media` blocks, `@import` media and rule around it (``CSSRuleContext``).
        var condition: Reference.Condition? {
            get { conditionBox?.condition }
            set { conditionBox = ConditionBox.boxing(consume newValue) }
        }
        /// ``condition``, boxed as a reference's is: a URL found is copied from list to list on
        /// its way out, and the reference made from it shares the box.
        private(set) var conditionBox: ConditionBox?

        init(value: String, kind: Reference.Kind, construct: Reference.CSSConstruct) {
            self.value = value
            self.kind = kind
            self.construct = construct
        }
    }

    /// The longest string, URL or identifier kept: 64 KiB of UTF-8.
    static let maximumTokenLength = 64 * 1024
    /// The deepest nesting of parentheses that is tracked.
    private static let maximumParenthesisDepth = 64

    /// References found so far; the owner takes them and empties the array.
    var found: [Found] = []

    private enum State {
        case normal, slash, comment, commentStar, string, name, urlStart, urlUnquoted, urlAfterSpace, badURL
    }

    private enum NameKind {
        case identifier, atKeyword, hashOrNumber
    }

    private enum Parenthesis {
        case plain, url, imageSet
    }

    private enum PendingRule {
        /// `ignored`: an at-rule whose URL is no reference, an `@import` where none is valid or `@namespace`.
        case none, importRule, fontFace, ignored
    }

    private var state = State.normal
    private var quote = UInt8(ascii: "\"")
    private var buffer = ByteBuffer()
    private var overflowed = false
    private var escaped = false
    /// Hex digits read so far in an escape such as `\61 `, whose digits and one trailing space belong to it.
    private var escapeHexDigits = 0
    private var nameKind = NameKind.identifier

    private var parentheses: [Parenthesis] = []
    private var untrackedParentheses = 0
    private var braceDepth = 0
    private var fontFaceDepth: Int?
    private var pendingRule = PendingRule.none
    private var importsAllowed = true
    /// Whether a valid `@import` has been read: an `@layer` statement after it ends the `@import`s.
    private var sawImport = false
    /// The rules, preludes and declarations around what is found (``CSSRuleContext``).
    var context = CSSRuleContext()

    /// Makes it a new tokenizer, for another stylesheet (one `style` attribute after another),
    /// keeping the storage its buffers have grown: every state is the initial one again.
    ///
    /// Each property is set back in place: making a new tokenizer and assigning it copied and
    /// destroyed the whole of it, context included, once for each `style` attribute.
    mutating func reset() {
        // Emptied from its end, keeping its storage (``CSSRuleContext/release(into:declaration:)``).
        while !found.isEmpty { found.removeLast() }
        state = .normal
        quote = UInt8(ascii: "\"")
        buffer.removeAll()
        overflowed = false
        escaped = false
        escapeHexDigits = 0
        nameKind = .identifier
        if !parentheses.isEmpty { parentheses.removeAll(keepingCapacity: true) }
        untrackedParentheses = 0
        braceDepth = 0
        fontFaceDepth = nil
        pendingRule = .none
        importsAllowed = true
        sawImport = false
        context.reset()
    }

    // MARK: - Input

    /// Tokenizes the next piece of a stylesheet, as UTF-8.
    ///
    /// Runs of bytes that change nothing but the token's text (whitespace and delimiters between
    /// tokens, the rest of a name, string or unquoted URL) are passed over in tight loops, and the
    /// text outside comments goes to the ``context`` a run at a time, before each byte the context
    /// reads it at (`;`, braces, parentheses, quotes) and at the end of the piece.
    mutating func consume(_ bytes: UnsafeBufferPointer<UInt8>) {
        Self.byteClasses.withUnsafeBufferPointer { consume(bytes, classes: $0.baseAddress!) }
    }

    private mutating func consume(_ bytes: UnsafeBufferPointer<UInt8>, classes: UnsafePointer<UInt8>) {
        @inline(__always) func isIn(_ byte: UInt8, _ byteClass: ByteClass) -> Bool {
            classes[Int(byte)] & byteClass.rawValue != 0
        }
        // The context keeps no range of a piece it is not given.
        defer { context.flush(bytes) }
        let count = bytes.count
        var index = 0
        var textStart = 0
        while index < count {
            switch state {
            case .comment:
                // Skip to the next `*`, which may end the comment.
                guard let star = ByteSearch.first(UInt8(ascii: "*"), in: bytes, from: index, to: count) else {
                    return
                }
                state = .commentStar
                index = star + 1
                continue
            case .commentStar:
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "/") {
                    state = .normal
                    textStart = index
                } else if byte != UInt8(ascii: "*") {
                    state = .comment
                }
                continue
            case .normal:
                // Whitespace, delimiters and names that end in this piece, one after the other.
                while true {
                    if pendingRule == .importRule {
                        // Any token but whitespace ends the prelude before its URL: each name is read.
                        while index < count, isIn(bytes[index], .whitespace) { index += 1 }
                    } else {
                        index = Self.passiveRunEnd(bytes, from: index, classes: classes)
                    }
                    guard index < count, let end = nameInPlace(bytes, from: index, classes: classes) else { break }
                    index = end
                }
            case .name where !escaped && escapeHexDigits == 0:
                let start = index
                while index < count, isIn(bytes[index], .name) { index += 1 }
                if nameKind != .hashOrNumber { append(bytes, start..<index) }
            case .string where !escaped:
                let start = index
                while index < count, !isIn(bytes[index], .endsString) { index += 1 }
                append(bytes, start..<index)
            case .urlUnquoted where !escaped && escapeHexDigits == 0:
                let start = index
                while index < count, !isIn(bytes[index], .endsUnquotedURL) { index += 1 }
                append(bytes, start..<index)
            default:
                break
            }
            guard index < count else { break }
            let byte = bytes[index]
            if state == .slash && byte == UInt8(ascii: "*") {
                // The `*` and what follows up to the comment's end are not text; step drops the `/`.
                context.append(bytes, textStart..<index)
                textStart = count
            } else if isIn(byte, .readByContext) {
                context.append(bytes, textStart..<(index + 1))
                textStart = index + 1
                if state == .normal && byte == UInt8(ascii: ";") {
                    // What normal(_:) does for `;`, the declaration read where it is.
                    pendingRule = .none
                    if braceDepth == 0 && importsAllowed {
                        context.flush(bytes)
                        endTopLevelStatement()
                    }
                    context.endDeclaration(in: bytes, into: &found)
                    index += 1
                    continue
                }
                // The context reads its text at the end of a declaration, a prelude, a block or
                // an `image-set()`; it only counts it at a parenthesis or a quote.
                if byte == UInt8(ascii: ";") || byte == UInt8(ascii: "{") || byte == UInt8(ascii: "}")
                    || (byte == UInt8(ascii: ")") && parentheses.last == .imageSet)
                {
                    context.flush(bytes)
                }
            }
            step(byte)
            index += 1
        }
        if state != .comment && state != .commentStar && textStart < count {
            context.append(bytes, textStart..<count)
        }
    }

    /// Where the run of bytes from `start` that changes nothing in the normal state ends, when no
    /// `@import` waits for its URL: whitespace, delimiters, and names and numbers that are not
    /// functions, passed over in one loop up to the next byte of ``ByteClass/special``. A name
    /// that the run ends with is left to be read when it may matter: before a `(` when it may be
    /// `url(`, `src(` or an `image-set(` (any other function opens a plain parenthesis, which the
    /// `(` does alone), before a backslash (an escape) or at the end of the piece (it may go on in
    /// the next). Such a name starts after the last byte before it that is not a name byte, or at
    /// a `#` there.
    @inline(__always)
    private static func passiveRunEnd(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, classes: UnsafePointer<UInt8>
    ) -> Int {
        let count = bytes.count
        var end = firstSpecial(bytes, from: start)
        while end < count, classes[Int(bytes[end])] & ByteClass.special.rawValue == 0 { end += 1 }
        guard end == count || bytes[end] == UInt8(ascii: "(") || bytes[end] == UInt8(ascii: "\\") else { return end }
        var nameStart = end
        while nameStart > start, classes[Int(bytes[nameStart - 1])] & ByteClass.name.rawValue != 0 { nameStart -= 1 }
        if nameStart > start, bytes[nameStart - 1] == UInt8(ascii: "#") { nameStart -= 1 }
        if end < count, bytes[end] == UInt8(ascii: "("),
            !mayNameURLFunction(UnsafeBufferPointer(rebasing: bytes[nameStart..<end]))
        {
            return end
        }
        return nameStart
    }

    /// Where the first byte of ``ByteClass/special`` from `start` is, found sixteen bytes at a time
    /// (a vector comparison for each special byte), or where the last whole block of `bytes`
    /// ends, for a byte loop to go on from.
    @inline(__always)
    private static func firstSpecial(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        // Vector operands throughout: an operation with a scalar runs a lane at a time.
        func lanes(_ character: Unicode.Scalar) -> SIMD16<UInt8> { SIMD16(repeating: UInt8(ascii: character)) }
        let one = SIMD16<UInt8>(repeating: 1)
        var index = start
        while index + 16 <= bytes.count {
            let block = UnsafeRawPointer(base + index).loadUnaligned(as: SIMD16<UInt8>.self)
            // `(` and `)` differ in their lowest bit only.
            let special = block .== lanes("/") .| block .== lanes("\"") .| block .== lanes("'")
                .| block .== lanes("\\") .| block .== lanes("@") .| (block | one) .== lanes(")")
                .| block .== lanes("{") .| block .== lanes("}") .| block .== lanes(";")
            guard any(special) else {
                index += 16
                continue
            }
            // The high bit of each lane (set where it is special), gathered into the low 16 bits.
            let words = unsafeBitCast(special, to: SIMD2<UInt64>.self)
            let low = ((words[0] & 0x8080_8080_8080_8080) &* 0x0002_0408_1020_4081) >> 56
            let high = ((words[1] & 0x8080_8080_8080_8080) &* 0x0002_0408_1020_4081) >> 56
            let bits = low | high << 8
            return index + bits.trailingZeroBitCount
        }
        return index
    }

    /// Whether the name before a `(` may make it a function that holds URLs: an identifier that is
    /// `url`, `src`, `image-set` or `-webkit-image-set` in any ASCII case, or that has non-ASCII
    /// bytes (which the name state lowers as Unicode). A hash or a number (a name that starts with
    /// `#` or a digit) never is; neither is an empty name.
    private static func mayNameURLFunction(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = name.first, first != UInt8(ascii: "#"), !(first >= 0x30 && first <= 0x39) else {
            return false
        }
        switch name.count {
        case 3: if equalsLowercased(name, "url") || equalsLowercased(name, "src") { return true }
        case 9: if equalsLowercased(name, "image-set") { return true }
        case 17: if equalsLowercased(name, "-webkit-image-set") { return true }
        default: break
        }
        return name.contains { $0 >= 0x80 }
    }

    /// Reads the name token that starts at `start` where it ends in `bytes` without an escape and
    /// is not a function, as the name state would, without keeping its bytes: an identifier or a
    /// hash or number ends an `@import` prelude; an at-keyword is compared in place.
    /// - Returns: Where the byte after the name is, or `nil` when the name is left to the name state.
    @inline(__always)
    private mutating func nameInPlace(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, classes: UnsafePointer<UInt8>)
        -> Int?
    {
        let first = bytes[start]
        guard classes[Int(first)] & ByteClass.startsName.rawValue != 0 else { return nil }
        let isAtKeyword = first == UInt8(ascii: "@")
        var end = start + 1
        while end < bytes.count, classes[Int(bytes[end])] & ByteClass.name.rawValue != 0 { end += 1 }
        guard end < bytes.count, bytes[end] != UInt8(ascii: "\\"), bytes[end] != UInt8(ascii: "(") else { return nil }
        guard isAtKeyword else {
            otherToken()
            return end
        }
        let name = UnsafeBufferPointer(rebasing: bytes[(start + 1)..<end])
        if Self.equalsLowercased(name, "import") {
            pendingRule = braceDepth == 0 && importsAllowed ? .importRule : .ignored
        } else if Self.equalsLowercased(name, "namespace") {
            pendingRule = .ignored
        } else if Self.equalsLowercased(name, "font-face") {
            pendingRule = .fontFace
        } else if name.contains(where: { $0 >= 0x80 }) {
            // Lowering non-ASCII text is the name state's work.
            return nil
        } else {
            pendingRule = .none
        }
        return end
    }

    /// Whether the ASCII `bytes` are `word` (in lower case) in any ASCII case.
    static func equalsLowercased(_ bytes: UnsafeBufferPointer<UInt8>, _ word: StaticString) -> Bool {
        guard bytes.count == word.utf8CodeUnitCount else { return false }
        let expected = word.utf8Start
        for offset in 0..<bytes.count {
            let byte = bytes[offset]
            if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != expected[offset] { return false }
        }
        return true
    }

    /// Ends the stylesheet: an unterminated string or `url(` still counts, as in browsers.
    mutating func finish() {
        switch state {
        case .string: stringToken()
        case .urlUnquoted, .urlAfterSpace: urlToken()
        case .name: nameToken()
        default: break
        }
        state = .normal
        context.finish(into: &found)
    }

    /// Handles one byte that ``consume(_:)`` did not pass over; comments are handled there.
    private mutating func step(_ scalar: UInt8) {
        switch state {
        case .normal:
            normal(scalar)
        case .slash:
            if scalar == UInt8(ascii: "*") {
                context.dropLastByte()
                state = .comment
            } else {
                state = .normal
                otherToken()
                normal(scalar)
            }
        case .comment, .commentStar:
            break
        case .string:
            string(scalar)
        case .name:
            name(scalar)
        case .urlStart:
            urlStart(scalar)
        case .urlUnquoted:
            urlUnquoted(scalar)
        case .urlAfterSpace:
            if scalar == UInt8(ascii: ")") {
                state = .normal
                urlToken()
            } else if !Self.isWhitespace(scalar) {
                state = .badURL
                badURL(scalar)
            }
        case .badURL:
            badURL(scalar)
        }
    }

    // MARK: - States

    private mutating func normal(_ scalar: UInt8) {
        switch scalar {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0C:
            break
        case UInt8(ascii: "/"):
            state = .slash
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            startToken(.string)
            quote = scalar
        case UInt8(ascii: "\\"):
            startToken(.name)
            nameKind = .identifier
            append(scalar)
            escaped = true
        case UInt8(ascii: "@"):
            startToken(.name)
            nameKind = .atKeyword
        case UInt8(ascii: "#"):
            startToken(.name)
            nameKind = .hashOrNumber
        case UInt8(ascii: "0")...UInt8(ascii: "9"):
            startToken(.name)
            nameKind = .hashOrNumber
        case UInt8(ascii: "("):
            openParenthesis(.plain)
        case UInt8(ascii: ")"):
            closeParenthesis()
        case UInt8(ascii: "{"):
            openBlock()
        case UInt8(ascii: "}"):
            closeBlock()
        case UInt8(ascii: ";"):
            pendingRule = .none
            if braceDepth == 0 && importsAllowed { endTopLevelStatement() }
            context.endDeclaration(into: &found)
        default:
            if Self.isNameCharacter(scalar) {
                startToken(.name)
                nameKind = .identifier
                append(scalar)
            } else {
                otherToken()
            }
        }
    }

    private mutating func string(_ scalar: UInt8) {
        if escaped {
            escaped = false
            append(scalar)
        } else if scalar == UInt8(ascii: "\\") {
            escaped = true
            append(scalar)
        } else if scalar == quote {
            state = .normal
            stringToken()
        } else if scalar == UInt8(ascii: "\n") || scalar == UInt8(ascii: "\r") || scalar == 0x0C {
            // A bad string: the token ends here and the newline is whitespace.
            state = .normal
            otherToken()
        } else {
            append(scalar)
        }
    }

    private mutating func name(_ scalar: UInt8) {
        if continuesHexEscape(scalar) { return }
        if escaped {
            escaped = false
            if Self.isNewline(scalar) {
                // "\" before a newline is not an escape: the name ends before the backslash.
                buffer.removeLast()
                state = .normal
                nameToken()
                otherToken()
                normal(scalar)
            } else {
                append(scalar)
                if Self.hexValue(scalar) != nil { escapeHexDigits = 1 }
            }
            return
        }
        if Self.continuesName(scalar) {
            append(scalar)
        } else if scalar == UInt8(ascii: "\\") {
            escaped = true
            append(scalar)
        } else if scalar == UInt8(ascii: "(") && nameKind == .identifier {
            if !overflowed && buffer.withUnsafeBufferPointer({ Self.name($0, is: "url") }) {
                state = .urlStart
            } else {
                state = .normal
                functionToken()
            }
        } else {
            state = .normal
            nameToken()
            normal(scalar)
        }
    }

    private mutating func urlStart(_ scalar: UInt8) {
        switch scalar {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0C:
            break
        case UInt8(ascii: "\""), UInt8(ascii: "'"):
            // `url("x")` is a function token followed by a string token.
            openParenthesis(.url)
            startToken(.string)
            quote = scalar
        case UInt8(ascii: ")"):
            state = .normal
            pendingRule = .none
        default:
            startToken(.urlUnquoted)
            urlUnquoted(scalar)
        }
    }

    private mutating func urlUnquoted(_ scalar: UInt8) {
        if continuesHexEscape(scalar) { return }
        if escaped {
            escaped = false
            if Self.isNewline(scalar) {
                state = .badURL
            } else {
                append(scalar)
                if Self.hexValue(scalar) != nil { escapeHexDigits = 1 }
            }
            return
        }
        switch scalar {
        case UInt8(ascii: ")"):
            state = .normal
            urlToken()
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), 0x0C:
            state = .urlAfterSpace
        case UInt8(ascii: "\\"):
            escaped = true
            append(scalar)
        case UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "("), 0x00...0x08, 0x0B, 0x0E...0x1F, 0x7F:
            state = .badURL
        default:
            append(scalar)
        }
    }

    /// Consumes the rest of a hex escape: up to six digits, then one whitespace; `false` when done.
    private mutating func continuesHexEscape(_ scalar: UInt8) -> Bool {
        guard escapeHexDigits > 0 else { return false }
        if escapeHexDigits < 6 && Self.hexValue(scalar) != nil {
            append(scalar)
            escapeHexDigits += 1
            return true
        }
        escapeHexDigits = 0
        if Self.isWhitespace(scalar) {
            append(scalar)
            return true
        }
        return false
    }

    private mutating func badURL(_ scalar: UInt8) {
        if escaped {
            escaped = false
        } else if scalar == UInt8(ascii: "\\") {
            escaped = true
        } else if scalar == UInt8(ascii: ")") {
            state = .normal
            pendingRule = .none
        }
    }

    private mutating func startToken(_ newState: State) {
        state = newState
        buffer.removeAll()
        overflowed = false
        escaped = false
        escapeHexDigits = 0
    }

    private mutating func append(_ scalar: UInt8) {
        if buffer.count < Self.maximumTokenLength {
            buffer.append(scalar)
        } else {
            overflowed = true
        }
    }

    /// Appends a run of the token's bytes, as far as ``maximumTokenLength`` allows.
    private mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        let room = Self.maximumTokenLength - buffer.count
        if range.count > room { overflowed = true }
        guard room > 0 else { return }
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range.lowerBound..<(range.lowerBound + min(room, range.count))]))
    }

    // MARK: - Tokens

    private mutating func stringToken() {
        defer { escaped = false }
        guard !overflowed else {
            pendingRule = .none
            return
        }
        if pendingRule == .importRule && (parentheses.isEmpty || parentheses == [.url]) {
            record(.stylesheet, .importRule)
        } else if pendingRule != .ignored, let innermost = parentheses.last, innermost != .plain {
            record(nil, innermost == .imageSet ? .imageSet : .url)
        }
        if pendingRule != .fontFace && pendingRule != .ignored { pendingRule = .none }
    }

    private mutating func urlToken() {
        defer { escaped = false }
        guard !overflowed else {
            pendingRule = .none
            return
        }
        if pendingRule == .importRule && parentheses.isEmpty {
            record(.stylesheet, .importRule)
        } else if pendingRule != .ignored {
            record(nil, parentheses.contains(.imageSet) ? .imageSet : .url)
        }
        if pendingRule != .fontFace && pendingRule != .ignored { pendingRule = .none }
    }

    private mutating func nameToken() {
        escaped = false
        guard nameKind == .atKeyword else {
            otherToken()
            return
        }
        switch buffer.withUnsafeBufferPointer(Self.lowercasedName) {
        case "import" where braceDepth == 0 && importsAllowed:
            pendingRule = .importRule
        case "import", "namespace":
            pendingRule = .ignored
        case "font-face":
            pendingRule = .fontFace
        default:
            pendingRule = .none
        }
    }

    /// A function other than `url(`, its name in ``buffer``.
    private mutating func functionToken() {
        if buffer.withUnsafeBufferPointer({ Self.name($0, is: "image-set") || Self.name($0, is: "-webkit-image-set") }) {
            openParenthesis(.imageSet)
        } else if buffer.withUnsafeBufferPointer({ Self.name($0, is: "src") }) {
            openParenthesis(.url)
        } else {
            openParenthesis(.plain)
        }
    }

    /// A `;` at the top level while `@import`s are still valid: the statement it ends keeps them
    /// valid if it is an `@import`, an `@charset`, or an `@layer` before the first `@import`.
    private mutating func endTopLevelStatement() {
        switch context.statementAtKeyword() {
        case "import": sawImport = true
        case "charset", "": break
        case "layer" where !sawImport: break
        default: importsAllowed = false
        }
    }

    /// Any token that ends an `@import` prelude before its URL.
    private mutating func otherToken() {
        if pendingRule == .importRule { pendingRule = .none }
    }

    private mutating func record(_ kind: Reference.Kind?, _ construct: Reference.CSSConstruct) {
        let value = buffer.withUnsafeBufferPointer(Self.decodeEscapes)
        if fontFaceDepth != nil && construct != .importRule {
            context.hold(Found(value: value, kind: .font, construct: .fontFace), into: &found)
        } else {
            context.hold(Found(value: value, kind: kind ?? .image, construct: construct), into: &found)
        }
    }

    // MARK: - Nesting

    private mutating func openParenthesis(_ kind: Parenthesis) {
        if kind == .plain { otherToken() }
        if kind == .imageSet { context.openImageSet() }
        if parentheses.count < Self.maximumParenthesisDepth {
            parentheses.append(kind)
        } else {
            untrackedParentheses += 1
        }
    }

    private mutating func closeParenthesis() {
        if untrackedParentheses > 0 {
            untrackedParentheses -= 1
        } else if !parentheses.isEmpty {
            if parentheses.removeLast() == .imageSet { context.closeImageSet() }
        }
    }

    private mutating func openBlock() {
        context.openBlock(into: &found)
        if braceDepth == 0 { importsAllowed = false }
        braceDepth += 1
        if pendingRule == .fontFace && fontFaceDepth == nil { fontFaceDepth = braceDepth }
        pendingRule = .none
        if !parentheses.isEmpty { parentheses.removeAll() }
        untrackedParentheses = 0
    }

    private mutating func closeBlock() {
        context.closeBlock(into: &found)
        if fontFaceDepth == braceDepth { fontFaceDepth = nil }
        braceDepth = max(0, braceDepth - 1)
        pendingRule = .none
        if !parentheses.isEmpty { parentheses.removeAll() }
        untrackedParentheses = 0
    }

    // MARK: - Characters

    /// What ``consume(_:classes:)`` needs to know of a byte, as bits of ``byteClasses``.
    private struct ByteClass: OptionSet {
        let rawValue: UInt8
        /// Continues a name without an escape: a name character or a digit.
        static let name = ByteClass(rawValue: 1)
        /// Starts a name that ``nameInPlace(_:from:classes:)`` may read: a name byte, `@` or `#`.
        static let startsName = ByteClass(rawValue: 2)
        /// Whitespace, which changes nothing in the normal state.
        static let whitespace = ByteClass(rawValue: 4)
        /// A byte that may change the normal state: `/`, a quote, a backslash, `@`, a parenthesis,
        /// a brace or `;`. Whitespace, `#`, name bytes and delimiters such as `,`, `.`, `:` or `>`
        /// do not, unless an `@import` waits for its URL.
        static let special = ByteClass(rawValue: 8)
        /// Ends a string's run of plain text: a quote, a backslash or a newline.
        static let endsString = ByteClass(rawValue: 16)
        /// Ends an unquoted URL's run of plain text: `)`, whitespace, a backslash, a quote, `(`
        /// or a control character that makes it a bad URL.
        static let endsUnquotedURL = ByteClass(rawValue: 32)
        /// A byte at which ``context`` reads the text so far: the ends of declarations and blocks,
        /// parentheses (around `image-set()`) and quotes (which end a string it may hold).
        static let readByContext = ByteClass(rawValue: 64)
    }

    /// The ``ByteClass`` bits of every byte.
    private static let byteClasses: [UInt8] = (0...255).map { value in
        let byte = UInt8(value)
        var classes: ByteClass = []
        let isName = continuesName(byte)
        if isName { classes.insert(.name) }
        if isName || byte == UInt8(ascii: "@") || byte == UInt8(ascii: "#") { classes.insert(.startsName) }
        if isWhitespace(byte) { classes.insert(.whitespace) }
        if Array("\"'\\".utf8).contains(byte) || isNewline(byte) { classes.insert(.endsString) }
        if byte <= 0x20 || byte == 0x7F || Array(")\\\"'(".utf8).contains(byte) { classes.insert(.endsUnquotedURL) }
        if Array(";{}()\"'".utf8).contains(byte) { classes.insert(.readByContext) }
        if Array("/\"'\\@(){};".utf8).contains(byte) { classes.insert(.special) }
        return classes.rawValue
    }

    /// A space, tab or newline (§4.2 "whitespace").
    static func isWhitespace(_ scalar: UInt8) -> Bool {
        scalar == UInt8(ascii: " ") || scalar == UInt8(ascii: "\t") || isNewline(scalar)
    }

    /// A line feed, carriage return or form feed (§4.2 "newline", before preprocessing).
    static func isNewline(_ scalar: UInt8) -> Bool {
        scalar == UInt8(ascii: "\n") || scalar == UInt8(ascii: "\r") || scalar == 0x0C
    }

    /// A byte that continues a name without an escape: a name character or a digit.
    static func continuesName(_ scalar: UInt8) -> Bool {
        isNameCharacter(scalar) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(scalar)
    }

    /// Name-start code points plus `-`; digits are added where a name continues.
    private static func isNameCharacter(_ scalar: UInt8) -> Bool {
        switch scalar {
        case 0x41...0x5A, 0x61...0x7A, 0x5F, 0x2D, 0x80...: return true
        default: return false
        }
    }

    /// The value of an ASCII hex digit.
    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case 0x30...0x39: UInt32(byte - 0x30)
        case 0x41...0x46: UInt32(byte - 0x41 + 10)
        case 0x61...0x66: UInt32(byte - 0x61 + 10)
        default: nil
        }
    }

    /// Whether the name in `raw`, its escapes decoded and in lower case, is `word`: compared in
    /// place when it is ASCII without escapes.
    static func name(_ raw: UnsafeBufferPointer<UInt8>, is word: StaticString) -> Bool {
        guard raw.contains(where: { $0 >= 0x80 || $0 == UInt8(ascii: "\\") }) else {
            return equalsLowercased(raw, word)
        }
        return lowercasedName(raw) == word.description
    }

    /// The name in `raw` with its escapes decoded, in lower case.
    static func lowercasedName(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        guard raw.allSatisfy({ $0 < 0x80 && $0 != UInt8(ascii: "\\") }) else { return decodeEscapes(raw).lowercased() }
        return String(decoding: raw.map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }, as: UTF8.self)
    }

    /// Replaces CSS escapes (`\26`, `\"`, `\` + newline in strings) with what they stand for
    /// (§4.3.7), and broken UTF-8 with U+FFFD.
    static func decodeEscapes(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        guard ByteSearch.first(UInt8(ascii: "\\"), in: raw, from: 0, to: raw.count) != nil else {
            return String(decoding: raw, as: UTF8.self)
        }
        var output: [UInt8] = []
        output.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            index += 1
            guard byte == UInt8(ascii: "\\") else {
                output.append(byte)
                continue
            }
            guard index < raw.count else { break }
            let next = raw[index]
            if isNewline(next) {
                index += 1
                if next == UInt8(ascii: "\r"), index < raw.count, raw[index] == UInt8(ascii: "\n") { index += 1 }
                continue
            }
            guard hexValue(next) != nil else {
                output.append(next)
                index += 1
                continue
            }
            var value: UInt32 = 0
            var digits = 0
            while digits < 6, index < raw.count, let digit = hexValue(raw[index]) {
                value = value * 16 + digit
                digits += 1
                index += 1
            }
            if index < raw.count, isWhitespace(raw[index]) {
                index += 1
                if raw[index - 1] == UInt8(ascii: "\r"), index < raw.count, raw[index] == UInt8(ascii: "\n") {
                    index += 1
                }
            }
            if value == 0 || (0xD800...0xDFFF).contains(value) || value > 0x10FFFF {
                output.append(contentsOf: TextDecoder.replacementUTF8)
            } else if let decoded = Unicode.Scalar(value) {
                TextDecoder.append(decoded, to: &output)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }
}
