/// The elements of a scanned page, as far as selectors need them: names, ids, classes, the
/// attributes the scanner keeps, and who is whose parent and sibling.
///
/// ``HTMLScanner`` builds it as it walks the tags, with the tree builder's rules that matter for
/// selectors (HTML §13.2.6): `<html>`, `<head>` and `<body>` exist even when the markup leaves
/// them out, void elements have no content, and a `<p>`, `<li>`, `<dt>`/`<dd>`, `<option>` or table
/// cell is closed by the start of its like. `<template>` content is not part of the document.
public struct DocumentTree: Sendable {
    /// One element.
    public struct Element: Sendable {
        /// The local name in lower case.
        public var name: String
        /// The `id` attribute.
        public var id: String?
        /// The `class` attribute's classes.
        public var classes: [String]
        /// The attributes the scanner keeps, by lower-case name.
        public var attributes: [String: String] { kept.dictionary }
        /// The attributes the scanner keeps, as the tag had them.
        var kept: TagAttributes
        /// The parent's index; `nil` for the root.
        public var parent: Int?
        /// The children's indices, in order.
        public var children: [Int] = []
        /// The position among the parent's children.
        public var position = 0
    }

    /// Every element, in document order; the root `html` is the first.
    public private(set) var elements: [Element] = []
    /// The attributes whose absence is known: those the scanner keeps. A selector on another
    /// attribute is undecided (and its rule fetched).
    public let knownAttributes: Set<String>

    private var open: [Int] = [0]
    private var head: Int?
    private var body: Int?
    private var elementsByID: [String: [Int]] = [:]
    private var elementsByClass: [String: [Int]] = [:]
    private var elementsByName: [String: [Int]] = [:]
    /// Where the names filed last are in ``elementsByName``, so that the next element of one of
    /// them (`p`, `img`, `div` in turn) is filed without hashing its name. Emptied when a name is
    /// added, which may move every entry.
    private var recentNames: [(name: String, index: Dictionary<String, [Int]>.Index)] = []
    /// How many names ``recentNames`` holds.
    private static let recentNameCount = 4

    /// The most elements kept; a larger page's rules are all matched, as if it had every element.
    static let maximumElements = 200_000

    /// An empty document: just the root.
    public init(knownAttributes: Set<String>) {
        self.knownAttributes = knownAttributes
        // Room for a small page's elements at once: grown from one, the list was copied eight times
        // before it held 256.
        elements.reserveCapacity(256)
        elements.append(Element(name: "html", id: nil, classes: [], kept: TagAttributes(), parent: nil))
        elementsByName["html"] = [0]
    }

    /// Whether the document had more elements than are kept.
    public private(set) var isTruncated = false

    // MARK: - Building

    private static func isVoid(_ element: ElementName) -> Bool {
        switch element {
        case .area, .base, .br, .col, .embed, .hr, .img, .input, .link, .meta, .param, .source, .track, .wbr, .frame,
            .keygen, .basefont, .bgsound:
            true
        default: false
        }
    }

    private static func isHeadElement(_ element: ElementName) -> Bool {
        switch element {
        case .meta, .link, .style, .script, .title, .base, .noscript, .template: true
        default: false
        }
    }
    /// Start tags that close an open `<p>` (HTML §13.2.6.4.7 "in body").
    private static let closesParagraph: Set<String> = [
        "address", "article", "aside", "blockquote", "center", "details", "dialog", "dir", "div", "dl", "fieldset",
        "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hgroup", "hr",
        "main", "menu", "nav", "ol", "p", "pre", "section", "summary", "table", "ul", "li", "dd", "dt",
    ]
    /// Elements implicitly closed by the start of another of the listed names.
    private static let closedBySiblings: [String: Set<String>] = [
        "li": ["li"], "dt": ["dt", "dd"], "dd": ["dt", "dd"], "option": ["option", "optgroup"],
        "optgroup": ["optgroup"], "tr": ["tr", "tbody", "thead", "tfoot"],
        "td": ["td", "th", "tr", "tbody", "thead", "tfoot"],
        "th": ["td", "th", "tr", "tbody", "thead", "tfoot"], "thead": ["tbody", "tfoot"], "tbody": ["tbody", "tfoot"],
    ]

    /// Adds the element a start tag opens; `element` is the element `name` names.
    mutating func startElement(_ name: String, _ element: ElementName, attributes: TagAttributes, selfClosing: Bool) {
        switch element {
        case .html:
            merge(attributes, into: 0)
            return
        case .head:
            if head == nil, body == nil { head = append("head", attributes, under: 0) }
            if let head { open = [0, head] }
            return
        case .body:
            if let body {
                merge(attributes, into: body)
            } else {
                body = append("body", attributes, under: 0)
            }
            open = [0, body!]
            return
        default:
            break
        }
        if body == nil {
            if Self.isHeadElement(element) {
                if head == nil { head = append("head", TagAttributes(), under: 0) }
                if open.count < 2 { open = [0, head!] }
            } else {
                if head == nil { head = append("head", TagAttributes(), under: 0) }
                body = append("body", TagAttributes(), under: 0)
                open = [0, body!]
            }
        }
        closeImplied(by: name)
        guard let parent = open.last else { return }
        let index = append(name, attributes, under: parent)
        if index >= 0, !selfClosing, !Self.isVoid(element), open.count < 512 { open.append(index) }
    }

    /// The characters of the document's text (``HTMLScanner/textCharacters``), set when it ends.
    public internal(set) var text = TextCharacters()

    /// Ends the document, whose text has `text`: a page without body content still has its
    /// `<head>` and `<body>`.
    mutating func finish(text: TextCharacters = TextCharacters()) {
        self.text = text
        if head == nil { head = append("head", TagAttributes(), under: 0) }
        if body == nil { body = append("body", TagAttributes(), under: 0) }
        open = [0]
    }

    /// Closes the innermost open element named `name`, and those inside it; `element` is the
    /// element `name` names, told apart without comparing strings.
    mutating func endElement(_ name: String, _ element: ElementName) {
        guard element != .html, element != .body, element != .head || open.count > 1 else { return }
        if element == .head {
            open = [0]
            return
        }
        guard let position = open.lastIndex(where: { elements[$0].name == name }), position > 0 else { return }
        open.removeSubrange(position...)
    }

    private mutating func closeImplied(by name: String) {
        while let current = open.last, current != 0, current != body, current != head {
            let currentName = elements[current].name
            if currentName == "p" && Self.closesParagraph.contains(name) {
                open.removeLast()
            } else if let closers = Self.closedBySiblings[currentName], closers.contains(name) {
                open.removeLast()
            } else {
                return
            }
        }
    }

    private mutating func merge(_ attributes: TagAttributes, into index: Int) {
        for attribute in attributes.list where elements[index].kept[attribute.key] == nil {
            elements[index].kept.append(attribute)
            register(attribute.name, attribute.value, of: index)
        }
    }

    /// Files element `index` under its `id` or classes when `name` is one of those attributes.
    private mutating func register(_ name: String, _ value: String, of index: Int) {
        if name == "id" {
            elements[index].id = value
            elementsByID[value, default: []].append(index)
        } else if name == "class" {
            let classes = Self.classes(in: value)
            elements[index].classes = classes
            for name in classes { elementsByClass[name, default: []].append(index) }
        }
    }

    @discardableResult
    private mutating func append(_ name: String, _ attributes: TagAttributes, under parent: Int) -> Int {
        guard elements.count < Self.maximumElements else {
            isTruncated = true
            return -1
        }
        let index = elements.count
        // A new element takes the attributes as they are: none is there to keep.
        elements.append(Element(name: name, id: nil, classes: [], kept: attributes, parent: parent,
                                position: elements[parent].children.count))
        elements[parent].children.append(index)
        file(index, byName: name)
        if !attributes.isEmpty {
            if let id = attributes[Self.idKey] { register("id", id, of: index) }
            if let classes = attributes[Self.classKey] { register("class", classes, of: index) }
        }
        return index
    }

    /// Adds element `index` to the elements named `name`.
    private mutating func file(_ index: Int, byName name: String) {
        // Read in place, lengths first: a loop over copies retained each name, and comparing two
        // different names costs a call.
        let length = name.utf8.count
        let slot: Dictionary<String, [Int]>.Index? = recentNames.withUnsafeBufferPointer { recent in
            for position in recent.indices
            where recent[position].name.utf8.count == length && recent[position].name == name {
                return recent[position].index
            }
            return nil
        }
        if let slot {
            elementsByName.values[slot].append(index)
            return
        }
        if let slot = elementsByName.index(forKey: name) {
            elementsByName.values[slot].append(index)
            if recentNames.count == Self.recentNameCount { recentNames.removeFirst() }
            recentNames.append((name, slot))
        } else {
            elementsByName[name] = [index]
            recentNames.removeAll(keepingCapacity: true)
        }
    }

    private static let idKey = AttributeNames.Key("id")
    private static let classKey = AttributeNames.Key("class")

    private static func classes(in value: String) -> [String] {
        value.split(whereSeparator: { " \t\n\r\u{0C}".contains($0) }).map(String.init)
    }

    // MARK: - Text

    /// The characters the page may show (``TextCharacters``): those of its text, with those of the
    /// attributes a browser shows (`alt` when the image is missing, `value`, `placeholder`,
    /// `label`), the markers of list items and disclosure widgets, the quotation marks of `<q>`, the
    /// ASCII and symbols of form controls' own labels and masks, and the hyphen and ellipsis that
    /// `hyphens` and `text-overflow` may add. Every character when the tree lost elements.
    public func shownCharacters() -> TextCharacters {
        var characters = text
        guard !isTruncated else {
            characters.insertEverything()
            return characters
        }
        for element in elements {
            switch element.name {
            case "li", "summary", "details", "input", "button", "select":
                characters.insert(0x30)
                characters.formUnion(.symbolMarkers)
            case "q":
                characters.formUnion(.defaultQuotes)
            default:
                break
            }
            guard !element.kept.isEmpty else { continue }
            for key in Self.shownAttributeKeys {
                guard let value = element.kept[key] else { continue }
                for scalar in value.unicodeScalars { characters.insert(scalar.value) }
            }
        }
        if !characters.isEmpty {
            characters.insert(0x2010)
            characters.insert(0x2026)
        }
        return characters
    }

    private static let shownAttributeKeys = ["alt", "value", "placeholder", "label"].map { AttributeNames.Key($0) }

    // MARK: - Lookup

    /// The elements a compound selector's id, class or name narrows to; all of them otherwise.
    func candidates(id: String?, className: String?, name: String?) -> [Int] {
        if let id { return elementsByID[id] ?? [] }
        if let className { return elementsByClass[className] ?? [] }
        if let name { return elementsByName[name] ?? [] }
        return Array(elements.indices)
    }
}
