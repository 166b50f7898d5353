/// What a browser's fetching a reference depends on, as the scanner found it; a chooser
/// (``ReferenceChooser``) decides from it for a device.
extension Reference {
    /// The conditions around a reference. Every field that is set must hold for a browser to fetch it.
    public struct Condition: Sendable, Hashable {
        /// Media query lists that must all match: `@media` blocks around a `url()`, an `@import`'s
        /// media, a `<style media>` or `<link rel=preload media>`, the `media` of the `<link>` or
        /// `@import` that loaded the stylesheet.
        public var media: [String]
        /// The condition of an enclosing `@supports` rule that is false in the device's engine
        /// (``SupportsCondition``): a browser applies none of the rules inside it. For an `@import`, its
        /// `supports()` condition when false: Chromium fetches the stylesheet and applies none of its
        /// rules, or, when it is a bare declaration (`supports(display: -ms-grid)`), drops the
        /// `@import` as invalid.
        public var unmetSupportsCondition: String?
        /// The selector of the style rule that holds a `url()`: fetched only when an element of the
        /// page matches it (nested rules are written out as `:is(parent) child`).
        public var selector: String?
        /// For a `url()` in a style rule: the media of later declarations for the same selector and
        /// property (CSS Cascade Level 4 §6), each of which replaces it on a device it matches (an
        /// empty list: everywhere).
        public var replacedUnder: [[String]] = []
        /// The image choice the reference is a candidate of.
        public var image: ImageChoice?
        /// The `@font-face` rule the reference is a source of.
        public var fontFace: FontFaceSource?
        /// The `<link>` icon the reference is.
        public var icon: IconLink?
        /// Whether the reference is a stylesheet (`<link rel=stylesheet>`): fetched whatever its
        /// `media`, which then applies to what the stylesheet holds.
        public var isStylesheet: Bool

        /// Creates a condition; with no arguments, one that always holds.
        public init(
            media: [String] = [], selector: String? = nil, image: ImageChoice? = nil, fontFace: FontFaceSource? = nil,
            icon: IconLink? = nil, isStylesheet: Bool = false
        ) {
            self.media = media
            self.selector = selector
            self.image = image
            self.fontFace = fontFace
            self.icon = icon
            self.isStylesheet = isStylesheet
        }
    }

    /// The choice among images a reference belongs to.
    public enum ImageChoice: Sendable, Hashable {
        /// A candidate of an `<img>`, a `<picture>` or a `<link rel=preload as=image>`:
        /// `candidate == alternatives[alternative].candidates.count` is the `src` (or `href`) fallback.
        case sourceSet(ImageSourceSet, alternative: Int, candidate: Int)
        /// An option of a CSS `image-set()`.
        case imageSet([ImageCandidate], option: Int)
    }

    /// One source of an `@font-face` rule's `src` (CSS Fonts Level 4 §4.3).
    public struct FontFaceSource: Sendable, Hashable {
        /// One entry of the `src` list.
        public struct Entry: Sendable, Hashable {
            /// Whether the entry is a `url()` (not `local()`).
            public var isURL: Bool
            /// The `format()` names in lower case.
            public var formats: [String]
            /// The `tech()` names in lower case.
            public var technologies: [String]

            /// Creates an entry.
            public init(isURL: Bool, formats: [String] = [], technologies: [String] = []) {
                self.isURL = isURL
                self.formats = formats
                self.technologies = technologies
            }
        }

        /// The face's `font-family`, in lower case; `nil` when the rule names none.
        public var family: String?
        /// Every entry of the rule's `src`, in order.
        public var entries: [Entry]
        /// The entry this reference is.
        public var entry: Int
        /// The rule's `unicode-range`: the face is used only for text with a character in it; `nil`
        /// when the rule has none, or an invalid one, so that it is used for every character.
        public var unicodeRange: UnicodeRange?

        /// Creates a font source.
        public init(family: String?, entries: [Entry], entry: Int, unicodeRange: UnicodeRange? = nil) {
            self.family = family
            self.entries = entries
            self.entry = entry
            self.unicodeRange = unicodeRange
        }
    }

    /// A `<link>` whose `rel` names an icon, with what a browser chooses an icon by.
    public struct IconLink: Sendable, Hashable {
        /// The `rel` keywords in lower case.
        public var relations: Set<String>
        /// The `type` attribute.
        public var type: String?
        /// The `sizes` attribute.
        public var sizes: String?
        /// The `media` attribute.
        public var media: String?

        /// Creates an icon link.
        public init(relations: Set<String>, type: String? = nil, sizes: String? = nil, media: String? = nil) {
            self.relations = relations
            self.type = type
            self.sizes = sizes
            self.media = media
        }

        /// Whether it is a `rel=icon` (or `shortcut icon`) link, as opposed to `apple-touch-icon`,
        /// `mask-icon` and the like, which browsers other than Safari do not fetch.
        public var isBrowserIcon: Bool { relations.contains("icon") }
    }
}
