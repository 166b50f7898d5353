import FoundationEssentials
import HTTPCore

/// What each element contributes: the tree-construction knowledge of a preload scanner.
extension HTMLScanner {
    /// The attributes the tokenizer keeps; all others are skipped without being decoded.
    static let attributeFilter: Set<String> = [
        "src", "srcset", "href", "xlink:href", "rel", "as", "type", "language", "nomodule", "imagesrcset",
        "poster", "data", "background", "style", "encoding", "color", "face", "size",
        // What a `<meta>` that changes a tentative encoding, or refreshes to another page, says.
        "charset", "http-equiv", "content",
        // A stylesheet's media swapped when it loads; a template that is a declarative shadow root.
        "onload", "shadowrootmode",
        // What makes an element's fetch a CORS request.
        "crossorigin",
        // An iframe's document given inline.
        "srcdoc",
        "data-src", "data-srcset", "data-lazy-src", "data-original", "data-bg",
        // What device choices read: `<source media sizes>`, `<link media imagesizes sizes>`.
        "media", "sizes", "imagesizes",
        // What selectors most often test, kept for the document tree (``DocumentTree``).
        "id", "class", "name", "role", "lang", "dir", "hidden", "disabled", "checked", "selected", "open", "title",
        "alt", "for", "target", "width", "height", "value", "loading", "method", "action", "tabindex", "multiple",
        "readonly", "required", "placeholder", "label", "aria-hidden", "aria-expanded", "aria-current", "aria-label",
        "aria-selected", "aria-pressed", "aria-disabled", "itemprop", "itemscope", "itemtype", "data-theme",
    ]

    /// ``attributeFilter`` as the tokenizer looks names up, built once for every scanner.
    static let attributeNames = AttributeNames(attributeFilter)

    /// Start tags that close SVG and MathML content (HTML §13.2.6.5).
    private static let breakoutTags: Set<String> = [
        "b", "big", "blockquote", "body", "br", "center", "code", "dd", "div", "dl", "dt", "em", "embed",
        "h1", "h2", "h3", "h4", "h5", "h6", "head", "hr", "i", "img", "li", "listing", "menu", "meta", "nobr",
        "ol", "p", "pre", "ruby", "s", "small", "span", "strong", "strike", "sub", "sup", "table", "tt", "u",
        "ul", "var",
    ]

    /// End tags that close foreign content when no open SVG or MathML element has their name.
    private static let foreignClosingEndTags: Set<String> = ["template", "picture", "video", "audio", "body", "html"]

    /// The JavaScript MIME type essences (MIME Sniffing §4.6) that make a classic script.
    private static let javaScriptTypes: Set<String> = [
        "application/ecmascript", "application/javascript", "application/x-ecmascript", "application/x-javascript",
        "text/ecmascript", "text/javascript", "text/javascript1.0", "text/javascript1.1", "text/javascript1.2",
        "text/javascript1.3", "text/javascript1.4", "text/javascript1.5", "text/jscript", "text/livescript",
        "text/x-ecmascript", "text/x-javascript",
    ]

    // MARK: - Start tags

    mutating func handleStartTag(_ tag: HTMLTag) {
        if isInForeignContent {
            let breaksOut =
                Self.breakoutTags.contains(tag.name)
                || (tag.name == "font" && (tag[.color] != nil || tag[.face] != nil || tag[.size] != nil))
            guard breaksOut else {
                handleForeignStartTag(tag)
                return
            }
            popForeignToIntegrationPoint()
        }
        handleHTMLStartTag(tag)
    }

    /// A `srcset` candidate list of `tag`'s `attribute`, parsed.
    private static func candidates(_ tag: HTMLTag, _ attribute: AttributeNames.Name) -> [ImageCandidate] {
        tag[attribute].map(SrcsetParser.candidates) ?? []
    }

    private mutating func handleHTMLStartTag(_ tag: HTMLTag) {
        // "image" is an ancient alias the tree builder turns into "img"; any other tag is handled
        // as it is, without the copy that changing it would make.
        if tag.element == .image {
            var image = tag
            image.name = "img"
            image.element = .img
            handleHTMLStartTag(image)
            return
        }
        let element = tag.element
        switch element {
        case .svg, .math:
            handleForeignStartTag(tag)
            return
        case .base:
            if !isInert, let href = tag[.href] { setBase(href) }
        case .img:
            handleImage(tag)
        case .picture, .video, .audio:
            if element == .video { report(tag, .poster, .image) }
            if element != .picture { report(tag, .src, .media) }
            if element == .picture { flushPicture() }
            openMediaContainer(element)
        case .source:
            switch currentMediaContainer {
            case .picture: holdPictureSource(tag)
            case .video, .audio: report(tag, .src, .media)
            default: break
            }
        case .track:
            if currentMediaContainer == .video || currentMediaContainer == .audio { report(tag, .src, .media) }
        case .link:
            handleLink(tag)
        case .script:
            handleScript(tag)
        case .input:
            // An enumerated attribute: compared in any ASCII case, not trimmed (HTML §2.3.3).
            if tag[.type]?.caseInsensitiveEquals("image") == true { report(tag, .src, .image) }
        case .object:
            report(tag, .data, .embed)
        case .embed:
            report(tag, .src, .embed)
        case .iframe:
            // A document given inline wins over `src`, which is then not fetched (HTML §4.8.5).
            if let document = tag[.srcdoc] { scanSourceDocument(document) } else { report(tag, .src, .document) }
        case .frame:
            report(tag, .src, .document)
        case .body, .table, .td, .th:
            report(tag, .background, .image)
        case .a, .area:
            report(tag, .href, .link)
        case .template:
            // A declarative shadow root (`shadowrootmode`) is shown, not inert (HTML §4.12.3).
            enterTemplate(inert: tag[.shadowrootmode] == nil)
        case .meta:
            handleMetaEncoding(tag)
            handleMetaRefresh(tag)
            if !isInTemplate, tag[.name]?.caseInsensitiveEquals("viewport") == true, let content = tag[.content] {
                viewport = ViewportDeclaration(content: content)
            }
        default:
            break
        }
        if !tag.attributes.isEmpty {
            scanStyleAttribute(tag[.style], element: tag.name)
            if options.includesLazyLoadingHints { reportLazyLoadingHints(tag) }
        }
        if element != .template { startElement(tag) }
        switchContentModel(after: tag)
    }

    /// Changes a tentative encoding for the one a `<meta charset>` or `<meta http-equiv=content-type>`
    /// names (HTML §13.2.6.4.4, "in head" insertion mode).
    private mutating func handleMetaEncoding(_ tag: HTMLTag) {
        guard isEncodingTentative else { return }
        var label = tag[.charset]
        if label == nil, tag[.httpEquiv].map(Self.normalized) == "content-type", let content = tag[.content] {
            label = HTMLEncodingPrescanner.charsetInContent(content)
        }
        if let encoding = label.flatMap(TextEncoding.init(label:)) { changeEncoding(to: encoding) }
    }

    // MARK: - Images

    /// `<img>`: alone, its `src` and `srcset` are one choice; in a `<picture>`, the choice takes in
    /// the `<source>` elements held so far, reported now with it.
    private mutating func handleImage(_ tag: HTMLTag) {
        let inPicture = currentMediaContainer == .picture
        let srcset = tag[.srcset]
        guard (inPicture && !pictureSources.isEmpty) || srcset != nil else {
            flushPicture()
            report(tag, .src, .image)
            return
        }
        // Each attribute looked up once.
        let src = tag[.src]
        let candidates = srcset.map(SrcsetParser.candidates) ?? []
        let sources = inPicture ? pictureSources : []
        pictureSources = []
        // The image's own alternative made in its place in the list, not copied into it.
        var alternatives = sources.map(\.alternative)
        alternatives.append(ImageSourceSet.Alternative(candidates: candidates, sizes: tag[.sizes], fallback: src))
        // `sizes="auto, …"` of a lazy image is its laid-out width (HTML §4.8.4.3.11): its width attribute.
        if tag[.loading]?.caseInsensitiveEquals("lazy") == true {
            let width = tag[.width].flatMap { Int($0.trimmingWhitespace()) }.flatMap { $0 >= 0 ? $0 : nil }
            for index in alternatives.indices {
                alternatives[index].sizes = alternatives[index].sizes.map { Self.sizes($0, autoWidth: width) }
            }
        }
        let set = ImageSourceSet(alternatives: alternatives)
        reportHeld(sources, of: set)
        // One box for the `src` and the `srcset` candidates: it names the set with the `src` fallback,
        // and each candidate's reference says which it is.
        let box = ConditionBox(Reference.Condition(
            image: .sourceSet(set, alternative: sources.count, candidate: candidates.count)))
        let source = Reference.Source(element: tag.name, attribute: AttributeNames.Name.src.text)
        report(src, kind: .image, source: source, isRequisite: nil, conditionBox: box,
               crossOrigin: tag[.crossorigin] != nil)
        reportCandidates(tag, .srcset, candidates, sharing: box)
    }

    /// Holds a `<picture>`'s `<source srcset>` until the `<img>` that completes the choice.
    private mutating func holdPictureSource(_ tag: HTMLTag) {
        guard !isInert, pictureSources.count < 64 else {
            reportSrcset(tag, .srcset)
            return
        }
        let alternative = ImageSourceSet.Alternative(
            media: tag[.media], type: tag[.type], candidates: Self.candidates(tag, .srcset), sizes: tag[.sizes])
        let source = Reference.Source(element: tag.name, attribute: AttributeNames.Name.srcset.text)
        let references = alternative.candidates.enumerated().compactMap { index, candidate in
            makeCandidate(candidate.url, source: source, candidate: index)
        }
        pictureSources.append((alternative, references))
    }

    /// Reports the sources of a `<picture>` that had no `<img>`: a choice among them alone.
    mutating func flushPicture() {
        guard !pictureSources.isEmpty else { return }
        let sources = pictureSources
        pictureSources = []
        reportHeld(sources, of: ImageSourceSet(alternatives: sources.map(\.alternative)))
    }

    /// Reports the candidates held for `<source>` elements as those of the alternatives of `set`
    /// the sources are, in order: the candidates of one source share one box, which names its
    /// alternative (its candidate index, as for an `<img>`, is the count: a source has no fallback).
    private mutating func reportHeld(
        _ sources: [(alternative: ImageSourceSet.Alternative, references: [Reference])], of set: ImageSourceSet
    ) {
        for (index, source) in sources.enumerated() {
            let box = ConditionBox(Reference.Condition(
                image: .sourceSet(set, alternative: index, candidate: source.alternative.candidates.count)))
            report(source.references.map { $0.sharing(box) })
        }
    }

    /// Reports the candidates of a `srcset`-like attribute, parsed as `candidates`, as candidates of
    /// the source set whose fallback `box` names, all sharing the box.
    private mutating func reportCandidates(
        _ tag: HTMLTag, _ attribute: AttributeNames.Name, _ candidates: [ImageCandidate], sharing box: ConditionBox
    ) {
        let source = Reference.Source(element: tag.name, attribute: attribute.text)
        let crossOrigin = tag[.crossorigin] != nil
        // By index: a loop over the candidates copied each, retaining and releasing its URL.
        for index in candidates.indices {
            report(candidates[index].url, kind: .image, source: source, isRequisite: nil, conditionBox: box,
                   candidate: index, crossOrigin: crossOrigin)
        }
    }

    /// Switches the tokenizer for elements whose content is not markup.
    private mutating func switchContentModel(after tag: HTMLTag) {
        switch tag.element {
        case .style:
            startStyle(foreignDepth: nil, media: tag[.media])
            switchTokenizerToRawText(tag.name)
        case .script:
            switchTokenizerToScriptData()
        case .xmp, .iframe, .noembed, .noframes, .textarea, .title:
            switchTokenizerToRawText(tag.name)
        case .noscript where !options.scansNoscript:
            switchTokenizerToRawText(tag.name)
        case .plaintext:
            switchTokenizerToPlaintext()
        default:
            break
        }
    }

    private mutating func handleLink(_ tag: HTMLTag) {
        guard let rel = tag[.rel] else { return }
        let relations = Self.linkTypes(rel)
        var media = tag[.media].map { [$0] } ?? []
        // The asynchronous-stylesheet pattern, `media=print onload="this.media='all'"`: the handler
        // gives the sheet the media it applies to once loaded, as a browser runs it.
        if relations.contains("stylesheet"), let swapped = tag[.onload].flatMap(Self.mediaAssigned) {
            media = swapped.isEmpty || swapped.caseInsensitiveEquals("all") ? [] : [swapped]
        }
        var kinds: [(Reference.Kind, Reference.Condition?)] = []
        if relations.contains("stylesheet"), Self.fetchesStylesheet(tag) {
            kinds.append((.stylesheet, Reference.Condition(media: media, isStylesheet: true)))
        }
        if relations.contains("modulepreload") { kinds.append((.script, nil)) }
        if relations.contains("preload"), let kind = tag[.as].flatMap(Self.preloadKind) {
            if kind == .image {
                // HTML §4.6.7.11 "Link type preload": imagesrcset, imagesizes and href make a source set.
                let set = ImageSourceSet(alternatives: [ImageSourceSet.Alternative(
                    media: tag[.media], candidates: Self.candidates(tag, .imagesrcset), sizes: tag[.imagesizes],
                    fallback: tag[.href])])
                let box = ConditionBox(Reference.Condition(
                    image: .sourceSet(set, alternative: 0, candidate: set.alternatives[0].candidates.count)))
                reportCandidates(tag, .imagesrcset, set.alternatives[0].candidates, sharing: box)
                kinds.append((kind, box.condition))
            } else {
                kinds.append((kind, media.isEmpty ? nil : Reference.Condition(media: media)))
            }
        }
        let icons: Set<String> = ["icon", "apple-touch-icon", "apple-touch-icon-precomposed", "mask-icon"]
        if !relations.isDisjoint(with: icons) {
            kinds.append((.icon, Reference.Condition(icon: Reference.IconLink(
                relations: relations, type: tag[.type], sizes: tag[.sizes], media: tag[.media]))))
        }
        if relations.contains("manifest") { kinds.append((.manifest, nil)) }
        var reported: Set<Reference.Kind> = []
        for (kind, condition) in kinds where reported.insert(kind).inserted {
            // A module preload asks as the module script will (HTML §4.6.7.13).
            report(tag, .href, kind, condition: condition,
                   crossOrigin: kind == .script && relations.contains("modulepreload"))
        }
    }

    /// `sizes` with a leading `auto` entry written as `autoWidth` pixels, or dropped without a width
    /// (the next entry applies then, as where `auto` is not allowed).
    static func sizes(_ sizes: String, autoWidth: Int?) -> String {
        let trimmed = sizes.drop(while: isASCIIWhitespace)
        guard trimmed.prefix(4).lowercased() == "auto" else { return sizes }
        let rest = trimmed.dropFirst(4)
        guard rest.isEmpty || rest.first == "," || rest.first?.isWhitespace == true else { return sizes }
        return (autoWidth.map { "\($0)px" } ?? "") + rest
    }

    /// Whether `character` is ASCII whitespace as HTML counts it: tab, LF, FF, CR, space.
    static func isASCIIWhitespace(_ character: Character) -> Bool {
        character == " " || character == "\t" || character == "\n" || character == "\r" || character == "\u{0C}"
    }

    /// The media that an `onload` handler such as `this.media='all'` gives its element, if it assigns
    /// one as a quoted string.
    static func mediaAssigned(in handler: String) -> String? {
        guard let name = handler.firstRange(of: "media") else { return nil }
        var rest = handler[name.upperBound...].drop { $0 == " " }
        guard rest.first == "=", rest.dropFirst().first != "=" else { return nil }
        rest = rest.dropFirst().drop { $0 == " " }
        guard let quote = rest.first, quote == "'" || quote == "\"", let end = rest.dropFirst().firstIndex(of: quote)
        else { return nil }
        return String(rest[rest.index(after: rest.startIndex)..<end]).trimmingWhitespace()
    }

    /// The page a `<meta http-equiv=refresh content="0; url=…">` sends the browser to (HTML §7.11.1
    /// "shared declarative refresh steps"): fetched and scanned as a nested document is, so that an
    /// alias page that forwards at once is complete offline.
    private mutating func handleMetaRefresh(_ tag: HTMLTag) {
        guard tag[.httpEquiv]?.trimmingWhitespace().caseInsensitiveEquals("refresh") == true,
            let content = tag[.content]
        else { return }
        var rest = content.drop(while: Self.isASCIIWhitespace)
        rest = rest.drop { $0.isASCII && ($0.isNumber || $0 == ".") }.drop(while: Self.isASCIIWhitespace)
        guard rest.first == ";" || rest.first == "," else { return }
        rest = rest.dropFirst().drop(while: Self.isASCIIWhitespace)
        if rest.prefix(3).lowercased() == "url" {
            let afterName = rest.dropFirst(3).drop(while: Self.isASCIIWhitespace)
            if afterName.first == "=" { rest = afterName.dropFirst().drop(while: Self.isASCIIWhitespace) }
        }
        var target = rest
        if let quote = target.first, quote == "'" || quote == "\"" {
            target = target.dropFirst()
            if let end = target.firstIndex(of: quote) { target = target[..<end] }
        }
        let url = String(target).trimmingWhitespace()
        guard !url.isEmpty else { return }
        report(url, kind: .document, source: Reference.Source(element: tag.name, attribute: "content"))
    }

    /// Whether a `link rel=stylesheet` is fetched (HTML §4.6.7 "Link type stylesheet"): not when its
    /// `type` names another language than CSS (its MIME type's essence is not `text/css`; an empty
    /// `type` is CSS). A `disabled` one is, unlike in browsers: a script enables it (a theme switch),
    /// which offline finds it only if it was stored.
    private static func fetchesStylesheet(_ tag: HTMLTag) -> Bool {
        guard let type = tag[.type] else { return true }
        let essence = type.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let trimmed = essence.trimmingScalars(in: " \t\n\r\u{0C}")
        return trimmed.isEmpty || trimmed.caseInsensitiveEquals("text/css")
    }

    /// The link types of a `rel` value: its tokens between ASCII whitespace, in ASCII lower case, as
    /// HTML compares them (§4.6.7 "Link types": ASCII case-insensitive; Unicode lowering made a
    /// Kelvin sign a "k"). Read as bytes: a split into characters cost a page more than its lookup.
    static func linkTypes(_ rel: String) -> Set<String> {
        var types = Set<String>()
        var token: [UInt8] = []
        func endToken() {
            guard !token.isEmpty else { return }
            types.insert(String(decoding: token, as: UTF8.self))
            token.removeAll(keepingCapacity: true)
        }
        for byte in rel.utf8 {
            switch byte {
            case 0x09, 0x0A, 0x0C, 0x0D, 0x20: endToken()
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): token.append(byte | 0x20)
            default: token.append(byte)
            }
        }
        endToken()
        return types
    }

    /// The kind a `link rel=preload` fetches for its `as` value; `nil` for values browsers reject.
    private static func preloadKind(_ destination: String) -> Reference.Kind? {
        switch normalized(destination) {
        case "style": .stylesheet
        case "script": .script
        case "image": .image
        case "font": .font
        case "fetch": .other
        case "audio", "video", "track": .media
        default: nil
        }
    }

    private mutating func handleScript(_ tag: HTMLTag) {
        let type: String
        if let declared = tag[.type] {
            type = Self.normalized(declared)
        } else if let language = tag[.language], !language.isEmpty {
            type = "text/" + Self.normalized(language)
        } else {
            type = ""
        }
        if type == "module" {
            report(tag, .src, .script, crossOrigin: true)
        } else if type.isEmpty || Self.javaScriptTypes.contains(type) {
            report(tag, .src, .script, isRequisite: tag[.nomodule] == nil)
        }
    }

    /// The start of the names of lazy-loading attributes.
    private static let dataPrefix = AttributeNames.Key("data-")

    private mutating func reportLazyLoadingHints(_ tag: HTMLTag) {
        guard tag.attributes.containsName(startingWith: Self.dataPrefix) else { return }
        report(tag, .dataSrc, .image)
        report(tag, .dataLazySrc, .image)
        report(tag, .dataOriginal, .image)
        report(tag, .dataBg, .image)
        reportSrcset(tag, .dataSrcset)
    }

    // MARK: - Foreign content

    private mutating func handleForeignStartTag(_ tag: HTMLTag) {
        let namespace: ForeignElement.Namespace =
            switch tag.name {
            case "svg": .svg
            case "math": .mathML
            default: currentForeignNamespace ?? .svg
            }
        if namespace == .svg {
            let attribute: AttributeNames.Name = tag[.href] != nil ? .href : .xlinkHref
            switch tag.name {
            case "image", "feimage", "use": report(tag, attribute, .image)
            case "script": report(tag, attribute, .script)
            case "a": report(tag, attribute, .link)
            default: break
            }
        }
        scanStyleAttribute(tag[.style], element: tag.name)
        startElement(tag)
        guard !tag.isSelfClosing else { return }
        let isIntegrationPoint: Bool =
            switch namespace {
            case .svg: ["foreignobject", "desc", "title"].contains(tag.name)
            case .mathML:
                ["mi", "mo", "mn", "ms", "mtext"].contains(tag.name)
                    || (tag.name == "annotation-xml"
                        && ["text/html", "application/xhtml+xml"].contains(tag[.encoding].map(Self.normalized)))
            }
        pushForeign(ForeignElement(name: tag.name, namespace: namespace, isIntegrationPoint: isIntegrationPoint))
        if namespace == .svg && tag.name == "style" {
            startStyle(foreignDepth: foreignDepth, media: tag[.media])
        }
    }

    // MARK: - End tags

    mutating func handleEndTag(_ name: String, _ element: ElementName) {
        endElement(name, element)
        if popForeign(named: name) { return }
        if isInForeignContent {
            guard Self.foreignClosingEndTags.contains(name) else { return }
            popForeign(toCount: 0)
        }
        switch element {
        case .template: leaveTemplate()
        case .picture, .video, .audio:
            if element == .picture { flushPicture() }
            closeMediaContainer(element)
        case .style: finishStyle()
        default: break
        }
    }

    // MARK: - Helpers

    private mutating func report(
        _ tag: HTMLTag,
        _ attribute: AttributeNames.Name,
        _ kind: Reference.Kind,
        isRequisite: Bool? = nil,
        condition: consuming Reference.Condition? = nil,
        crossOrigin: Bool = false
    ) {
        report(
            tag[attribute],
            kind: kind,
            source: Reference.Source(element: tag.name, attribute: attribute.text),
            isRequisite: isRequisite,
            condition: consume condition,
            // A `crossorigin` attribute, whatever its value, asks in CORS mode (HTML §2.5.4).
            crossOrigin: crossOrigin || tag[.crossorigin] != nil
        )
    }

    private mutating func reportSrcset(_ tag: HTMLTag, _ attribute: AttributeNames.Name) {
        guard let value = tag[attribute] else { return }
        for url in SrcsetParser.urls(in: value) {
            report(url, kind: .image, source: Reference.Source(element: tag.name, attribute: attribute.text))
        }
    }

    /// ASCII lower case with surrounding ASCII whitespace removed.
    private static func normalized(_ value: String) -> String {
        value.trimmingScalars(in: " \t\n\r\u{0C}").lowercased()
    }
}

/// The attribute names the scanner looks up, each packed once.
extension AttributeNames.Name {
    static let `as` = Self("as")
    static let background = Self("background")
    static let charset = Self("charset")
    static let color = Self("color")
    static let content = Self("content")
    static let crossorigin = Self("crossorigin")
    static let data = Self("data")
    static let dataBg = Self("data-bg")
    static let dataLazySrc = Self("data-lazy-src")
    static let dataOriginal = Self("data-original")
    static let dataSrc = Self("data-src")
    static let dataSrcset = Self("data-srcset")
    static let encoding = Self("encoding")
    static let face = Self("face")
    static let href = Self("href")
    static let httpEquiv = Self("http-equiv")
    static let imagesizes = Self("imagesizes")
    static let imagesrcset = Self("imagesrcset")
    static let language = Self("language")
    static let loading = Self("loading")
    static let media = Self("media")
    static let name = Self("name")
    static let nomodule = Self("nomodule")
    static let onload = Self("onload")
    static let poster = Self("poster")
    static let rel = Self("rel")
    static let shadowrootmode = Self("shadowrootmode")
    static let size = Self("size")
    static let sizes = Self("sizes")
    static let src = Self("src")
    static let srcdoc = Self("srcdoc")
    static let srcset = Self("srcset")
    static let style = Self("style")
    static let type = Self("type")
    static let width = Self("width")
    static let xlinkHref = Self("xlink:href")
}
