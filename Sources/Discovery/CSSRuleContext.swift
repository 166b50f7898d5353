import FoundationEssentials
import HTTPCore

/// What surrounds the URLs ``CSSTokenizer`` finds: the `@media` blocks, the style rule's selector,
/// the `@import`'s media, the `image-set()` options and the `@font-face` rule, read from the text
/// of each prelude and declaration as the tokenizer passes it on.
///
/// The tokenizer hands every byte outside comments to ``append(_:_:)`` and says where blocks and
/// declarations begin and end; a URL it finds is held until the end of its declaration (or, in
/// `@font-face`, of its rule), when what follows it (`2x`, `format("woff2")`, `print`) is known,
/// and then released with its ``Reference/Condition``. The font families that rules name are
/// collected in ``usedFontFamilies``. The text kept is bounded: a prelude or declaration longer
/// than ``maximumTextLength`` loses its conditions, and its URLs count as unconditional.
struct CSSRuleContext: Sendable {
    /// The longest prelude or declaration read.
    static let maximumTextLength = 32 * 1024
    /// The most URLs held in one declaration or `@font-face` rule; more are released unconditional.
    static let maximumHeld = 1024

    /// Font families that declarations name (`font-family`, `font`, and names in custom properties,
    /// which `var()` may pass on), with the selectors of their rules.
    private(set) var usedFontFamilies: Set<FontFamilyUse> = []
    /// The characters that `content`, `quotes` and list marker strings may render (``TextCharacters``).
    private(set) var textCharacters = TextCharacters()
    /// The families of the font values declared last.
    private var recentFontValues = RecentFontValues()
    /// The hash of the innermost style rule's selector (``FontFamilyUse/hash(of:)``) once a
    /// declaration asked for it, for the rule's other font and image declarations; forgotten when
    /// a block opens or closes.
    private var ruleSelectorHash: Int?

    private enum Block: Sendable {
        case media(String), style(String), fontFace, keyframes, other
        /// An `@supports` rule: its condition and whether the device's engine meets it.
        case supports(String, Truth)
    }

    /// The UTF-8 of the current prelude or declaration, as far as it is copied: the part read from
    /// earlier pieces of input or already needed whole.
    private var text = ByteBuffer()
    /// The rest of the current prelude or declaration, not copied: this range of the piece of
    /// input being tokenized. The tokenizer copies it (``flush(_:)``) before the context reads
    /// ``text`` and at the end of each piece, so that only a declaration that ends where it started
    /// is read in place (``endDeclaration(in:into:)``).
    private var pending = 0..<0
    private var textOverflowed = false
    private var blocks: [Block] = []
    private var held: [CSSTokenizer.Found] = []
    /// Where the text after an `@import`'s URL starts.
    private var importTextStart: Int?
    /// Where the current `image-set(`'s arguments start in the text, and the first URL held in it.
    private var imageSet: (textStart: Int, firstHeld: Int)?
    private var faceFamily: String?
    /// The `@font-face` rule's `unicode-range`; `nil` when it has none or an invalid one.
    private var faceRange: UnicodeRange?
    private var faceSources: [CSSTokenizer.Found] = []
    /// The image declarations of style rules so far (CSS Cascade Level 4 §6: of two declarations
    /// for the same selector, the later wins), for ``finish(into:)``.
    private var imageDeclarations: [ImageDeclaration] = []
    /// URLs of style rules, held until the stylesheet ends, when the later declarations that
    /// replace them are known.
    private var ruleImages: [(item: CSSTokenizer.Found, declaration: Int?)] = []

    /// A declaration of a property that shows an image, such as `background` or `content`.
    private struct ImageDeclaration: Sendable {
        var selector: String
        /// ``selector``'s hash (``FontFamilyUse/hash(of:)``).
        var selectorHash: Int
        /// The property the declaration sets, its shorthand written as the longhand (`background-image`).
        var property: DeclaredProperty.ImageLonghand
        var media: [String]
        var isImportant: Bool
        /// Whether it is in an `@supports` rule whose condition is not known to hold: it then
        /// replaces no earlier declaration.
        var isConditional: Bool
    }

    /// The most image declarations and style-rule URLs kept for the cascade; past them, URLs are
    /// released as they are found, without it.
    static let maximumCascade = 16 * 1024

    /// Makes it a new context, keeping the storage of its text, blocks and held URLs: each
    /// property is set back in place (``CSSTokenizer/reset()``).
    mutating func reset() {
        ruleSelectorHash = nil
        if !usedFontFamilies.isEmpty { usedFontFamilies = [] }
        if !textCharacters.isEmpty { textCharacters = TextCharacters() }
        recentFontValues.removeAll()
        text.removeAll()
        pending = 0..<0
        textOverflowed = false
        if !blocks.isEmpty { blocks.removeAll(keepingCapacity: true) }
        if !held.isEmpty { held.removeAll(keepingCapacity: true) }
        importTextStart = nil
        imageSet = nil
        faceFamily = nil
        faceRange = nil
        if !faceSources.isEmpty { faceSources = [] }
        if !imageDeclarations.isEmpty { imageDeclarations = [] }
        if !ruleImages.isEmpty { ruleImages = [] }
    }

    // MARK: - Input from the tokenizer

    /// Adds `bytes[range]` to the text, as far as ``maximumTextLength`` allows: as the pending
    /// range when it follows it in `bytes`, the piece of input being tokenized.
    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        // Counts within a piece of input and the kept text cannot overflow, and a pending range
        // extended to the end of one that follows it stays ordered: neither is checked again.
        if !textOverflowed, text.count &+ pending.count &+ range.count <= Self.maximumTextLength {
            if pending.isEmpty {
                pending = range
                return
            }
            if pending.upperBound == range.lowerBound {
                pending = Range(uncheckedBounds: (pending.lowerBound, range.upperBound))
                return
            }
        }
        flushAndCopy(bytes, range)
    }

    /// ``append(_:_:)`` of a range that does not extend the pending one, or past the room.
    @inline(never)
    private mutating func flushAndCopy(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        flush(bytes)
        copy(bytes, range)
    }

    /// Copies the pending range of `bytes` to the text, before the context reads it or `bytes` goes.
    mutating func flush(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard !pending.isEmpty else { return }
        let range = pending
        pending = 0..<0
        copy(bytes, range)
    }

    /// Appends `bytes[range]` to the copied text, as far as ``maximumTextLength`` allows.
    private mutating func copy(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        let room = Self.maximumTextLength - text.count
        if range.count > room { textOverflowed = true }
        guard room > 0 else { return }
        let end = range.lowerBound + min(room, range.count)
        text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range.lowerBound..<end]))
    }

    /// Takes back the `/` that turned out to start a comment.
    mutating func dropLastByte() {
        if !pending.isEmpty {
            pending = pending.lowerBound..<(pending.upperBound - 1)
        } else if !textOverflowed, !text.isEmpty {
            text.removeLast()
        }
    }

    /// Holds a URL until its declaration ends; references found in a `@font-face` until the rule ends.
    mutating func hold(_ item: CSSTokenizer.Found, into found: inout [CSSTokenizer.Found]) {
        var item = item
        let media = mediaStack
        let selector = currentSelector
        let unmet = unmetSupportsCondition
        if item.construct == .importRule {
            // Browsers fetch an imported stylesheet whatever its media, which then holds for its rules.
            item.condition = Reference.Condition(media: media, isStylesheet: true)
            importTextStart = text.count + pending.count
        } else if !media.isEmpty || selector != nil || unmet != nil {
            // Made whole before it is boxed: setting a field through `item.condition` boxed it twice.
            var condition = Reference.Condition(media: media, selector: selector)
            condition.unmetSupportsCondition = unmet
            item.condition = condition
        }
        if held.count >= Self.maximumHeld { release(into: &found) }
        held.append(item)
    }

    mutating func openImageSet() {
        imageSet = (text.count + pending.count, held.count)
    }

    mutating func closeImageSet() {
        guard let (textStart, firstHeld) = imageSet else { return }
        imageSet = nil
        guard !textOverflowed, textStart <= text.count - 1, firstHeld <= held.count else { return }
        let arguments = String(decoding: text.bytes[textStart..<(text.count - 1)], as: UTF8.self)
        let options = Self.imageSetOptions(arguments)
        let withURLs = options.indices.filter { options[$0].hasURL }
        let heldIndices = Array(firstHeld..<held.count)
        var candidates = options.map { ImageCandidate(url: "", descriptor: $0.descriptor, type: $0.type) }
        for (offset, heldIndex) in heldIndices.enumerated() where offset < withURLs.count {
            candidates[withURLs[offset]].url = held[heldIndex].value
        }
        for (offset, heldIndex) in heldIndices.enumerated() where offset < withURLs.count {
            var condition = held[heldIndex].condition ?? Reference.Condition()
            condition.image = .imageSet(candidates, option: withURLs[offset])
            held[heldIndex].condition = condition
        }
    }

    /// A `;` in `bytes`, the piece of input being tokenized, the declaration's text pending in it:
    /// ``endDeclaration(into:)``, with a declaration of a property that says nothing of fonts or
    /// images (most of them) read in place, without copying it.
    mutating func endDeclaration(in bytes: UnsafeBufferPointer<UInt8>, into found: inout [CSSTokenizer.Found]) {
        if text.isEmpty, !pending.isEmpty, !textOverflowed, importTextStart == nil, bytes[pending.upperBound - 1] < 0x80,
            (Self.namedProperty(UnsafeBufferPointer(rebasing: bytes[pending]))?.0 ?? .other) == .other
        {
            release(into: &found)
            resetText()
            return
        }
        flush(bytes)
        endDeclaration(into: &found)
    }

    /// A `;`: the end of a declaration or of a statement at-rule such as `@import`.
    mutating func endDeclaration(into found: inout [CSSTokenizer.Found]) {
        if let start = importTextStart, !textOverflowed {
            let (media, supports) = Self.importConditions(String(
                decoding: Self.droppingLastCharacter(text.bytes[min(start, text.count)...]), as: UTF8.self))
            let unmet = supports.flatMap { Self.importSupports($0) == .false ? $0 : nil }
            if !media.isEmpty || unmet != nil, let index = held.lastIndex(where: { $0.construct == .importRule }) {
                var condition = held[index].condition ?? Reference.Condition()
                if !media.isEmpty { condition.media.append(media) }
                condition.unmetSupportsCondition = unmet
                held[index].condition = condition
            }
        }
        importTextStart = nil
        let declared = textOverflowed ? nil : readDeclaration()
        release(into: &found, declaration: declared)
        resetText()
    }

    /// The at-keyword that starts the statement read so far, in ASCII lower case, after whitespace
    /// and the `<!--` and `-->` a stylesheet's top level may hold; `""` when nothing but them comes
    /// before its `;`; `nil` when it starts otherwise or its text is too long to keep. Reads the
    /// copied text only: the tokenizer flushes it first.
    func statementAtKeyword() -> String? {
        guard !textOverflowed else { return nil }
        let bytes = text.bytes
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if CSSTokenizer.isWhitespace(bytes[index]) {
                index += 1
            } else if bytes[index...].starts(with: "<!--".utf8) {
                index += 4
            } else if bytes[index...].starts(with: "-->".utf8) {
                index += 3
            } else {
                break
            }
        }
        guard index < bytes.endIndex, bytes[index] != UInt8(ascii: ";") else { return "" }
        guard bytes[index] == UInt8(ascii: "@") else { return nil }
        let name = bytes[(index + 1)...].prefix(while: CSSTokenizer.continuesName)
        guard !name.isEmpty else { return nil }
        return name.withUnsafeBufferPointer(CSSTokenizer.lowercasedName)
    }

    /// A `{`: the text so far is the block's prelude.
    mutating func openBlock(into found: inout [CSSTokenizer.Found]) {
        let prelude =
            textOverflowed ? nil : text.withUnsafeBufferPointer { Self.trimmed(UnsafeBufferPointer(rebasing: $0.dropLast())) }
        release(into: &found)
        resetText()
        let block: Block
        if let prelude {
            // Only at-rules are told apart by name; a style rule's selector keeps its case.
            let isAtRule = prelude.utf8.first == UInt8(ascii: "@")
            if case .keyframes? = blocks.last {
                block = .other
            } else if !isAtRule {
                block = .style(Self.nested(prelude, in: currentSelector))
            } else {
                block = Self.atRuleBlock(prelude)
            }
        } else {
            block = .other
        }
        if case .fontFace = block {
            faceFamily = nil
            faceRange = nil
            faceSources = []
        }
        if blocks.count < 256 { blocks.append(block) }
        ruleSelectorHash = nil
    }

    /// A `}`: the last declaration ends, and so does the block.
    mutating func closeBlock(into found: inout [CSSTokenizer.Found]) {
        endDeclaration(into: &found)
        imageSet = nil
        guard let block = blocks.popLast() else { return }
        ruleSelectorHash = nil
        if case .fontFace = block { releaseFontFace(into: &found) }
    }

    /// The block an at-rule opens, by its name in any case, with a `@media` block's query list.
    /// A prelude whose first bytes are ASCII (as at-rule names are) is read as bytes; any other is
    /// lowered and trimmed as Unicode text.
    private static func atRuleBlock(_ prelude: String) -> Block {
        // Past the longest name compared, `@-webkit-keyframes`, so that no combining mark can follow it.
        let longest = 19
        var prelude = prelude
        let read: Block? = prelude.withUTF8 { bytes in
            var bits: UInt8 = 0
            for byte in bytes.prefix(longest) { bits |= byte }
            guard bits < 0x80 else { return nil }
            func starts(with word: StaticString) -> Bool {
                bytes.count >= word.utf8CodeUnitCount
                    && CSSTokenizer.equalsLowercased(UnsafeBufferPointer(rebasing: bytes.prefix(word.utf8CodeUnitCount)), word)
            }
            if starts(with: "@media") { return .media(trimmedOfSpaces(bytes, from: 6)) }
            if starts(with: "@supports") { return supports(trimmedOfSpaces(bytes, from: 9)) }
            if starts(with: "@font-face") { return .fontFace }
            if starts(with: "@keyframes") || starts(with: "@-webkit-keyframes") { return .keyframes }
            return .other
        }
        if let read { return read }
        let lowered = prelude.lowercased()
        if lowered.hasPrefix("@media") { return .media(trimmedOfSpaces(prelude.dropFirst(6))) }
        if lowered.hasPrefix("@supports") { return supports(trimmedOfSpaces(prelude.dropFirst(9))) }
        if lowered.hasPrefix("@font-face") { return .fontFace }
        if lowered.hasPrefix("@keyframes") || lowered.hasPrefix("@-webkit-keyframes") { return .keyframes }
        return .other
    }

    /// The block of an `@supports` rule with `condition`, evaluated once.
    private static func supports(_ condition: String) -> Block {
        .supports(condition, SupportsCondition.evaluate(condition))
    }

    /// The end of the stylesheet: what is held is released.
    mutating func finish(into found: inout [CSSTokenizer.Found]) {
        endDeclaration(into: &found)
        while let block = blocks.popLast() {
            if case .fontFace = block { releaseFontFace(into: &found) }
        }
        ruleSelectorHash = nil
        let later = ruleImages.isEmpty ? [] : Self.laterDeclarations(imageDeclarations)
        for (item, declaration) in ruleImages {
            found.append(Self.withLaterDeclarations(item, declaration, imageDeclarations, later))
        }
        ruleImages = []
    }

    /// For each image declaration, the index of the next one for the same selector and property.
    private static func laterDeclarations(_ declarations: [ImageDeclaration]) -> [Int?] {
        /// A selector and property, hashed by the selector's hash rather than its text.
        struct Key: Hashable {
            var selector: String
            var selectorHash: Int
            var property: DeclaredProperty.ImageLonghand

            static func == (left: Key, right: Key) -> Bool {
                left.selectorHash == right.selectorHash && left.property == right.property
                    && left.selector == right.selector
            }

            /// The selector's hash and the longhand's by the length of its name (equal longhands
            /// have equal names), in one word: hashing the name's text cost more than the rest.
            func hash(into hasher: inout Hasher) {
                hasher.combine(selectorHash &* 0x61C8_8646_80B5_83EB ^ property.rawValue.utf8.count)
            }

            /// The same word mixed with the table's seed without a `Hasher`, as a font use is
            /// (``FontFamilyUse/_rawHashValue(seed:)``): the selector's hash is seeded already.
            func _rawHashValue(seed: Int) -> Int {
                FontFamilyUse.mixed(selectorHash &* 0x61C8_8646_80B5_83EB ^ property.rawValue.utf8.count, seed: seed)
            }
        }
        var next = [Int?](repeating: nil, count: declarations.count)
        // Made at its final size: each growth would hash every selector again.
        var latest = [Key: Int](minimumCapacity: declarations.count)
        for index in declarations.indices.reversed() {
            let declaration = declarations[index]
            let key = Key(selector: declaration.selector, selectorHash: declaration.selectorHash,
                          property: declaration.property)
            next[index] = latest.updateValue(index, forKey: key)
        }
        return next
    }

    /// `item` with the media of the later declarations for the same selector and property, which
    /// replace it where they apply (``Reference/Condition/replacedUnder``); `later` links each
    /// declaration to the next such one.
    private static func withLaterDeclarations(
        _ item: CSSTokenizer.Found, _ index: Int?, _ declarations: [ImageDeclaration], _ later: [Int?]
    ) -> CSSTokenizer.Found {
        guard let index, index < declarations.count, !declarations[index].isImportant else { return item }
        var item = item
        var next = later[index]
        while let replacing = next {
            if !declarations[replacing].isConditional {
                item.condition?.replacedUnder.append(declarations[replacing].media)
            }
            next = later[replacing]
        }
        return item
    }

    // MARK: - State

    private var mediaStack: [String] {
        blocks.compactMap { if case .media(let media) = $0 { media } else { nil } }
    }

    /// The condition of the outermost enclosing `@supports` rule that the device's engine does not meet.
    private var unmetSupportsCondition: String? {
        for block in blocks {
            if case .supports(let condition, .false) = block { return condition }
        }
        return nil
    }

    /// Whether an enclosing `@supports` rule's condition is not known to hold.
    private var isConditional: Bool {
        blocks.contains { if case .supports(_, let truth) = $0 { truth != .true } else { false } }
    }

    private var currentSelector: String? {
        for block in blocks.reversed() {
            if case .style(let selector) = block { return selector }
        }
        return nil
    }

    /// The hash of `selector`, the innermost style rule's (``currentSelector``) or `nil`, made once
    /// a rule.
    private mutating func hash(ofSelector selector: String?) -> Int {
        assert(selector == currentSelector, "A selector hash asked for another rule's selector.")
        guard let selector else { return Self.noSelectorHash }
        if let known = ruleSelectorHash { return known }
        let hash = FontFamilyUse.hash(of: selector)
        ruleSelectorHash = hash
        return hash
    }

    /// The hash of a font use's selector in a `style` attribute or outside any rule, which has none.
    private static let noSelectorHash = FontFamilyUse.hash(of: nil)

    private var isInFontFace: Bool {
        if case .fontFace? = blocks.last { return true }
        return false
    }

    private mutating func resetText() {
        text.removeAll()
        pending = 0..<0
        textOverflowed = false
    }

    private mutating func release(into found: inout [CSSTokenizer.Found], declaration: Int? = nil) {
        guard !held.isEmpty else { return }
        if isInFontFace {
            faceSources.append(contentsOf: held)
            if faceSources.count > Self.maximumHeld { releaseFontFace(into: &found) }
        } else {
            for item in held {
                // The selector read in its box: `condition` copied the whole condition out.
                if item.conditionBox?.condition.selector != nil, ruleImages.count < Self.maximumCascade {
                    ruleImages.append((item, declaration))
                } else {
                    found.append(item)
                }
            }
        }
        // Emptied from its end, keeping its storage: `removeAll(keepingCapacity:)` goes through the
        // generic `replaceSubrange`, 170 instructions for the one URL a declaration most often holds.
        while !held.isEmpty { held.removeLast() }
    }

    private mutating func releaseFontFace(into found: inout [CSSTokenizer.Found]) {
        for var source in faceSources {
            if var face = source.condition?.fontFace {
                face.family = faceFamily
                face.unicodeRange = faceRange
                source.condition?.fontFace = face
            }
            found.append(source)
        }
        faceSources = []
    }

    // MARK: - Declarations

    /// Reads what the declaration in ``text`` (up to its `;` or `}`) says about fonts, and records
    /// a style rule's image declaration. Only the property name is read unless it is one of those,
    /// and it is compared as bytes where it is ASCII.
    /// - Returns: The index of the image declaration recorded, if any.
    private mutating func readDeclaration() -> Int? {
        guard let last = text.last else { return nil }
        guard last < 0x80 else {
            // The stylesheet ends inside a character: the text is read as the Encoding Standard decodes it.
            let declaration = Self.droppingLastCharacter(text.bytes)
            guard let colon = declaration.firstIndex(of: UInt8(ascii: ":")) else { return nil }
            return readDeclaration(declaration, property: DeclaredProperty(declaration[..<colon]), colon: colon)
        }
        // The property name is found and compared in place; most declarations end here.
        let named = text.withUnsafeBufferPointer(Self.namedProperty)
        guard let (property, colon) = named, property != .other else { return nil }
        return readDeclaration(text.bytes.dropLast(), property: property, colon: colon)
    }

    /// The property of `declaration`, whose last byte (the `;` or `}` that ends it) is ASCII, with
    /// where its colon is; `nil` when it has no colon, or when the first letter of its name starts
    /// none of the properties read (`display`, `padding`...), which is then known without its colon.
    private static func namedProperty(_ declaration: UnsafeBufferPointer<UInt8>) -> (DeclaredProperty, Int)? {
        var first = 0
        while first < declaration.count - 1, isSpace(declaration[first]) { first += 1 }
        guard DeclaredProperty.mayStartName(declaration[first]) else { return nil }
        guard let colon = ByteSearch.first(UInt8(ascii: ":"), in: declaration, from: 0, to: declaration.count - 1)
        else { return nil }
        return (DeclaredProperty(UnsafeBufferPointer(rebasing: declaration[..<colon])), colon)
    }

    /// ``readDeclaration()`` of `declaration` (without its last character), whose property is
    /// named before `colon`.
    private mutating func readDeclaration(_ declaration: ArraySlice<UInt8>, property: DeclaredProperty, colon: Int)
        -> Int?
    {
        let selector = currentSelector
        let longhand = selector == nil ? nil : property.imageLonghand
        let namesFonts: Bool
        switch property {
        case .fontFamily: namesFonts = true
        case .src, .unicodeRange: namesFonts = isInFontFace
        case .font: namesFonts = !isInFontFace
        case .custom: namesFonts = !isInFontFace && FontFamilies.mayNameAFamily(declaration[(colon + 1)...])
        default: namesFonts = false
        }
        let showsText = property.showsText && !isInFontFace && unmetSupportsCondition == nil
        guard longhand != nil || namesFonts || showsText else { return nil }
        let important = Self.lastImportant(in: declaration[(colon + 1)...])
        let value = declaration[(colon + 1)..<(important ?? declaration.endIndex)]
        var recorded: Int?
        if let selector, let longhand, imageDeclarations.count < Self.maximumCascade {
            let selectorHash = hash(ofSelector: selector)
            imageDeclarations.append(ImageDeclaration(
                selector: selector, selectorHash: selectorHash, property: longhand, media: mediaStack,
                isImportant: important != nil, isConditional: isConditional))
            recorded = imageDeclarations.count - 1
        }
        if namesFonts { readFonts(property: property, value: value, selector: selector) }
        if showsText {
            textCharacters.insert(cssValue: String(decoding: value, as: UTF8.self),
                                  listStyle: property != .image(.content) && property != .quotes)
        }
        return recorded
    }

    /// `bytes` without their last character (the `;`, `}` or `)` that ended them, or the last
    /// character of the stylesheet), broken UTF-8 counted as the Encoding Standard counts it.
    private static func droppingLastCharacter(_ bytes: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        guard let last = bytes.last else { return bytes }
        if last < 0x80 { return bytes.dropLast() }
        var scalars = String(decoding: bytes, as: UTF8.self).unicodeScalars
        scalars.removeLast()
        return Array(String(scalars).utf8)[...]
    }

    /// Where the last `!important` (in any ASCII case) of `bytes` starts.
    private static func lastImportant(in bytes: ArraySlice<UInt8>) -> Int? {
        bytes.withUnsafeBufferPointer { buffer in
            let word = "important".utf8
            // Most values have no `!`: one `memchr` says so instead of a test of every byte.
            guard ByteSearch.first(UInt8(ascii: "!"), in: buffer, from: 0, to: buffer.count - word.count) != nil else {
                return nil
            }
            var index = buffer.count - word.count - 1
            while index >= 0 {
                if buffer[index] == UInt8(ascii: "!"),
                    zip(buffer[(index + 1)...], word).allSatisfy({ $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 == $1 : $0 == $1 })
                {
                    return bytes.startIndex + index
                }
                index -= 1
            }
            return nil
        }
    }

    /// `text` without the leading and trailing characters of Foundation's `whitespacesAndNewlines`
    /// (Unicode spaces and line separators, tab to carriage return, U+0085), trimmed without
    /// bridging to `NSString`.
    static func trimmed(_ text: String) -> String { trimmed(Substring(text)) }

    /// ``trimmed(_:)-(String)`` of UTF-8 bytes, trimmed in place when the text has ASCII at both ends.
    /// The bytes are read through a pointer, as the string is made from them: through an array
    /// slice, each was read by index with its bounds checked, and the string copied a byte at a time.
    static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        var first = 0
        var end = bytes.count
        while first < end, isSpace(bytes[first]) { first += 1 }
        guard first < end else { return "" }
        while isSpace(bytes[end - 1]) { end -= 1 }
        guard bytes[first] < 0x80, bytes[end - 1] < 0x80 else { return trimmed(String(decoding: bytes, as: UTF8.self)) }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[first..<end]), as: UTF8.self)
    }

    /// An ASCII space, tab, line feed, vertical tab, form feed or carriage return.
    fileprivate static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || (byte >= 0x09 && byte <= 0x0D) }

    /// ``trimmed(_:)-(String)`` of a substring.
    static func trimmed(_ text: Substring) -> String { text.trimmingWhitespaceAndNewlines() }

    /// A declaration's property name that is not all ASCII: trimmed of Unicode spaces, in lower case.
    fileprivate static func propertyName(_ bytes: ArraySlice<UInt8>) -> String {
        trimmed(String(decoding: bytes, as: UTF8.self)).lowercased()
    }

    private mutating func readFonts(property: DeclaredProperty, value bytes: ArraySlice<UInt8>, selector: String?) {
        if isInFontFace {
            let value = String(decoding: bytes, as: UTF8.self)
            if property == .fontFamily {
                faceFamily = FontFamilies.names(inFamilyList: value).first
            } else if property == .src {
                annotateFontSources(value)
            } else if property == .unicodeRange {
                faceRange = UnicodeRange(value)
            }
            return
        }
        // A rule the engine does not apply uses no font.
        guard unmetSupportsCondition == nil else { return }
        let shorthand = property == .font
        let families = bytes.withUnsafeBufferPointer { value in
            recentFontValues.families(in: value, shorthand: shorthand) {
                FontFamilies.names(inASCII: value, shorthand: shorthand) ?? {
                    let text = String(decoding: value, as: UTF8.self)
                    return shorthand ? FontFamilies.names(inFontShorthand: text) : FontFamilies.names(inFamilyList: text)
                }()
            }
        }
        guard !families.isEmpty else { return }
        let selectorHash = hash(ofSelector: selector)
        if usedFontFamilies.count + families.count > usedFontFamilies.capacity {
            // Grown fourfold rather than doubled: each growth hashes every use again, and a
            // stylesheet with a `font` in each rule makes hundreds.
            usedFontFamilies.reserveCapacity(max(16, 4 * (usedFontFamilies.count + families.count)))
        }
        for family in families {
            // `update(with:)` rather than `insert(_:)`, which copies the member out to return it
            // (two retains and two releases a use); an equal use replaced is the same use.
            usedFontFamilies.update(with: FontFamilyUse(
                family: family.name, familyHash: family.hash, selector: selector, selectorHash: selectorHash))
        }
    }

    /// Gives each `url()` of a `src` descriptor its entry among the descriptor's entries.
    private mutating func annotateFontSources(_ value: String) {
        let entries = FontFamilies.sourceEntries(value)
        let withURLs = entries.indices.filter { entries[$0].isURL }
        let fonts = held.indices.filter { held[$0].kind == .font }
        for (offset, index) in fonts.enumerated() where offset < withURLs.count {
            var condition = held[index].condition ?? Reference.Condition()
            condition.fontFace = Reference.FontFaceSource(family: nil, entries: entries, entry: withURLs[offset])
            held[index].condition = condition
        }
    }

    // MARK: - Parsing helpers

    /// The media query list after an `@import`'s URL, without `layer` and `supports()` (CSS Cascade
    /// Level 5 §2.2 "Importing Style Sheets").
    static func importMedia(_ text: String) -> String { importConditions(text).media }

    /// What follows an `@import`'s URL: its media query list, and the condition of its `supports()`
    /// (CSS Cascade Level 5 §2.2 "Importing Style Sheets"), `layer` left out.
    static func importConditions(_ text: String) -> (media: String, supports: String?) {
        var rest = Substring(trimmed(text))
        // After `url("x.css"`, the string's closing parenthesis is still to come.
        if rest.hasPrefix(")") { rest = Substring(trimmed(rest.dropFirst())) }
        /// Drops `name(…)` from the start of `rest`; returns what was inside the parentheses.
        @discardableResult
        func dropFunction(_ name: String) -> Substring? {
            guard rest.lowercased().hasPrefix(name + "(") else { return nil }
            var depth = 0
            var index = rest.startIndex
            var inside: Substring?
            while index < rest.endIndex {
                if rest[index] == "(" { depth += 1 }
                if rest[index] == ")" {
                    depth -= 1
                    if depth == 0 {
                        inside = rest[rest.index(rest.startIndex, offsetBy: name.count + 1)..<index]
                        rest = rest[rest.index(after: index)...]
                        break
                    }
                }
                index = rest.index(after: index)
            }
            if depth != 0 { rest = "" }
            rest = Substring(trimmed(rest))
            return inside
        }
        dropFunction("layer")
        if rest.lowercased() == "layer" || rest.lowercased().hasPrefix("layer ") { rest = rest.dropFirst(5) }
        rest = Substring(trimmed(rest))
        let supports = dropFunction("supports").map { trimmed($0) }.flatMap { $0.isEmpty ? nil : $0 }
        return (String(rest), supports)
    }

    /// Whether Chromium meets an `@import`'s `supports()` condition: a `<supports-condition>`, or a
    /// bare declaration (`supports(display: grid)`), read as one in parentheses.
    static func importSupports(_ condition: String) -> Truth {
        SupportsCondition.evaluate(isBareDeclaration(condition) ? "(\(condition))" : condition)
    }

    /// Whether the text of a `supports()` is a declaration (`display: grid`), not a condition.
    static func isBareDeclaration(_ condition: String) -> Bool {
        let name = condition.prefix { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }
        return !name.isEmpty && condition.dropFirst(name.count).drop(while: \.isWhitespace).first == ":"
    }

    /// ``trimmedOfSpaces(_:)`` of `bytes[start...]`, UTF-8: trimmed of spaces and tabs in place
    /// when what they leave has ASCII at both ends, which no Unicode space can then be.
    private static func trimmedOfSpaces(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> String {
        var first = start
        var end = bytes.count
        while first < end, bytes[first] == 0x20 || bytes[first] == 0x09 { first += 1 }
        while end > first, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        let rest = UnsafeBufferPointer(rebasing: bytes[first..<end])
        guard let head = rest.first, let tail = rest.last, head >= 0x80 || tail >= 0x80 else {
            return String(decoding: rest, as: UTF8.self)
        }
        return trimmedOfSpaces(Substring(String(decoding: rest, as: UTF8.self)))
    }

    /// `text` without the leading and trailing characters of Foundation's `whitespaces` (Unicode
    /// general category Zs and tab), trimmed without bridging to `NSString`.
    static func trimmedOfSpaces(_ text: Substring) -> String { text.trimmingWhitespace() }

    /// A nested rule's selector written out against its parent's (CSS Nesting §3.1): `&` stands
    /// for the parent; a selector without `&` is a descendant of it.
    static func nested(_ selector: String, in parent: String?) -> String {
        guard let parent else { return selector }
        let anchor = ":is(\(parent))"
        if selector.contains("&") { return selector.replacing("&", with: anchor) }
        return "\(anchor) :is(\(selector))"
    }

    /// The options of an `image-set()`: whether it has a URL (a gradient has none), its resolution
    /// and its `type()` (CSS Images Level 4 §2.2).
    static func imageSetOptions(_ arguments: String)
        -> [(hasURL: Bool, descriptor: ImageCandidate.Descriptor, type: String?)]
    {
        CSSValueTokenizer.tokens(arguments).splitAtTopLevelCommas().map { option in
            var cursor = CSSValueCursor(option)
            var hasURL = false
            var descriptor = ImageCandidate.Descriptor.none
            var type: String?
            while let token = cursor.next() {
                switch token {
                case .string:
                    hasURL = true
                case .function("url"), .function("src"):
                    _ = cursor.takeBlock()
                    hasURL = true
                case .function("type"):
                    let argument = cursor.takeBlock().first { $0 != .whitespace }
                    if case .string(let value)? = argument { type = value }
                case .dimension(let value, let unit):
                    switch unit {
                    case "x", "dppx": descriptor = .density(value)
                    case "dpi": descriptor = .density(value / 96)
                    case "dpcm": descriptor = .density(value * 2.54 / 96)
                    default: break
                    }
                case .function:
                    _ = cursor.takeBlock()
                default:
                    break
                }
            }
            return (hasURL, descriptor, type)
        }
    }
}

/// The property of a declaration, as far as the device rules read it.
private enum DeclaredProperty: Equatable {
    case fontFamily, font, src, unicodeRange
    /// `quotes` and `list-style-type`, whose values show text (as `content` and `list-style` do).
    case quotes, listStyleType
    /// A custom property (`--name`), which `var()` may pass on as a font family.
    case custom
    /// A property that shows an image, with the longhand it sets (`background` sets `background-image`).
    case image(ImageLonghand)
    case other

    /// The longhands that image properties set.
    enum ImageLonghand: String {
        case backgroundImage = "background-image", content, listStyleImage = "list-style-image"
        case borderImageSource = "border-image-source", maskImage = "mask-image", cursor
    }

    /// The property named by `bytes` (the text before the colon): trimmed and compared in ASCII
    /// lower case, in place; a name with non-ASCII bytes is trimmed and lowered as Unicode text.
    init(_ bytes: ArraySlice<UInt8>) {
        self = bytes.withUnsafeBufferPointer { Self.init($0) }
    }

    /// ``init(_:)-(ArraySlice<UInt8>)`` of bytes in a buffer.
    init(_ buffer: UnsafeBufferPointer<UInt8>) {
        var first = 0
        var last = buffer.count - 1
        while first <= last, CSSRuleContext.isSpace(buffer[first]) { first += 1 }
        while last >= first, CSSRuleContext.isSpace(buffer[last]) { last -= 1 }
        guard first <= last else {
            self = .other
            return
        }
        let name = UnsafeBufferPointer(rebasing: buffer[first...last])
        var bits: UInt8 = 0
        for byte in name { bits |= byte }
        if bits >= 0x80 {
            self = Array(CSSRuleContext.propertyName(Array(buffer)[...]).utf8).withUnsafeBufferPointer { Self.named($0) }
        } else {
            self = Self.named(name)
        }
    }

    /// Whether `byte` may start the name of a property other than ``other``: `s`, `f`, `m`, `c`, `b`,
    /// `l`, `u`, `q` or `-` in any ASCII case, or a byte of a non-ASCII character (lowered as Unicode). A few
    /// other bytes pass too (a carriage return, set with 0x20, is a `-`): the name is then read.
    static func mayStartName(_ byte: UInt8) -> Bool {
        switch byte | 0x20 {
        case UInt8(ascii: "s"), UInt8(ascii: "f"), UInt8(ascii: "m"), UInt8(ascii: "c"), UInt8(ascii: "b"),
            UInt8(ascii: "l"), UInt8(ascii: "u"), UInt8(ascii: "q"), UInt8(ascii: "-"):
            true
        default: byte >= 0x80
        }
    }

    /// The property `name` names, its ASCII letters compared in lower case: by its length first,
    /// which leaves at most three names to compare.
    private static func named(_ name: UnsafeBufferPointer<UInt8>) -> DeclaredProperty {
        if name.count >= 2, name[0] == UInt8(ascii: "-"), name[1] == UInt8(ascii: "-") { return .custom }
        func equals(_ word: StaticString) -> Bool { CSSTokenizer.equalsLowercased(name, word) }
        switch name.count {
        case 3: if equals("src") { return .src }
        case 4:
            if equals("font") { return .font }
            if equals("mask") { return .image(.maskImage) }
        case 6:
            if equals("cursor") { return .image(.cursor) }
            if equals("quotes") { return .quotes }
        case 7: if equals("content") { return .image(.content) }
        case 10:
            if equals("background") { return .image(.backgroundImage) }
            if equals("list-style") { return .image(.listStyleImage) }
            if equals("mask-image") { return .image(.maskImage) }
        case 11: if equals("font-family") { return .fontFamily }
        case 13: if equals("unicode-range") { return .unicodeRange }
        case 15: if equals("list-style-type") { return .listStyleType }
        case 12:
            if equals("border-image") { return .image(.borderImageSource) }
            if equals("-webkit-mask") { return .image(.maskImage) }
        case 16:
            if equals("background-image") { return .image(.backgroundImage) }
            if equals("list-style-image") { return .image(.listStyleImage) }
        case 18: if equals("-webkit-mask-image") { return .image(.maskImage) }
        case 19: if equals("border-image-source") { return .image(.borderImageSource) }
        default: break
        }
        return .other
    }

    /// Whether the property's value may show text: `content`, `quotes`, and the list styles.
    var showsText: Bool {
        switch self {
        case .quotes, .listStyleType, .image(.content), .image(.listStyleImage): true
        default: false
        }
    }

    /// The longhand of an image property.
    var imageLonghand: ImageLonghand? {
        if case .image(let longhand) = self { return longhand }
        return nil
    }
}
