import Discovery
import FoundationEssentials
import HTTPCore

/// The device choices of one preload run: a ``PageSelection`` for each document (page or frame),
/// and which stylesheets belong to which documents, with the media they were loaded under.
///
/// The scheduling loop owns it, and only it: a copy would share the open documents' selections. A
/// stylesheet is fetched once per run however many documents use it; what it holds that depends on
/// a document (a `url()` in a style rule, a face's family) is kept, so that a document that finds
/// the stylesheet later is decided on it too. What belongs to one document (its selection, where
/// its references were found, its place among a stylesheet's documents) goes when the document is
/// finished, so a long run keeps only its open documents.
struct DeviceSelections {
    /// Where a decided reference was found: the item that held it, the URL it was read from, and
    /// whether it came from a public address (``AddressPolicy/isFromPublicAddress(_:)``).
    struct Origin: Sendable {
        var item: PreloadItem
        var base: URL
        var fromPublicAddress: Bool
    }

    /// A decision, with where its reference was found and the document it was made for.
    struct Decided {
        var choice: PageSelection.Choice
        var origin: Origin
        var document: URL
    }

    /// A document not finished yet: its selection, and the schedule's key of its item, kept so that
    /// asking whether the document has settled needs no key made from its URL each time.
    ///
    /// A class, so that the selection is changed where the dictionary holds it: a copy taken out and
    /// changed would copy the selection's lists while the dictionary still shared them, and listing
    /// the open documents after each response would copy every selection.
    private final class OpenDocument {
        var selection: PageSelection
        let key: URLKey

        init(selection: PageSelection, key: URLKey) {
            self.selection = selection
            self.key = key
        }
    }

    let chooser: ReferenceChooser
    private var selections: [URL: OpenDocument] = [:]
    private var documentsOfResource: [URL: Set<URL>] = [:]
    private var mediaOfSheet: [URL: [String]] = [:]
    /// What each stylesheet held that a later document must be decided on, and where it was read.
    private var heldBySheet: [URL: [(references: [Reference], origin: Int)]] = [:]
    private var familiesBySheet: [URL: Set<FontFamilyUse>] = [:]
    /// The characters each stylesheet's `content` and list styles may show, for the documents that
    /// find it later.
    private var charactersBySheet: [URL: TextCharacters] = [:]
    /// The false `supports()` condition of the `@import` that loaded a stylesheet (or one of its
    /// ancestors): Chromium applies none of its rules, so nothing they hold is fetched.
    private var unmetSupportsOfSheet: [URL: String] = [:]
    private var origins: [Int: Origin] = [:]
    /// The viewport declaration of the document that each frame to be fetched is in, until the
    /// frame's document opens.
    private var viewportOfFrame: [URL: ViewportDeclaration] = [:]
    private var nextOrigin = 0
    /// The origins read from each open document itself, and the stylesheets it uses.
    private var originsOfDocument: [URL: [Int]] = [:]
    private var sheetsOfDocument: [URL: [URL]] = [:]

    init(chooser: ReferenceChooser) {
        self.chooser = chooser
    }

    /// The documents not finished yet, with their schedule keys.
    var openDocuments: [(url: URL, key: URLKey)] { selections.map { ($0.key, $0.value.key) } }

    /// Whether the document at `url` is open: found, and not finished yet. (A run of pages without
    /// their requisites opens none, and hashes no URL here.)
    func isOpen(_ url: URL) -> Bool {
        !selections.isEmpty && selections[url] != nil
    }

    /// Decides what `item` (a document, or a stylesheet or manifest) holds.
    ///
    /// A given page that is not an HTML document (a stylesheet in the URL list) has no document to
    /// decide for it: everything it holds is fetched, as it is for the documents that use it.
    mutating func found(
        _ references: [Reference], families: Set<FontFamilyUse>, characters: TextCharacters, in item: PreloadItem,
        base: URL,
        fromPublicAddress: Bool, isDocument: Bool
    ) -> [Decided] {
        if isDocument { open(item) }
        let origin = nextOrigin
        nextOrigin += 1
        let here = Origin(item: item, base: base, fromPublicAddress: fromPublicAddress)
        origins[origin] = here
        if isDocument { originsOfDocument[item.url, default: []].append(origin) }
        var decided: [Decided] = []
        if item.isPage && !isDocument {
            var standalone = PageSelection(chooser: .allCandidates)
            decided += standalone.add(references, origin: origin).map {
                Decided(choice: $0, origin: here, document: item.url)
            }
        }
        if !isDocument {
            let kept = references.filter { $0.condition != nil || $0.kind == .stylesheet || $0.kind == .icon }
            if !kept.isEmpty { heldBySheet[item.url, default: []].append((kept, origin)) }
            familiesBySheet[item.url, default: []].formUnion(families)
            if !characters.isEmpty { charactersBySheet[item.url, default: TextCharacters()].formUnion(characters) }
        }
        let documents = isDocument ? [item.url] : Array(documentsOfResource[item.url] ?? [])
        let media = isDocument ? [] : mediaOfSheet[item.url] ?? []
        let unmet = isDocument ? nil : unmetSupportsOfSheet[item.url]
        for document in documents {
            decided += decide(in: document) { selection in
                Self.add(references, families: families, characters: characters, inheritedMedia: media,
                         unmetSupports: unmet, origin: origin, to: &selection)
            }
        }
        return decided
    }

    /// The document `item`'s `<meta name=viewport>`: what is decided for it from now on is decided
    /// in the layout viewport it declares. A frame's has no effect: a frame is laid out in its box.
    mutating func declare(_ viewport: ViewportDeclaration, in item: PreloadItem) {
        guard !item.isFrame else { return }
        open(item)
        selections[item.url]?.selection.viewport = viewport
    }

    /// Opens `document`'s selection, if it is not open. A frame's box, which a static scan does not
    /// know, is taken as the layout viewport of the page it is in: a frame as wide as the page's
    /// layout at most, on a phone's page as wide as the screen, on a desktop page's (980 pixels) wider.
    private mutating func open(_ document: PreloadItem) {
        if selections[document.url] == nil {
            var selection = PageSelection(chooser: chooser)
            if document.isFrame { selection.viewport = viewportOfFrame.removeValue(forKey: document.url) }
            selections[document.url] = OpenDocument(selection: selection, key: document.key)
        }
    }

    /// Adds what a document or stylesheet holds to a document's selection: in a stylesheet that an
    /// `@import` with a false `supports()` loaded (`unmetSupports`), its references count as under
    /// that condition, and its rules name no family and show no text.
    private static func add(
        _ references: [Reference], families: Set<FontFamilyUse>, characters: TextCharacters,
        inheritedMedia: [String], unmetSupports: String?, origin: Int, to selection: inout PageSelection
    ) -> [PageSelection.Choice] {
        guard let unmetSupports else {
            return selection.addFontFamilies(families) + selection.addTextCharacters(characters)
                + selection.add(references, inheritedMedia: inheritedMedia, origin: origin)
        }
        let unapplied = references.map { reference in
            var reference = reference
            var condition = reference.condition ?? Reference.Condition()
            if condition.unmetSupportsCondition == nil { condition.unmetSupportsCondition = unmetSupports }
            reference.condition = condition
            return reference
        }
        return selection.add(unapplied, inheritedMedia: inheritedMedia, origin: origin)
    }

    /// The document at `url` has been scanned to its end.
    mutating func scanned(document url: URL, tree: DocumentTree) -> [Decided] {
        decide(in: url) { $0.completeDocument(tree) }
    }

    /// Everything `url` needs has ended: what still waits is skipped.
    mutating func finish(document url: URL) -> [Decided] {
        guard selections[url] != nil else { return [] }
        let decided = decide(in: url) { $0.finish() }
        selections[url] = nil
        for origin in originsOfDocument.removeValue(forKey: url) ?? [] { origins[origin] = nil }
        for sheet in sheetsOfDocument.removeValue(forKey: url) ?? [] { documentsOfResource[sheet]?.remove(url) }
        return decided
    }

    /// Runs `body` on a document's selection, and links the stylesheets it decides to fetch to the
    /// document, deciding what they held before for it too.
    private mutating func decide(in document: URL, _ body: (inout PageSelection) -> [PageSelection.Choice])
        -> [Decided]
    {
        guard let open = selections[document] else { return [] }
        var choices = body(&open.selection)
        var decided: [Decided] = []
        var index = 0
        while index < choices.count {
            let choice = choices[index]
            index += 1
            guard let origin = origins[choice.origin] else {
                preconditionFailure("A choice of an open document refers to an origin that was let go.")
            }
            decided.append(Decided(choice: choice, origin: origin, document: document))
            if choice.fetches, choice.reference.isFrame {
                viewportOfFrame[choice.reference.url.cacheKey] = open.selection.viewport
            }
            // What a stylesheet or manifest holds is decided for the documents that use it.
            guard choice.fetches, [.stylesheet, .manifest].contains(choice.reference.kind) else { continue }
            let sheet = choice.reference.url.cacheKey
            guard documentsOfResource[sheet, default: []].insert(document).inserted else { continue }
            sheetsOfDocument[document, default: []].append(sheet)
            let parentMedia = origin.item.isPage || origin.item.kind == .document
                ? [] : mediaOfSheet[origin.item.url] ?? []
            if mediaOfSheet[sheet] == nil {
                mediaOfSheet[sheet] = parentMedia + (choice.reference.condition?.media ?? [])
            }
            if unmetSupportsOfSheet[sheet] == nil,
                let unmet = choice.reference.condition?.unmetSupportsCondition ?? unmetSupportsOfSheet[origin.item.url]
            {
                unmetSupportsOfSheet[sheet] = unmet
            }
            // The stylesheet was read before this document found it: decide what it held.
            choices += Self.add(
                [], families: familiesBySheet[sheet] ?? [], characters: charactersBySheet[sheet] ?? TextCharacters(),
                inheritedMedia: [], unmetSupports: unmetSupportsOfSheet[sheet], origin: 0, to: &open.selection)
            for held in heldBySheet[sheet] ?? [] {
                choices += Self.add(
                    held.references, families: [], characters: TextCharacters(),
                    inheritedMedia: mediaOfSheet[sheet] ?? [], unmetSupports: unmetSupportsOfSheet[sheet], origin: held.origin, to: &open.selection)
            }
        }
        return decided
    }
}
