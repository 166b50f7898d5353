import FoundationEssentials

/// A streaming preload scanner for HTML: feed it a page's bytes as they arrive and it returns each
/// sub-resource reference as soon as the tag that holds it is complete.
///
/// ```swift
/// var scanner = HTMLScanner(documentURL: pageURL, charset: response.charset)
/// for try await chunk in body {
///     for reference in scanner.feed(chunk) where reference.isRequisite { queue.enqueue(reference.url) }
/// }
/// for reference in scanner.finish() where reference.isRequisite { queue.enqueue(reference.url) }
/// ```
///
/// It finds what browsers' preload scanners and `wget2 --page-requisites` find together: `img src`
/// and `srcset`, `picture > source`, `link` stylesheets, preloads, module preloads, icons and
/// manifests, `script src`, `video poster`, `input type=image`, `object`, `embed`, frames, SVG
/// `image`/`use`/`feImage`, lazy-loading attributes (`data-src`, `data-srcset`, `data-lazy-src`,
/// `data-original`, `data-bg`), `background` attributes, CSS in `<style>` and `style=""`, and —
/// when ``Options`` ask for them — media and navigation links. `<base href>` applies from where it
/// appears, as in a browser's scanner.
///
/// ## Why a hand-written tokenizer
///
/// libxml2's HTML parser follows HTML 4 rules: it knows neither `<template>`, nor the HTML5 raw-text
/// and RCDATA rules, nor foreign content, and its push parser builds a tree the scanner does not
/// need. A browser's preload scanner is a tokenizer with a little tree knowledge, so this is one:
/// the states of HTML §13.2.5 that decide where tags are (data, tags, attributes, comments, bogus
/// comments, DOCTYPE, CDATA, RAWTEXT/RCDATA/script data, PLAINTEXT) and, from tree construction,
/// what switches them: raw-text elements, `<template>` (inert: nothing inside is reported),
/// `<svg>`/`<math>` with their HTML integration points and breakout tags, and `<picture>`,
/// `<video>`, `<audio>` for `<source>`.
///
/// ## Choices
///
/// - `<noscript>` is raw text, as in browsers with scripting on, so references in it are not
///   reported; set ``Options/scansNoscript`` to scan it as `wget2` does.
/// - `script src` is reported for classic scripts (no `type`, or a JavaScript MIME type) and
///   `type=module`; a data block (`application/ld+json`, `text/template`…) is never fetched by
///   browsers and is not reported. A classic script with `nomodule` is reported as not a requisite.
/// - `iframe src` and `frame src` are ``Reference/Kind/document`` requisites: the nested document
///   is part of the page as shown (browsers load it with the page, and `wget2 --page-requisites`
///   fetches it), and it has requisites of its own, for the caller to scan in turn. An
///   `iframe srcdoc` document is scanned as part of the page instead, and its `src` is not fetched.
/// - Lazy-loading attributes are reported as ``Reference/Kind/image`` whatever element holds them:
///   the scripts that read them almost always load images.
/// - References inside comments, `<script>`, `<textarea>`, `<title>` or `<template>` are not
///   reported. Fragment-only references (`#id`) and `javascript:`, `data:`, `about:`, `mailto:`,
///   `blob:` URLs are dropped; fragments are removed from the rest.
///
/// ## Encoding
///
/// A byte order mark wins, then `charset` (the transport's label), then a `<meta charset>` or
/// `http-equiv="Content-Type"` in the first 1024 bytes, then ``Options/fallbackEncoding``
/// (windows-1252, as in browsers). Without a BOM or a label, the first 1024 bytes are held back
/// until the prescan has read them. Every encoding of the WHATWG Encoding Standard is read
/// (``TextEncoding``), and attribute URLs take the document's encoding for their query.
///
/// The fallback is tentative: the first `<meta>` naming an encoding after those bytes changes it
/// for the rest of the document, decoded from just after that tag. A browser parses the document
/// again from the start instead; what came before the `<meta>` is not scanned again here.
///
/// ## Memory
///
/// Nothing but the current token is kept: an attribute value of more than 64 KiB is dropped, tag
/// names are cut at 64 bytes, text is kept only inside `<style>` and only until it is tokenized as
/// CSS (CSS tokens are capped at 64 KiB too), and a document in another encoding than UTF-8 is
/// converted to UTF-8 64 KiB at a time. The characters of the text (``textCharacters``) take an
/// 8 KiB bitset once one is not ASCII, and a set of those past U+FFFF. A 100 MB page of text
/// therefore scans in bounded memory.
///
/// ## Speed
///
/// UTF-8 is tokenized as bytes, as it arrives, without decoding: text, comments and raw text are
/// skipped with `memchr`, and only the tag names and the kept attribute values become strings.
public struct HTMLScanner: Sendable {
    /// The URL the page was fetched from; the base until a `<base href>` appears.
    public let documentURL: URL
    /// What the scanner reports.
    public let options: Options
    /// The URL references resolve against: the document URL, or the first `<base href>`.
    public var baseURL: URL { base.url }
    /// The encoding chosen for the document, once enough bytes have been seen.
    public var encoding: TextEncoding? { input.encoding }

    /// How many bytes are decoded and tokenized at a time, which bounds the decoded buffer.
    static let sliceLength = 64 * 1024

    private var base: URLCleaner.Base
    private var resolvedURLs = ResolvedURLs()
    private var input: InputDecoder
    private var tokenizer = HTMLTokenizer(attributeFilter: HTMLScanner.attributeNames)
    /// Whether the bytes decoded in a tentative encoding reached a `<meta` whose tag has not been
    /// tokenized yet (``tentativeEnd(in:from:to:)``).
    private var isInMetaTag = false
    /// The tokenizer of `style` attributes, made new for each (``CSSTokenizer/reset()``) in the
    /// storage of the one before.
    private var styleAttributeCSS = CSSTokenizer()
    /// The UTF-8 of a document in another encoding, a slice at a time.
    private var decoded: [UInt8] = []
    private var references: [Reference] = []
    private var isFinished = false

    // Tree knowledge.
    private var hasBase = false
    private var templateDepth = 0
    /// Whether each open `<template>` is inert, innermost last, for the first 64 open at once.
    private var templates: [Bool] = []
    /// The `<template>` elements open beyond those 64, each taken as inert.
    private var templatesPastTheList = 0
    /// How many `<iframe srcdoc>` documents this one is inside (``scanSourceDocument(_:)``).
    private var sourceDocumentDepth = 0
    private var foreignElements: [ForeignElement] = []
    private var mediaContainers: [ElementName] = []
    private var style: StyleBlock?
    /// The `<source>` alternatives of the open `<picture>`, and the references they hold, reported
    /// with the `<img>` that ends the choice (or at `</picture>`).
    var pictureSources: [(alternative: ImageSourceSet.Alternative, references: [Reference])] = []

    /// The page's elements, for matching the selectors of style rules once the page is scanned.
    public private(set) var documentTree = DocumentTree(knownAttributes: HTMLScanner.attributeFilter)
    /// What the page's last `<meta name=viewport>` so far declares (one inside a template or shadow
    /// root does not count), for choosing what a mobile device shows (``PageSelection/viewport``).
    public internal(set) var viewport: ViewportDeclaration?
    /// Font families that the page's `<style>` blocks and `style` attributes name, with their rules' selectors.
    public private(set) var usedFontFamilies: Set<FontFamilyUse> = []
    /// The characters that the `content`, `quotes` and list styles of the page's `<style>` blocks may show.
    private var styleCharacters = TextCharacters()
    /// The characters of the text the page shows so far, and of what its `<style>` blocks add
    /// (``TextCharacters``); the document tree holds them once the page is scanned.
    public var textCharacters: TextCharacters {
        var characters = tokenizer.characters.characters
        characters.formUnion(styleCharacters)
        return characters
    }

    /// Creates a scanner for one document.
    ///
    /// - Parameters:
    ///   - documentURL: The URL the document was fetched from, after redirects.
    ///   - charset: The `charset` parameter of the response's `Content-Type`, if any.
    ///   - options: What to report.
    public init(documentURL: URL, charset: String? = nil, options: Options = .init()) {
        self.documentURL = documentURL
        self.options = options
        self.base = URLCleaner.Base(documentURL)
        self.input = InputDecoder(declaration: .htmlMeta, transportLabel: charset, fallback: options.fallbackEncoding)
    }

    // MARK: - Feeding

    /// Scans the next bytes of the document.
    ///
    /// - Parameter chunk: Bytes in document order; chunks may split anything, even a character.
    /// - Returns: The references completed by these bytes, in document order.
    public mutating func feed(_ chunk: some Collection<UInt8>) -> [Reference] {
        precondition(!isFinished, "HTMLScanner.feed(_:) was called after finish().")
        let handled: Void? = chunk.withContiguousStorageIfAvailable { feedBytes($0) }
        if handled == nil {
            Array(chunk).withUnsafeBufferPointer { feedBytes($0) }
        }
        return takeReferences()
    }

    /// Ends the document and returns the references completed by its end (such as an unclosed `<style>`).
    ///
    /// A tag cut off by the end of the document is dropped, as HTML tokenization drops it.
    public mutating func finish() -> [Reference] {
        precondition(!isFinished, "HTMLScanner.finish() was called twice.")
        isFinished = true
        decoded.removeAll(keepingCapacity: true)
        input.finish(into: &decoded)
        tokenizeDecoded()
        if style != nil { finishStyle() }
        flushPicture()
        tokenizer.finishCharacters()
        documentTree.finish(text: textCharacters)
        return takeReferences()
    }

    private mutating func feedBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        var offset = 0
        while offset < bytes.count {
            var end = min(offset + Self.sliceLength, bytes.count)
            if let undecided = input.undecidedLength {
                end = min(end, offset + undecided)
            } else if input.isTentative {
                end = tentativeEnd(in: bytes, from: offset, to: end)
            }
            let slice = UnsafeBufferPointer(rebasing: bytes[offset..<end])
            decoded.removeAll(keepingCapacity: true)
            if let start = input.decode(slice, into: &decoded) {
                tokenize(UnsafeBufferPointer(rebasing: slice[start...]))
            } else {
                tokenizeDecoded()
            }
            offset = end
        }
    }

    /// Where the bytes to decode next end while the encoding is tentative, so that a `<meta>` that
    /// changes it is the last tag decoded in the old one: before the next `<meta`, or just after
    /// the next `>` once at one, until a tag has been tokenized. Searching the undecoded bytes
    /// finds the ASCII there: no legacy encoding the fallback may be has `<` or `>` in a sequence.
    private mutating func tentativeEnd(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        var index = start
        while !isInMetaTag, let open = ByteSearch.first(UInt8(ascii: "<"), in: bytes, from: index, to: end) {
            // The name after `<` is `meta` in any case, or the beginning of it where the bytes end.
            let name = bytes[(open + 1)..<min(open + 5, end)]
            if zip(name, "meta".utf8).allSatisfy({ $0 | 0x20 == $1 }) {
                if open > start { return open }
                isInMetaTag = true
            }
            index = open + 1
        }
        guard isInMetaTag else { return end }
        return ByteSearch.first(UInt8(ascii: ">"), in: bytes, from: start, to: end).map { $0 + 1 } ?? end
    }

    /// Whether the encoding is the fallback, which a `<meta>` may still change.
    var isEncodingTentative: Bool { input.isTentative }

    /// Decodes the bytes after the tag being handled in `encoding` (``InputDecoder/changeEncoding(to:)``).
    mutating func changeEncoding(to encoding: TextEncoding) {
        input.changeEncoding(to: encoding)
    }

    /// Tokenizes what ``decoded`` holds.
    private mutating func tokenizeDecoded() {
        let bytes = decoded
        bytes.withUnsafeBufferPointer { tokenize($0) }
    }

    private mutating func tokenize(_ bytes: UnsafeBufferPointer<UInt8>) {
        var index = 0
        while let token = tokenizer.nextToken(in: bytes, at: &index) {
            isInMetaTag = false
            drainText()
            // Consumed: the tag moves out of the token rather than being copied and the token destroyed.
            switch consume token {
            case .startTag(let tag): handleStartTag(tag)
            case .endTag(let name, let element): handleEndTag(name, element)
            }
        }
        drainText()
    }

    /// The references found since the last call; the next chunk's array starts at this one's size,
    /// so that it does not grow (copying what it holds) several times per chunk.
    private mutating func takeReferences() -> [Reference] {
        let found = references
        references = []
        if !found.isEmpty { references.reserveCapacity(found.count) }
        return found
    }

    // MARK: - Reporting

    /// Reports `value` (an attribute value or CSS URL) unless the context or the options exclude it.
    mutating func report(
        _ value: String?,
        kind: Reference.Kind,
        source: Reference.Source,
        isRequisite: Bool? = nil,
        condition: consuming Reference.Condition? = nil,
        crossOrigin: Bool = false
    ) {
        report(value, kind: kind, source: source, isRequisite: isRequisite,
               conditionBox: ConditionBox.boxing(condition), crossOrigin: crossOrigin)
    }

    /// ``report(_:kind:source:isRequisite:condition:)`` of a condition already boxed, sharing the
    /// box; with a `candidate`, the box holds a source set and the reference is that candidate of it.
    mutating func report(
        _ value: String?, kind: Reference.Kind, source: Reference.Source, isRequisite: Bool?,
        conditionBox: ConditionBox?, candidate: Int = -1, crossOrigin: Bool = false
    ) {
        guard let url = fetchedURL(value, kind: kind, source: source) else { return }
        // Room for many at the first: a list grown from nothing is copied at 1, 2, 4, 8, 16, 32 and 64.
        if references.capacity == 0 { references.reserveCapacity(128) }
        // Made in place in the list: a reference bound first was copied into it.
        references.append(Reference(urlString: url, kind: kind, source: source,
                                    isRequisite: isRequisite ?? (kind != .link), conditionBox: conditionBox,
                                    candidate: candidate))
        if crossOrigin { references[references.count - 1].isCrossOriginRequest = true }
        if kind == .stylesheet { references[references.count - 1].environmentEncoding = encoding }
    }

    /// The image reference `value` makes as candidate `candidate` of a `<picture>`'s `<source>`,
    /// unless the context or the options exclude it. It has no condition until the `<img>` (or
    /// `</picture>`) completes the choice and gives it its set's box (``Reference/sharing(_:)``).
    mutating func makeCandidate(_ value: String?, source: Reference.Source, candidate: Int) -> Reference? {
        guard let url = fetchedURL(value, kind: .image, source: source) else { return nil }
        return Reference(urlString: url, kind: .image, source: source, isRequisite: true, conditionBox: nil,
                         candidate: candidate)
    }

    /// The URL text `value` resolves to, unless the context or the options exclude it or it is not fetchable.
    private mutating func fetchedURL(_ value: String?, kind: Reference.Kind, source: Reference.Source) -> String? {
        guard let value, templateDepth == 0 else { return nil }
        switch kind {
        case .media where !options.includesMedia: return nil
        case .link where !options.includesLinks: return nil
        case .document where !options.includesFrames: return nil
        default: break
        }
        // Attribute URLs take the document's encoding for their query; URLs in CSS are UTF-8.
        let queryEncoding = source.css == nil ? encoding ?? .utf8 : .utf8
        return resolvedURLs.url(for: value, against: base, queryEncoding: queryEncoding)
    }

    /// Reports references found elsewhere (a `<picture>`'s sources, held until its `<img>`).
    mutating func report(_ held: [Reference]) {
        references.append(contentsOf: held)
    }

    // MARK: - Tree

    mutating func startElement(_ tag: HTMLTag) {
        guard templateDepth == 0 else { return }
        documentTree.startElement(tag.name, tag.element, attributes: tag.attributes, selfClosing: tag.isSelfClosing)
    }

    mutating func endElement(_ name: String, _ element: ElementName) {
        guard templateDepth == 0 else { return }
        documentTree.endElement(name, element)
    }

    /// Sets the base URL from the first `<base href>`; later ones are ignored.
    mutating func setBase(_ href: String) {
        guard !hasBase else { return }
        hasBase = true
        if let text = URLCleaner.resolve(href, against: documentURL, queryEncoding: encoding ?? .utf8),
            let url = URL(string: text)
        {
            base = URLCleaner.Base(url)
            resolvedURLs.removeAll()
        }
    }

    // MARK: - Style blocks

    /// A `<style>` element whose text is being tokenized as CSS.
    struct StyleBlock: Sendable {
        var css = CSSTokenizer()
        /// The depth of the SVG `<style>` in the foreign element stack; `nil` for an HTML `<style>`.
        var foreignDepth: Int?
        /// The `<style media>` attribute, which holds for every rule in it.
        var media: String?
    }

    mutating func startStyle(foreignDepth: Int?, media: String?) {
        guard templateDepth == 0 else { return }
        style = StyleBlock(foreignDepth: foreignDepth, media: media)
        tokenizer.collectsText = true
    }

    mutating func finishStyle() {
        guard var block = style else { return }
        style = nil
        tokenizer.collectsText = false
        block.css.finish()
        reportCSS(block.css.found, element: "style", attribute: nil, media: block.media)
        usedFontFamilies.formUnion(block.css.context.usedFontFamilies)
        styleCharacters.formUnion(block.css.context.textCharacters)
    }

    private mutating func drainText() {
        guard !tokenizer.text.isEmpty else { return }
        if style != nil {
            let text = tokenizer.text
            text.withUnsafeBufferPointer { style!.css.consume($0) }
            let found = style!.css.found
            style!.css.found.removeAll(keepingCapacity: true)
            reportCSS(found, element: "style", attribute: nil, media: style!.media)
        }
        tokenizer.text.removeAll(keepingCapacity: true)
    }

    /// Scans a `style` attribute's declarations.
    mutating func scanStyleAttribute(_ value: String?, element: String) {
        guard var value, templateDepth == 0 else { return }
        let mayHoldReferences = value.withUTF8 { bytes in
            // `(` for `url(` and `image-set(`, or "font" in any case for the font families named.
            ByteSearch.first(UInt8(ascii: "("), in: bytes, from: 0, to: bytes.count) != nil
                || bytes.indices.dropLast(3).contains { index in
                    bytes[index] | 0x20 == UInt8(ascii: "f") && bytes[index + 1] | 0x20 == UInt8(ascii: "o")
                        && bytes[index + 2] | 0x20 == UInt8(ascii: "n") && bytes[index + 3] | 0x20 == UInt8(ascii: "t")
                }
        }
        guard mayHoldReferences else { return }
        styleAttributeCSS.reset()
        value.withUTF8 { styleAttributeCSS.consume($0) }
        styleAttributeCSS.finish()
        reportCSS(styleAttributeCSS.found, element: element, attribute: "style", media: nil)
        let families = styleAttributeCSS.context.usedFontFamilies
        if !families.isEmpty { usedFontFamilies.formUnion(families) }
    }

    private mutating func reportCSS(
        _ found: [CSSTokenizer.Found], element: String, attribute: String?, media: String?
    ) {
        for item in found {
            var box = item.conditionBox
            if let media {
                var condition = item.condition ?? Reference.Condition()
                condition.media.insert(media, at: 0)
                box = ConditionBox(condition)
            }
            report(
                item.value,
                kind: item.kind,
                source: Reference.Source(element: element, attribute: attribute, css: item.construct),
                isRequisite: nil,
                conditionBox: box
            )
        }
    }

    // MARK: - Tree state used by element handling

    /// An open SVG or MathML element.
    struct ForeignElement: Sendable {
        enum Namespace: Sendable { case svg, mathML }
        var name: String
        var namespace: Namespace
        /// Whether HTML rules apply to its content (`foreignObject`, `desc`, `title`, `mi`, `annotation-xml`…).
        var isIntegrationPoint: Bool
    }

    /// The most open foreign elements tracked; deeper ones are not, which only affects broken pages.
    static let maximumForeignDepth = 256

    var isInForeignContent: Bool {
        guard let last = foreignElements.last else { return false }
        return !last.isIntegrationPoint
    }

    mutating func pushForeign(_ element: ForeignElement) {
        guard foreignElements.count < Self.maximumForeignDepth else { return }
        foreignElements.append(element)
        tokenizer.allowsCDATA = isInForeignContent
    }

    /// Pops foreign elements down to (and including) the last one named `name`; `false` if none is open.
    mutating func popForeign(named name: String) -> Bool {
        guard let index = foreignElements.lastIndex(where: { $0.name == name }) else { return false }
        popForeign(toCount: index)
        return true
    }

    /// Pops foreign elements until `count` remain, closing an SVG `<style>` that is popped.
    mutating func popForeign(toCount count: Int) {
        guard count < foreignElements.count else { return }
        foreignElements.removeSubrange(count...)
        if let style, let depth = style.foreignDepth, depth > count { finishStyle() }
        tokenizer.allowsCDATA = isInForeignContent
    }

    /// Pops foreign elements until an integration point (or nothing) is current, for breakout tags.
    mutating func popForeignToIntegrationPoint() {
        let count = (foreignElements.lastIndex(where: \.isIntegrationPoint) ?? -1) + 1
        popForeign(toCount: count)
    }

    /// How many SVG and MathML elements are open.
    var foreignDepth: Int { foreignElements.count }

    var currentForeignNamespace: ForeignElement.Namespace? { foreignElements.last?.namespace }

    /// Whether the scanner is inside `<template>` content, where nothing is fetched.
    var isInert: Bool { templateDepth > 0 }

    /// Whether the scanner is inside a `<template>`, inert or a shadow root: outside the document tree.
    var isInTemplate: Bool { !templates.isEmpty || templatesPastTheList > 0 }

    /// Scans the document of an `<iframe srcdoc>` as part of the page: what it needs is fetched with
    /// it. Its URLs resolve against this document's base (HTML's fallback base URL of a srcdoc
    /// document); its style rules match its own elements, not the page's, so their images are
    /// fetched whatever the page holds, and the fonts it names count as used. Documents nested in
    /// it this way are scanned three deep at most.
    mutating func scanSourceDocument(_ html: String) {
        guard sourceDocumentDepth < 3, templateDepth == 0 else { return }
        var nested = HTMLScanner(documentURL: documentURL, charset: "utf-8", options: options)
        nested.base = base
        nested.sourceDocumentDepth = sourceDocumentDepth + 1
        var found = nested.feed(Array(html.utf8))
        found += nested.finish()
        for index in found.indices where found[index].condition?.selector != nil {
            found[index].condition?.selector = nil
        }
        report(found)
        for use in nested.usedFontFamilies { usedFontFamilies.insert(FontFamilyUse(family: use.family, selector: nil)) }
        styleCharacters.formUnion(nested.textCharacters)
    }

    /// Opens a `<template>`: an inert one hides what it holds, a declarative shadow root does not.
    /// Past 64 open at once (a page no browser shows), each is counted as inert, and closed as one.
    mutating func enterTemplate(inert: Bool) {
        if templates.count < 64 {
            templates.append(inert)
            if inert { templateDepth += 1 }
        } else {
            templatesPastTheList += 1
            templateDepth += 1
        }
    }

    mutating func leaveTemplate() {
        if templatesPastTheList > 0 {
            templatesPastTheList -= 1
            templateDepth -= 1
        } else if templates.popLast() == true {
            templateDepth -= 1
        }
    }

    /// The innermost open `picture`, `video` or `audio`.
    var currentMediaContainer: ElementName? { mediaContainers.last }

    mutating func openMediaContainer(_ name: ElementName) {
        if mediaContainers.count < 64 { mediaContainers.append(name) }
    }

    mutating func closeMediaContainer(_ name: ElementName) {
        if let index = mediaContainers.lastIndex(of: name) { mediaContainers.removeSubrange(index...) }
    }

    mutating func switchTokenizerToRawText(_ name: String) { tokenizer.switchToRawText(endTag: name) }

    mutating func switchTokenizerToScriptData() { tokenizer.switchToScriptData() }

    mutating func switchTokenizerToPlaintext() { tokenizer.switchToPlaintext() }
}
