import FoundationEssentials

/// Decides which of the references a scanner reports a browser on a device fetches, and says why.
///
/// The scanners report every candidate with its ``Reference/Condition``; this is the separate
/// step that chooses. ``allCandidates`` fetches everything, as a store that must serve any device
/// needs; a device chooser fetches what Chromium on that device requests:
///
/// - the `srcset`/`<picture>`/`<link rel=preload as=image>` candidate of ``ImageSelection``, and
///   the `image-set()` option;
/// - nothing in an `@supports` rule whose condition Chromium does not meet (``SupportsCondition``;
///   an undecided condition holds);
/// - nothing whose media queries (`@media`, `@import … media`, `<style media>`, preload `media`)
///   do not match, except stylesheets, which browsers fetch whatever their `media`;
/// - a `url()` in a style rule only when an element of the page matches the rule's selector
///   (decided once the page is scanned, ``decide(_:inheritedMedia:page:)``);
/// - of an `@font-face` rule, the first `src` entry whose `format()` and `tech()` the device
///   supports, only when some rule names the face's family, and, for a face with a
///   `unicode-range`, when the page's text has a character in it;
/// - of icons, the last `rel=icon` the device decodes whose `media` matches; `apple-touch-icon`,
///   `mask-icon` and manifest icons only when ``fetchesAllIcons``.
public struct ReferenceChooser: Sendable, Hashable {
    /// Whom the choice is for.
    public enum Mode: Sendable, Hashable {
        /// A browser on this device.
        case device(DeviceProfile)
        /// Any device: every candidate is fetched.
        case allCandidates
    }

    /// A decision and its reason, in words for a report.
    public enum Decision: Sendable, Hashable {
        case fetch(reason: String)
        case skip(reason: String)
        /// It depends on the page's elements, or on font families still to be read.
        case pending
    }

    /// Whom the choice is for.
    public var mode: Mode
    /// Whether `apple-touch-icon`, `mask-icon` and manifest icons are fetched too (`--icons all`),
    /// and every `rel=icon` rather than the one a browser takes.
    public var fetchesAllIcons: Bool

    /// A chooser for `mode`.
    public init(mode: Mode, fetchesAllIcons: Bool = false) {
        self.mode = mode
        self.fetchesAllIcons = fetchesAllIcons
    }

    /// A chooser for a browser on `device`.
    public init(device: DeviceProfile, fetchesAllIcons: Bool = false) {
        self.init(mode: .device(device), fetchesAllIcons: fetchesAllIcons)
    }

    /// The chooser that fetches every candidate.
    public static let allCandidates = ReferenceChooser(mode: .allCandidates, fetchesAllIcons: true)

    /// What is known of the page a reference is decided for.
    public struct PageState: Sendable {
        /// The page's elements, once the whole page is scanned.
        public var tree: DocumentTree?
        /// The font families its stylesheets and `style` attributes name so far, with their rules.
        public var fontFamilies: Set<FontFamilyUse> = []
        /// Whether every stylesheet of the page has been read: nothing more will name a family.
        public var isComplete = false
        /// The characters the page may show so far: its document's (once scanned) and those its
        /// stylesheets' `content` adds.
        public var textCharacters = TextCharacters()
        /// The last `<meta name=viewport>` of the page so far, which lays it out on a mobile device.
        public var viewport: ViewportDeclaration?

        /// A page not scanned yet.
        public init() {}
    }

    // MARK: - Deciding

    /// Decides one reference of a page.
    ///
    /// - Parameters:
    ///   - reference: The reference, with the condition its scanner found.
    ///   - inheritedMedia: The media of the `<link>` or `@import`s that loaded the stylesheet it is in.
    ///   - page: What is known of the page.
    /// - Returns: Fetch or skip with the reason, or ``Decision/pending`` until the page knows more.
    public func decide(_ reference: Reference, inheritedMedia: [String] = [], page: PageState) -> Decision {
        guard case .device(let screen) = mode else {
            return .fetch(reason: "every candidate is fetched (--all-candidates)")
        }
        let device = screen.laidOut(by: page.viewport)
        let condition = reference.condition ?? Reference.Condition()
        let media = inheritedMedia + condition.media
        if condition.isStylesheet {
            // An `@import … supports()` whose declaration Chromium does not support is invalid there;
            // one whose condition is false is fetched, and none of its rules apply (Chromium 156).
            if let unmet = condition.unmetSupportsCondition {
                if CSSRuleContext.isBareDeclaration(unmet) {
                    return .skip(reason: "Chromium does not support its supports() declaration '\(unmet)', "
                        + "which makes the @import invalid")
                }
                return .fetch(reason: "a stylesheet is fetched whatever its supports() condition, as Chromium does; "
                    + "none of its rules apply")
            }
            return .fetch(reason: media.isEmpty
                ? "a stylesheet" : "a stylesheet is fetched whatever its media, as browsers do")
        }
        if let failing = media.first(where: { !MediaQueryList($0).matches(device) }) {
            return .skip(reason: "its media query '\(failing)' does not match \(device.summary)")
        }
        if let unmet = condition.unmetSupportsCondition {
            return .skip(reason: "its @supports condition '\(unmet)' is false in Chromium")
        }
        if reference.kind == .icon, reference.source.manifestMember != nil {
            return fetchesAllIcons ? .fetch(reason: "every icon is fetched (--icons all)")
                : .skip(reason: "manifest icons are fetched only with --icons all")
        }
        if let icon = condition.icon {
            if fetchesAllIcons { return .fetch(reason: "every icon is fetched (--icons all)") }
            guard icon.isBrowserIcon else {
                let relations = icon.relations.sorted().joined(separator: " ")
                return .skip(reason: "\(relations) icons are fetched only with --icons all")
            }
            // Decided with the page's other icons, once its head is read (decideIcons).
            return .pending
        }
        let replacing = condition.replacedUnder.first { $0.allSatisfy { MediaQueryList($0).matches(device) } }
        if let replacing {
            let under = replacing.isEmpty ? "" : " under '\(replacing.joined(separator: "' and '"))'"
            return .skip(reason: "a later rule for '\(condition.selector ?? "")'\(under) replaces it")
        }
        if let image = condition.image, let decision = decide(image, device: device) {
            return decision
        }
        if let face = condition.fontFace {
            return decide(face, device: device, page: page)
        }
        if let selector = condition.selector {
            guard let tree = page.tree else { return .pending }
            switch SelectorMatcher.anyElement(of: tree, matches: SelectorList(selector)) {
            case .true: return .fetch(reason: "an element matches '\(selector)'")
            case .unknown: return .fetch(reason: "'\(selector)' may match an element (it depends on state)")
            case .false: return .skip(reason: "no element of the page matches '\(selector)'")
            }
        }
        return .fetch(reason: media.isEmpty ? "always" : "its media matches \(device.summary)")
    }

    /// `nil` when this reference is the chosen one (the caller goes on to its other conditions).
    private func decide(_ image: Reference.ImageChoice, device: DeviceProfile) -> Decision? {
        switch image {
        case .sourceSet(let set, let alternative, let candidate):
            guard let pick = ImageSelection.pick(in: set, for: device) else {
                return .skip(reason: "no source of the image applies to \(device.summary)")
            }
            if pick.alternative == alternative && pick.candidate == candidate { return nil }
            let chosen = set.alternatives[pick.alternative]
            let url = pick.candidate < chosen.candidates.count
                ? chosen.candidates[pick.candidate].url : chosen.fallback ?? ""
            return .skip(reason: "\(device.summary) takes \(url) instead")
        case .imageSet(let options, let option):
            guard let pick = ImageSelection.imageSetOption(options, for: device) else {
                return .skip(reason: "no option of the image-set() suits \(device.summary)")
            }
            return pick == option ? nil : .skip(reason: "\(device.summary) takes \(options[pick].url) instead")
        }
    }

    private func decide(_ face: Reference.FontFaceSource, device: DeviceProfile, page: PageState) -> Decision {
        let decision = decideFamily(face, device: device, page: page)
        guard case .fetch = decision, let range = face.unicodeRange else { return decision }
        // CSS Fonts Level 4 §4.5: a face is downloaded only for text with a character in its range.
        guard page.tree != nil else { return .pending }
        if range.meets(page.textCharacters) { return decision }
        return page.isComplete
            ? .skip(reason: "the page's text has no character in the face's unicode-range '\(range.text)'") : .pending
    }

    /// The decision for a face by its `src` entries and family, whatever its `unicode-range`.
    private func decideFamily(_ face: Reference.FontFaceSource, device: DeviceProfile, page: PageState) -> Decision {
        // CSS Fonts Level 4 §4.3: the first entry the browser can use; `local()` entries name fonts
        // installed on the device, which a device profile assumes absent.
        let first = face.entries.firstIndex { entry in
            entry.isURL
                && (entry.formats.isEmpty || entry.formats.contains { format in
                    let base = format.hasSuffix("-variations") ? String(format.dropLast(11)) : format
                    return device.fontFormats.contains(base)
                })
                && entry.technologies.allSatisfy(SupportsCondition.fontTechnologies.contains)
        }
        guard first == face.entry else {
            return .skip(reason: first == nil
                ? "\(device.summary) loads none of the face's formats"
                : "an earlier source of the face is in a format \(device.summary) loads")
        }
        guard let family = face.family else { return .skip(reason: "the @font-face rule names no font-family") }
        // Browsers fetch a face for text that uses it: some element must match a rule naming it.
        var undecided = false
        for use in page.fontFamilies where use.family == family {
            guard let selector = use.selector else { return .fetch(reason: "an element uses font family '\(family)'") }
            guard let tree = page.tree else {
                undecided = true
                continue
            }
            if SelectorMatcher.anyElement(of: tree, matches: SelectorList(selector)) != .false {
                return .fetch(reason: "'\(selector)' uses font family '\(family)' and matches an element")
            }
        }
        return page.isComplete && !undecided
            ? .skip(reason: "no rule that matches an element of the page uses font family '\(family)'") : .pending
    }

    /// The icons a browser takes among a page's `rel=icon` links, in document order: the last one
    /// whose `type` the device decodes and whose `media` matches (HTML §4.6.7.8 "Link type
    /// icon": "user agents … should use the last one declared"). Every one with ``fetchesAllIcons``.
    public func decideIcons(_ icons: [Reference], page: PageState = PageState()) -> [Decision] {
        guard case .device(let screen) = mode, !fetchesAllIcons else {
            return icons.map { _ in .fetch(reason: "every icon is fetched (--icons all)") }
        }
        let device = screen.laidOut(by: page.viewport)
        let usable = icons.indices.filter { index in
            let link = icons[index].condition?.icon
            if let type = link?.type, !ImageSelection.decodes(type, device) { return false }
            if let media = link?.media, !MediaQueryList(media).matches(device) { return false }
            return true
        }
        return icons.indices.map { index in
            if index == usable.last { return .fetch(reason: "the icon a browser takes: the last usable rel=icon") }
            let taken = usable.last.map { icons[$0].urlString } ?? "none"
            return .skip(reason: "a browser takes the last usable rel=icon, \(taken)")
        }
    }
}

extension DeviceProfile {
    /// `1280x800 at 1x`, as reasons name the device.
    public var summary: String {
        let ratio = devicePixelRatio == devicePixelRatio.rounded()
            ? String(Int(devicePixelRatio)) : String(devicePixelRatio)
        return "\(viewportWidth)x\(viewportHeight) at \(ratio)x"
    }
}
