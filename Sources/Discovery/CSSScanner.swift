import FoundationEssentials

/// A streaming scanner for stylesheets: feed it a CSS file's bytes as they arrive and it returns
/// `@import`, `url()`, `image-set()` and `@font-face` references as soon as each is complete.
///
/// ```swift
/// var scanner = CSSScanner(stylesheetURL: cssURL, charset: response.charset)
/// let found = scanner.feed(chunk) + scanner.finish()
/// ```
///
/// References resolve against the stylesheet's own URL. The encoding is chosen as browsers do: a
/// byte order mark, then `charset` (the transport's label), then an `@charset "…";` rule at the very
/// start, then UTF-8. Tokens longer than 64 Ki characters are dropped, so memory stays bounded
/// whatever the file's size.
public struct CSSScanner: Sendable {
    /// The URL of the stylesheet, which its references are relative to.
    public let stylesheetURL: URL
    /// The encoding chosen for the stylesheet, once enough bytes have been seen.
    public var encoding: TextEncoding? { input.encoding }
    /// Font families that the stylesheet's rules name so far (`font-family`, `font`, custom
    /// properties), in lower case: the `@font-face` rules a page needs.
    public var usedFontFamilies: Set<FontFamilyUse> { tokenizer.context.usedFontFamilies }
    /// The characters that the stylesheet's `content`, `quotes` and list styles may show so far:
    /// text of the page for `@font-face` `unicode-range`.
    public var textCharacters: TextCharacters { tokenizer.context.textCharacters }

    private let base: URLCleaner.Base
    private var input: InputDecoder
    private var tokenizer = CSSTokenizer()
    /// The UTF-8 of a stylesheet in another encoding, a slice at a time.
    private var decoded: [UInt8] = []
    private var isFinished = false

    /// Creates a scanner for one stylesheet.
    ///
    /// - Parameters:
    ///   - stylesheetURL: The URL the stylesheet was fetched from, after redirects.
    ///   - charset: The `charset` parameter of the response's `Content-Type`, if any.
    /// - Parameter environmentEncoding: the encoding of the document that references the
    ///   stylesheet, in which a stylesheet that declares none is decoded (CSS Syntax §3.2).
    public init(stylesheetURL: URL, charset: String? = nil, environmentEncoding: TextEncoding = .utf8) {
        self.stylesheetURL = stylesheetURL
        self.base = URLCleaner.Base(stylesheetURL)
        self.input = InputDecoder(declaration: .cssCharsetRule, transportLabel: charset, fallback: environmentEncoding)
    }

    /// Scans the next bytes of the stylesheet.
    ///
    /// - Parameter chunk: Bytes in order; chunks may split anything, even a character.
    /// - Returns: The references completed by these bytes, in order.
    public mutating func feed(_ chunk: some Collection<UInt8>) -> [Reference] {
        precondition(!isFinished, "CSSScanner.feed(_:) was called after finish().")
        let handled: Void? = chunk.withContiguousStorageIfAvailable { feedBytes($0) }
        if handled == nil {
            Array(chunk).withUnsafeBufferPointer { feedBytes($0) }
        }
        return takeReferences()
    }

    /// Ends the stylesheet and returns the references completed by its end (an unclosed `url(`).
    public mutating func finish() -> [Reference] {
        precondition(!isFinished, "CSSScanner.finish() was called twice.")
        isFinished = true
        decoded.removeAll(keepingCapacity: true)
        input.finish(into: &decoded)
        consumeDecoded()
        tokenizer.finish()
        return takeReferences()
    }

    /// Scans a whole stylesheet held in memory.
    ///
    /// - Returns: Every reference in the stylesheet, in order.
    public static func references(in data: some Collection<UInt8>, stylesheetURL: URL, charset: String? = nil)
        -> [Reference]
    {
        var scanner = CSSScanner(stylesheetURL: stylesheetURL, charset: charset)
        return scanner.feed(data) + scanner.finish()
    }

    private mutating func feedBytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        var offset = 0
        while offset < bytes.count {
            let end = min(offset + HTMLScanner.sliceLength, bytes.count)
            let slice = UnsafeBufferPointer(rebasing: bytes[offset..<end])
            decoded.removeAll(keepingCapacity: true)
            if let start = input.decode(slice, into: &decoded) {
                tokenizer.consume(UnsafeBufferPointer(rebasing: slice[start...]))
            } else {
                consumeDecoded()
            }
            offset = end
        }
    }

    /// Tokenizes what ``decoded`` holds.
    private mutating func consumeDecoded() {
        let bytes = decoded
        bytes.withUnsafeBufferPointer { tokenizer.consume($0) }
    }

    private mutating func takeReferences() -> [Reference] {
        defer { tokenizer.found.removeAll(keepingCapacity: true) }
        return tokenizer.found.compactMap { item in
            URLCleaner.resolve(item.value, against: base).map {
                Reference(urlString: $0, kind: item.kind, source: Reference.Source(css: item.construct), isRequisite: true,
                          conditionBox: item.conditionBox)
            }
        }
    }
}
