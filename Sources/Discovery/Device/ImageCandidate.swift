/// One image candidate of a `srcset`, `imagesrcset` or `image-set()`: a URL as written and what it
/// says of itself (HTML §4.8.4.3 "Image candidate strings").
public struct ImageCandidate: Sendable, Hashable {
    /// What a candidate says of itself.
    public enum Descriptor: Sendable, Hashable {
        /// No descriptor: 1x.
        case none
        /// `2x`: the image's pixel density.
        case density(Double)
        /// `800w`: the image's width in pixels, from which the density follows by the source size.
        case width(Int)
    }

    /// The URL as written, still relative.
    public var url: String
    /// Its descriptor.
    public var descriptor: Descriptor
    /// The MIME type an `image-set()` option names with `type()`, if any.
    public var type: String?

    /// Creates a candidate.
    public init(url: String, descriptor: Descriptor, type: String? = nil) {
        self.url = url
        self.descriptor = descriptor
        self.type = type
    }
}

/// The places an image can come from when a browser chooses one for its device: the `<source>`
/// elements of a `<picture>` and its `<img>`, an `<img>` alone, a `<link rel=preload as=image>`,
/// or an `image-set()`.
///
/// The scanner reports every candidate of the set as a ``Reference`` that carries the whole set
/// (``Reference/Condition/imageCandidate(_:alternative:candidate:)``), so that a chooser can pick
/// one without the markup.
public struct ImageSourceSet: Sendable, Hashable {
    /// One element that offers candidates: a `<source>`, or the `<img>` (or preload link) last.
    public struct Alternative: Sendable, Hashable {
        /// The `media` attribute: a `<source>` (or preload) counts only when it matches.
        public var media: String?
        /// The `type` attribute: a `<source>` counts only when the device decodes it.
        public var type: String?
        /// The `srcset` (or `imagesrcset`) candidates.
        public var candidates: [ImageCandidate]
        /// The `sizes` (or `imagesizes`) attribute.
        public var sizes: String?
        /// The `src` (or `href`) attribute, the 1x fallback of an `<img>`.
        public var fallback: String?

        /// Creates an alternative.
        public init(
            media: String? = nil, type: String? = nil, candidates: [ImageCandidate], sizes: String? = nil,
            fallback: String? = nil
        ) {
            self.media = media
            self.type = type
            self.candidates = candidates
            self.sizes = sizes
            self.fallback = fallback
        }
    }

    /// The alternatives in document order.
    public var alternatives: [Alternative]

    /// Creates a set.
    public init(alternatives: [Alternative]) {
        self.alternatives = alternatives
    }
}
