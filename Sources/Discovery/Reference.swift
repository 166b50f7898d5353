import FoundationEssentials

/// A sub-resource or link found in an HTML page, a stylesheet or a web app manifest.
///
/// Each reference keeps what it points to (``url``, absolute and without fragment), what the
/// resource is for (``kind``), where it was written (``source``), and whether a browser that renders
/// the page fetches it (``isRequisite``). Navigation links are references that are not requisites:
/// a crawler follows them as pages of their own.
///
/// A reference keeps its URL as text (``urlString``), as the scanner resolved it: most callers
/// key, compare or store the text, and parsing a Foundation `URL` costs more than finding and
/// resolving the reference together. ``url`` parses it when asked.
public struct Reference: Sendable, Hashable, CustomStringConvertible {
    /// The absolute URL to fetch, with any fragment removed, as text: what `url.absoluteString` gives.
    public private(set) var urlString: String
    /// The absolute URL to fetch, with any fragment removed.
    ///
    /// Parsed from ``urlString`` on each use: a caller that needs it more than once keeps it.
    public var url: URL {
        get {
            guard let url = URL(string: urlString) else {
                preconditionFailure("A reference holds a URL that does not parse: \(urlString)")
            }
            return url
        }
        set { urlString = newValue.absoluteString }
    }
    /// What the resource is used for.
    public var kind: Kind
    /// The element and attribute, or the CSS construct, that holds the reference.
    public var source: Source
    /// Whether rendering the page fetches the resource (stylesheets, scripts, images, fonts, frames…).
    ///
    /// `false` for navigation links (``Kind/link``) and for scripts marked `nomodule`, which
    /// module-capable browsers skip.
    public var isRequisite: Bool
    /// What a browser's fetching it depends on (a `srcset` choice, a selector, `@media`…); `nil`
    /// when every browser that renders the page fetches it. ``ReferenceChooser`` decides from it.
    public var condition: Condition? {
        get {
            guard var condition = box?.condition else { return nil }
            if candidate >= 0, case .sourceSet(let set, let alternative, _)? = condition.image {
                condition.image = .sourceSet(set, alternative: alternative, candidate: candidate)
            }
            return condition
        }
        set {
            box = ConditionBox.boxing(consume newValue)
            candidate = -1
        }
    }
    /// ``condition``, boxed: a reference is copied several times on its way to the caller (into
    /// the scanner's list, the list handed out, a chooser's), and a condition has a dozen fields.
    private var box: ConditionBox?
    /// For a candidate of a source set, when the set's references share one box: which candidate
    /// it is (the box names the set's fallback, or a `<source>`'s count of candidates); -1 when the
    /// box's condition is the reference's own.
    private var candidate = -1
    /// Whether its element asks for it in CORS mode (a `crossorigin` attribute, a module script).
    var isCrossOriginRequest = false
    /// For a stylesheet a page references: the page's encoding, in which a stylesheet that declares
    /// none is decoded (CSS Syntax §3.2, the environment encoding); `nil` otherwise.
    public internal(set) var environmentEncoding: TextEncoding?

    /// Whether a browser fetches it in CORS mode, sending the page's `Origin` (Fetch §3.1): a font,
    /// a manifest, a module script, an element with `crossorigin`. An origin that answers CORS only
    /// when asked (`Access-Control-Allow-Origin` for the `Origin` sent, `Vary: Origin`) is to be
    /// asked so, or the browser refuses what was stored.
    public var fetchesInCORSMode: Bool { isCrossOriginRequest || kind == .font || kind == .manifest }

    /// Whether it is a document shown in a frame (`iframe src`, `frame src`), not a page the window
    /// goes to (a `<meta http-equiv=refresh>` target).
    public var isFrame: Bool { kind == .document && source.element != "meta" }

    /// The reference with `box` for its condition, still the candidate it is: the candidates of a
    /// `<picture>`'s `<source>` get their source set's box when the `<img>` completes the choice.
    func sharing(_ box: ConditionBox) -> Reference {
        var reference = self
        reference.box = box
        return reference
    }

    /// Whether both have the same URL text, kind, source, requisiteness and condition.
    public static func == (left: Reference, right: Reference) -> Bool {
        left.urlString == right.urlString && left.kind == right.kind && left.source == right.source
            && left.isRequisite == right.isRequisite && left.condition == right.condition
    }

    /// Hashes what ``==(_:_:)`` compares.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(urlString)
        hasher.combine(kind)
        hasher.combine(source)
        hasher.combine(isRequisite)
        hasher.combine(condition)
    }

    /// The kind, URL and source, as in `image https://example.com/a.png (<img> src)`.
    public var description: String {
        "\(kind.rawValue) \(urlString) (\(source)\(isRequisite ? "" : ", not a requisite"))"
    }
}

// MARK: - Making references

// The initializers are in an extension, so that the struct keeps its memberwise initializer, which
// they call: an initializer that sets each property itself made the optimizer build every new
// reference twice and copy one into place (a copy of four strings and a box, and the release of
// the other, for each of the HTML scanner's references: 4 % of a scan).
extension Reference {
    /// Creates a reference.
    public init(url: URL, kind: Kind, source: Source, isRequisite: Bool, condition: Condition? = nil) {
        self.init(urlString: url.absoluteString, kind: kind, source: source, isRequisite: isRequisite,
                  condition: condition)
    }

    /// Creates a reference to the URL whose absolute text is `urlString`, which must parse as a
    /// Foundation `URL` whose `absoluteString` is `urlString` itself.
    /// The condition is moved into its box, not copied: the scanners hand it over.
    init(urlString: String, kind: Kind, source: Source, isRequisite: Bool, condition: consuming Condition? = nil) {
        self.init(urlString: urlString, kind: kind, source: source, isRequisite: isRequisite,
                  box: ConditionBox.boxing(condition))
    }

    /// Creates a reference whose condition is already boxed, sharing the box; with a `candidate`
    /// (0 or more), the box holds (or, given later, will hold) a source set choice and the reference
    /// is that candidate of it.
    init(urlString: String, kind: Kind, source: Source, isRequisite: Bool, conditionBox: ConditionBox?,
         candidate: Int = -1) {
        self.init(urlString: urlString, kind: kind, source: source, isRequisite: isRequisite, box: conditionBox,
                  candidate: candidate)
    }
}

// MARK: - Kind

extension Reference {
    /// What a referenced resource is used for.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A stylesheet: `link rel=stylesheet`, `@import`, `link rel=preload as=style`.
        case stylesheet
        /// A classic or module script: `script src`, `link rel=modulepreload`.
        case script
        /// An image: `img`, `srcset`, `poster`, CSS `url()`, SVG `image`, lazy-loading attributes.
        case image
        /// A web font, from `@font-face` or `link rel=preload as=font`.
        case font
        /// A page icon: `link rel=icon`, `apple-touch-icon`, `mask-icon`, manifest icons.
        case icon
        /// A web app manifest: `link rel=manifest`.
        case manifest
        /// Audio, video or a text track: `audio`/`video`/`source`/`track src`. Reported only on request.
        case media
        /// Plug-in content: `object data`, `embed src`.
        case embed
        /// A nested document: `iframe src`, `frame src`; or the page a `<meta http-equiv=refresh>`
        /// goes to. A requisite with requisites of its own.
        case document
        /// A navigation link: `a href`, `area href`. Not a requisite.
        case link
        /// Anything else that is fetched, such as `link rel=preload as=fetch`.
        case other

        /// Whether a resource of this kind leads to more requisites (a stylesheet, a frame, a
        /// manifest): what a page needs through it is found only by reading it.
        public var leadsToRequisites: Bool {
            self == .stylesheet || self == .document || self == .manifest
        }
    }
}

// MARK: - Source

extension Reference {
    /// Where a reference was written, for reports.
    ///
    /// `img srcset` has an element and an attribute; a `url()` in a `style` attribute has both and
    /// a CSS construct; an `@import` in a stylesheet file has only the construct; a manifest icon has
    /// the manifest member.
    public struct Source: Sendable, Hashable, CustomStringConvertible {
        /// The element's local name in lower case, such as `img` or `feimage`.
        public var element: String?
        /// The attribute's name in lower case, such as `srcset` or `xlink:href`.
        public var attribute: String?
        /// The CSS construct, for references found in CSS.
        public var css: CSSConstruct?
        /// The manifest member, such as `icons`, for references found in a web app manifest.
        public var manifestMember: String?

        /// Creates a source description.
        public init(
            element: String? = nil,
            attribute: String? = nil,
            css: CSSConstruct? = nil,
            manifestMember: String? = nil
        ) {
            self.element = element
            self.attribute = attribute
            self.css = css
            self.manifestMember = manifestMember
        }

        /// The element, attribute and construct, as in `<div> style url()`.
        public var description: String {
            var parts: [String] = []
            if let element { parts.append("<\(element)>") }
            if let attribute { parts.append(attribute) }
            if let css { parts.append(css.rawValue) }
            if let manifestMember { parts.append("manifest \(manifestMember)") }
            return parts.joined(separator: " ")
        }
    }

    /// The CSS construct that holds a reference.
    public enum CSSConstruct: String, Sendable, Hashable, CaseIterable {
        /// `@import "x.css"` or `@import url(x.css)`.
        case importRule = "@import"
        /// Any `url()` outside `@font-face` and `image-set()`.
        case url = "url()"
        /// A string or `url()` inside `image-set()` or `-webkit-image-set()`.
        case imageSet = "image-set()"
        /// A `url()` inside an `@font-face` rule, usually its `src` descriptor.
        case fontFace = "@font-face"
    }
}

/// A reference's condition, shared by the copies of the reference (and of the CSS tokenizer's
/// ``CSSTokenizer/Found`` it was made from).
final class ConditionBox: Sendable {
    let condition: Reference.Condition

    init(_ condition: consuming Reference.Condition) {
        self.condition = consume condition
    }

    /// `condition` moved into a box, not copied; `nil` for none.
    static func boxing(_ condition: consuming Reference.Condition?) -> ConditionBox? {
        switch consume condition {
        case .some(let condition): ConditionBox(condition)
        case .none: nil
        }
    }
}
