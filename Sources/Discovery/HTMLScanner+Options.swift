extension HTMLScanner {
    /// What an ``HTMLScanner`` reports and how it reads a document that declares no encoding.
    public struct Options: Sendable, Hashable {
        /// Report `audio`, `video`, `source` (in audio and video) and `track` sources as
        /// ``Reference/Kind/media``. Off by default: media are large and often streamed.
        public var includesMedia: Bool
        /// Report `a href` and `area href` as ``Reference/Kind/link`` (not requisites), for crawling.
        public var includesLinks: Bool
        /// Report `iframe src` and `frame src` as ``Reference/Kind/document`` requisites.
        public var includesFrames: Bool
        /// Report lazy-loading attributes: `data-src`, `data-srcset`, `data-lazy-src`,
        /// `data-original` and `data-bg`, on any element.
        public var includesLazyLoadingHints: Bool
        /// Tokenize `<noscript>` content as markup and report what it holds, as `wget2` does.
        /// Off by default: browsers with scripting on treat it as raw text and fetch nothing in it.
        public var scansNoscript: Bool
        /// The encoding of a document with no byte order mark, no transport label and no `<meta>`
        /// in its first 1024 bytes; windows-1252 by default, as in browsers. A later `<meta>`
        /// changes it for the rest of the document.
        public var fallbackEncoding: TextEncoding

        /// Creates options; the defaults report requisites, frames, links and lazy-loading hints.
        public init(
            includesMedia: Bool = false,
            includesLinks: Bool = true,
            includesFrames: Bool = true,
            includesLazyLoadingHints: Bool = true,
            scansNoscript: Bool = false,
            fallbackEncoding: TextEncoding = .windows1252
        ) {
            self.includesMedia = includesMedia
            self.includesLinks = includesLinks
            self.includesFrames = includesFrames
            self.includesLazyLoadingHints = includesLazyLoadingHints
            self.scansNoscript = scansNoscript
            self.fallbackEncoding = fallbackEncoding
        }
    }
}
