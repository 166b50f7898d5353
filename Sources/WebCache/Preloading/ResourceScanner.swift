import Discovery
import FoundationEssentials
import HTTPCore

/// Finds the references in a response body as it streams: HTML pages, stylesheets and web app manifests.
///
/// The HTML and CSS scanners are held by reference (``Held``): each is kilobytes of state, which an
/// enum holding it by value copied out and back at every chunk fed, and kept in several copies in
/// the frame of the preload's scan of every response (23 KB, allocated for each response).
enum ResourceScanner {
    case html(Held<HTMLScanner>)
    case css(Held<CSSScanner>)
    case manifest(url: URL, collected: Data)
    /// A document or stylesheet scanned to its end: an HTML document's elements and last
    /// `<meta name=viewport>`, and the font families it names and a stylesheet's characters
    /// (``CSSScanner/textCharacters``).
    case ended(
        DocumentTree?, fontFamilies: Set<FontFamilyUse>, characters: TextCharacters, viewport: ViewportDeclaration?)
    case none

    /// A scanner held by reference, changed in place. Confined to the task that scans one
    /// response, as the enum holding it is.
    final class Held<Value> {
        var value: Value

        init(_ value: Value) {
            self.value = value
        }
    }

    /// The largest manifest read; manifests are small JSON documents.
    static let maximumManifestSize = 1 << 20

    /// The scanner for a response to `item`. A listed page is scanned as the type its response says it
    /// is (a stylesheet listed in a URL file is still a stylesheet); a requisite by what referenced it,
    /// unless its response says it is a stylesheet or a manifest.
    init(for item: PreloadItem, url: URL, headers: HTTPHeaders, includesMedia: Bool) {
        let contentType = headers["Content-Type"] ?? ""
        let charset = ResourceScanner.charset(in: contentType)
        switch ResourceScanner.format(of: item.kind, contentType: contentType) {
        case .html?:
            var options = HTMLScanner.Options()
            options.includesMedia = includesMedia
            // What a page shows without scripts is part of it too, as `wget2 --page-requisites` finds it.
            options.scansNoscript = true
            self = .html(Held(HTMLScanner(documentURL: url, charset: charset, options: options)))
        case .css?:
            self = .css(Held(CSSScanner(stylesheetURL: url, charset: charset,
                                        environmentEncoding: item.environmentEncoding ?? .utf8)))
        case .manifest?:
            self = .manifest(url: url, collected: Data())
        case nil:
            self = .none
        }
    }

    /// Whether a response to `item` with `contentType` is read for references (when the run looks for any).
    static func scans(_ item: PreloadItem, contentType: String) -> Bool {
        format(of: item.kind, contentType: contentType) != nil
    }

    /// Whether a response to a requisite of `kind` with `contentType` is read for references.
    static func scans(_ kind: Reference.Kind, contentType: String) -> Bool {
        format(of: kind, contentType: contentType) != nil
    }

    /// What a body is scanned as.
    private enum Format {
        case html, css, manifest
    }

    /// The format a response to an item of `kind` (`nil` for a page) with `contentType` is scanned
    /// as, `nil` when it is not scanned.
    private static func format(of kind: Reference.Kind?, contentType: String) -> Format? {
        let mediaType = Self.mediaType(of: contentType)
        let isHTML = mediaType == .html
        if (kind == nil || kind == .document) && (isHTML || mediaType == .missing) {
            return .html
        } else if (kind == .document || kind == .embed) && mediaType == .svg {
            // An SVG document (in an `<object>`, `<embed>` or `<iframe>`, not an `<img>`, which loads
            // nothing more) loads its images, stylesheets and fonts: its markup is read as an HTML
            // page's `<svg>` is.
            return .html
        } else if kind == .document {
            return nil
        } else if mediaType == .css || (kind == .stylesheet && !isHTML) {
            return .css
        } else if mediaType == .manifest || (kind == .manifest && !isHTML) {
            return .manifest
        }
        return nil
    }

    /// The media types that decide how a response is scanned.
    enum MediaType {
        /// No media type: an empty `Content-Type`, or none.
        case missing
        /// `text/html` or `application/xhtml+xml`.
        case html
        /// `text/css`.
        case css
        /// `application/manifest+json`.
        case manifest
        /// `image/svg+xml`.
        case svg
        /// Any other.
        case other
    }

    /// The media type of a `Content-Type` value: what comes before its first `;`, without the spaces
    /// and tabs around it, compared without ASCII case (RFC 9110 §8.3.1: type and subtype are
    /// case-insensitive). Read in place: every response a run reads and every edge a page's record
    /// settles asks, and making a lower-case string of it cost 1,250 instructions each time.
    static func mediaType(of contentType: String) -> MediaType {
        var contentType = contentType
        return contentType.withUTF8 { bytes in
            var start = 0
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            func isSpace(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
            while start < end, isSpace(bytes[start]) { start += 1 }
            while end > start, isSpace(bytes[end - 1]) { end -= 1 }
            let value = UnsafeBufferPointer(rebasing: bytes[start..<end])
            func named(_ name: StaticString) -> Bool {
                asciiCaseInsensitiveEquals(value, UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
            }
            if value.isEmpty { return .missing }
            if named("text/html") || named("application/xhtml+xml") { return .html }
            if named("text/css") { return .css }
            if named("application/manifest+json") { return .manifest }
            if named("image/svg+xml") { return .svg }
            return .other
        }
    }

    /// Feeds one chunk; returns the references it completed.
    mutating func feed(_ chunk: Data) -> [Reference] {
        switch self {
        case .html(let held):
            return held.value.feed(chunk)
        case .css(let held):
            return held.value.feed(chunk)
        case .manifest(let url, var collected):
            if collected.count + chunk.count <= ResourceScanner.maximumManifestSize {
                collected.append(chunk)
            }
            self = .manifest(url: url, collected: collected)
            return []
        case .ended, .none:
            return []
        }
    }

    /// The font families the document or stylesheet names so far, in lower case.
    var usedFontFamilies: Set<FontFamilyUse> {
        switch self {
        case .html(let held): held.value.usedFontFamilies
        case .css(let held): held.value.usedFontFamilies
        case .ended(_, let families, _, _): families
        case .manifest, .none: []
        }
    }

    /// A document's last `<meta name=viewport>` so far.
    var viewport: ViewportDeclaration? {
        switch self {
        case .html(let held): held.value.viewport
        case .ended(_, _, _, let viewport): viewport
        case .css, .manifest, .none: nil
        }
    }

    /// The characters a stylesheet's `content` and list styles may show so far; a document's are
    /// in its tree.
    var textCharacters: TextCharacters {
        switch self {
        case .css(let held): held.value.textCharacters
        case .ended(_, _, let characters, _): characters
        case .html, .manifest, .none: TextCharacters()
        }
    }

    /// Whether it reads the body it is fed (HTML, CSS, a manifest).
    var scans: Bool {
        switch self {
        case .html, .css, .manifest: true
        case .ended, .none: false
        }
    }

    /// Whether it scans an HTML document (a page or frame), whose elements decide its style rules.
    var isDocument: Bool {
        switch self {
        case .html: true
        case .ended(let tree, _, _, _): tree != nil
        case .css, .manifest, .none: false
        }
    }

    /// The elements of an HTML document once it is scanned to its end.
    var documentTree: DocumentTree? {
        if case .ended(let tree?, _, _, _) = self { return tree }
        return nil
    }

    /// Ends the body; returns the last references.
    /// - Throws: ``DiscoveryError`` when a manifest is not valid JSON.
    mutating func finish() throws -> [Reference] {
        switch self {
        case .html(let held):
            let found = held.value.finish()
            self = .ended(held.value.documentTree, fontFamilies: held.value.usedFontFamilies,
                          characters: TextCharacters(), viewport: held.value.viewport)
            return found
        case .css(let held):
            let found = held.value.finish()
            self = .ended(nil, fontFamilies: held.value.usedFontFamilies, characters: held.value.textCharacters,
                          viewport: nil)
            return found
        case .manifest(let url, let collected):
            self = .none
            return try ManifestScanner.icons(in: collected, manifestURL: url)
        case .ended, .none:
            return []
        }
    }

    /// The `charset` parameter of a `Content-Type` value, if any.
    static func charset(in contentType: String) -> String? {
        for parameter in contentType.split(separator: ";").dropFirst() {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingHTTPWhitespace().lowercased() == "charset" else { continue }
            return parts[1].trimmingHTTPWhitespace().trimmingScalars(in: "\"'")
        }
        return nil
    }
}
