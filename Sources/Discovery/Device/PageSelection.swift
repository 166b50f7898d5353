/// The choice of what to fetch for one page, made as the page and its stylesheets are scanned:
/// a pure state machine the preload engine feeds and whose decisions it carries out.
///
/// ```
///  add(references) ──▶ decided now ──────────────────────▶ fetch / skip
///         │
///         └─▶ waiting ── completeDocument(tree) ──▶ selectors, icons decided
///                     ── addFontFamilies(names) ──▶ faces of those families fetched
///                     ── addTextCharacters(c) ────▶ faces whose unicode-range has one fetched
///                     ── finish() ────────────────▶ what still waits is skipped
/// ```
///
/// References whose choice needs the page's elements (a `url()` in a style rule, the icons) wait
/// for ``completeDocument(_:)``; `@font-face` sources wait until a rule names their family, or until
/// ``finish()`` says every stylesheet of the page has been read. A face with a `unicode-range` also
/// waits for the document's text, and for a character of its range in it or in what a stylesheet's
/// `content` shows (``addTextCharacters(_:)``), or for ``finish()``.
public struct PageSelection: Sendable {
    /// One decision: the reference, whether it is fetched, and why.
    public struct Choice: Sendable, Hashable {
        /// The reference decided.
        public var reference: Reference
        /// Whether a browser on the device fetches it.
        public var fetches: Bool
        /// Why, in words.
        public var reason: String
        /// The caller's tag of the batch the reference came in (``add(_:inheritedMedia:origin:)``).
        public var origin: Int
    }

    /// The chooser deciding.
    public let chooser: ReferenceChooser
    private var state = ReferenceChooser.PageState()
    private var waiting: [Waiting] = []
    private var icons: [(reference: Reference, origin: Int)] = []
    private var isFinished = false

    /// A selection for one page.
    public init(chooser: ReferenceChooser) {
        self.chooser = chooser
    }

    /// Whether the page's whole document has been scanned.
    public var hasDocument: Bool { state.tree != nil }

    /// The page's last `<meta name=viewport>` so far (``HTMLScanner/viewport``): what is decided
    /// after it is set is decided in the layout viewport it declares, as a mobile browser lays the
    /// page out once it has read it. For a document in a frame, the declaration of the page it is
    /// in (its own has no effect there).
    public var viewport: ViewportDeclaration? {
        get { state.viewport }
        set { state.viewport = newValue }
    }
    private struct Waiting: Sendable {
        var reference: Reference
        var inheritedMedia: [String]
        var origin: Int
    }

    /// Decides references found in the page or in one of its stylesheets.
    ///
    /// - Parameters:
    ///   - references: References in the order found.
    ///   - inheritedMedia: The media of the `<link>` and `@import`s that loaded their stylesheet.
    ///   - origin: A tag the choices carry back, such as where the references were found.
    /// - Returns: The decisions made now; the others come from later calls.
    public mutating func add(_ references: [Reference], inheritedMedia: [String] = [], origin: Int = 0) -> [Choice] {
        var choices: [Choice] = []
        for reference in references {
            switch chooser.decide(reference, inheritedMedia: inheritedMedia, page: state) {
            case .fetch(let reason):
                choices.append(Choice(reference: reference, fetches: true, reason: reason, origin: origin))
            case .skip(let reason):
                choices.append(Choice(reference: reference, fetches: false, reason: reason, origin: origin))
            case .pending:
                if reference.condition?.icon != nil {
                    icons.append((reference, origin))
                    if state.tree != nil { choices += decideIcons() }
                } else {
                    waiting.append(Waiting(reference: reference, inheritedMedia: inheritedMedia, origin: origin))
                    if isFinished { choices += finish() }
                }
            }
        }
        return choices
    }

    /// Font families named by a stylesheet or `style` attribute of the page.
    public mutating func addFontFamilies(_ families: Set<FontFamilyUse>) -> [Choice] {
        guard !families.isSubset(of: state.fontFamilies) else { return [] }
        state.fontFamilies.formUnion(families)
        return retry()
    }

    /// Characters that a stylesheet of the page may show (``CSSScanner/textCharacters``).
    public mutating func addTextCharacters(_ characters: TextCharacters) -> [Choice] {
        guard !state.textCharacters.isSuperset(of: characters) else { return [] }
        state.textCharacters.formUnion(characters)
        return retry()
    }

    /// The page's document is scanned: selectors can be matched, the icon chosen, and the faces
    /// of its text's characters fetched.
    public mutating func completeDocument(_ tree: DocumentTree) -> [Choice] {
        state.tree = tree
        state.textCharacters.formUnion(tree.shownCharacters())
        return retry() + decideIcons()
    }

    /// Every stylesheet of the page has been read: what still waits is not fetched.
    public mutating func finish() -> [Choice] {
        isFinished = true
        state.isComplete = true
        if state.tree == nil { state.tree = DocumentTree(knownAttributes: []) }
        var choices = retry() + decideIcons()
        for entry in waiting {
            choices.append(Choice(reference: entry.reference, fetches: false, reason: "undecided when the page ended",
                                  origin: entry.origin))
        }
        waiting = []
        return choices
    }

    private mutating func retry() -> [Choice] {
        var choices: [Choice] = []
        var still: [Waiting] = []
        for entry in waiting {
            switch chooser.decide(entry.reference, inheritedMedia: entry.inheritedMedia, page: state) {
            case .fetch(let reason):
                choices.append(Choice(reference: entry.reference, fetches: true, reason: reason, origin: entry.origin))
            case .skip(let reason):
                choices.append(Choice(reference: entry.reference, fetches: false, reason: reason, origin: entry.origin))
            case .pending: still.append(entry)
            }
        }
        waiting = still
        return choices
    }

    /// Icons are decided together; one that arrives after the document (in no real page) on its own.
    private mutating func decideIcons() -> [Choice] {
        guard !icons.isEmpty else { return [] }
        let decided = zip(icons, chooser.decideIcons(icons.map(\.reference), page: state)).map { icon, decision in
            switch decision {
            case .fetch(let reason):
                Choice(reference: icon.reference, fetches: true, reason: reason, origin: icon.origin)
            case .skip(let reason):
                Choice(reference: icon.reference, fetches: false, reason: reason, origin: icon.origin)
            case .pending: Choice(reference: icon.reference, fetches: false, reason: "undecided", origin: icon.origin)
            }
        }
        icons = []
        return decided
    }
}
