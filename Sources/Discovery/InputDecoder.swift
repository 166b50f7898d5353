/// Chooses a document's encoding from its first bytes, then decodes the stream with it.
///
/// The order is the one browsers use (HTML §13.2.3.1, CSS Syntax §3.2): a byte order mark wins,
/// then the caller's transport label (the `charset` of `Content-Type`), then the document's own
/// declaration — `<meta charset>` or `http-equiv` in the first 1024 bytes of HTML, `@charset` at
/// the very start of CSS — and finally the fallback. Bytes are held back only until that choice is
/// made: at most 1024 bytes.
///
/// An HTML document's fallback is tentative: a `<meta>` that the tokenizer finds later changes the
/// encoding of the bytes after it (``changeEncoding(to:)``).
struct InputDecoder: Sendable {
    /// How a document declares its own encoding.
    enum Declaration: Sendable {
        case htmlMeta
        case cssCharsetRule
    }

    /// How many bytes the HTML prescan reads, per HTML §13.2.3.2.
    static let prescanLength = 1024

    private let declaration: Declaration
    private let transportEncoding: TextEncoding?
    private let fallback: TextEncoding
    private var decoder: TextDecoder?
    private var pending: [UInt8] = []
    /// Whether the encoding is an HTML document's fallback, which a late `<meta>` may change.
    private(set) var isTentative = false

    init(declaration: Declaration, transportLabel: String?, fallback: TextEncoding) {
        self.declaration = declaration
        self.transportEncoding = transportLabel.flatMap(TextEncoding.init(label:))
        self.fallback = fallback
    }

    /// The encoding in use, once it has been chosen.
    var encoding: TextEncoding? { decoder?.encoding }

    /// How many more bytes the choice of an HTML document's encoding may read, while it has not
    /// been made and rests on the prescan: the caller feeds no more at once, so that what follows
    /// the prescanned bytes is decoded apart from them, a tentative encoding's late `<meta>` in view.
    var undecidedLength: Int? {
        guard decoder == nil, transportEncoding == nil, declaration == .htmlMeta else { return nil }
        return max(1, Self.prescanLength - pending.count)
    }

    /// HTML's "change the encoding" (§13.2.3.5), for a `<meta>` naming `declared` that the
    /// tokenizer found while the encoding is tentative: the bytes after it are decoded in
    /// `declared` (UTF-8 for a UTF-16 label), and the encoding is certain from then on. The bytes
    /// before stay as they were decoded: a browser would parse the document again from the start.
    mutating func changeEncoding(to declared: TextEncoding) {
        guard isTentative, let current = decoder?.encoding else { return }
        isTentative = false
        let encoding = declared == .utf16LittleEndian || declared == .utf16BigEndian ? .utf8 : declared
        if encoding != current { decoder = TextDecoder(encoding: encoding) }
    }

    // MARK: - Decoding

    /// Decodes `bytes` to UTF-8 (possibly nothing until the encoding is known).
    ///
    /// - Returns: Where in `bytes` the UTF-8 to use as it is starts (a UTF-8 document whose
    ///   encoding is chosen, after any byte order mark: nothing is copied); `nil` when the UTF-8
    ///   was appended to `output`.
    mutating func decode(_ bytes: UnsafeBufferPointer<UInt8>, into output: inout [UInt8]) -> Int? {
        if decoder != nil {
            if decoder!.encoding == .utf8 { return 0 }
            decoder!.decode(bytes, into: &output)
            return nil
        }
        // Nothing held back: the choice is made from the bytes detection reads, and a UTF-8
        // document's first bytes are used where they are, as the later ones are.
        if pending.isEmpty, let choice = detect(in: Array(bytes.prefix(Self.prescanLength)), isFinal: false),
            choice.encoding == .utf8
        {
            decoder = TextDecoder(encoding: choice.encoding)
            isTentative = choice.isTentative
            return choice.bomLength
        }
        pending.append(contentsOf: bytes)
        if let choice = detect(in: pending, isFinal: false) {
            start(choice, into: &output)
        }
        return nil
    }

    /// Ends the stream, decoding any bytes still held back.
    mutating func finish(into output: inout [UInt8]) {
        if decoder == nil {
            start(detect(in: pending, isFinal: true) ?? Choice(encoding: fallback), into: &output)
        }
        decoder!.finish(into: &output)
    }

    private mutating func start(_ choice: Choice, into output: inout [UInt8]) {
        var decoder = TextDecoder(encoding: choice.encoding)
        let bytes = pending
        pending = []
        bytes[choice.bomLength...].withUnsafeBufferPointer { decoder.decode($0, into: &output) }
        self.decoder = decoder
        isTentative = choice.isTentative
    }

    // MARK: - Detection

    private static let boms: [([UInt8], TextEncoding)] = [
        ([0xEF, 0xBB, 0xBF], .utf8), ([0xFE, 0xFF], .utf16BigEndian), ([0xFF, 0xFE], .utf16LittleEndian),
    ]

    /// An encoding chosen, with the length of its byte order mark.
    private struct Choice {
        var encoding: TextEncoding
        var bomLength = 0
        /// Whether it is an HTML document's fallback.
        var isTentative = false
    }

    /// The encoding chosen from the first bytes of the document (`head`), or `nil` while more
    /// bytes are needed.
    private func detect(in head: [UInt8], isFinal: Bool) -> Choice? {
        for (bom, encoding) in Self.boms where head.starts(with: bom) {
            return Choice(encoding: encoding, bomLength: bom.count)
        }
        if !isFinal && head.count < 3 && Self.boms.contains(where: { $0.0.starts(with: head) }) {
            return nil
        }
        if let transportEncoding { return Choice(encoding: transportEncoding) }
        switch declaration {
        case .htmlMeta:
            if !isFinal && head.count < Self.prescanLength { return nil }
            let declared = HTMLEncodingPrescanner.encoding(in: head.prefix(Self.prescanLength))
            return Choice(encoding: declared ?? fallback, isTentative: declared == nil)
        case .cssCharsetRule:
            switch Self.charsetRule(in: head, isFinal: isFinal) {
            case .needMoreBytes: return nil
            case .found(let encoding): return Choice(encoding: encoding ?? fallback)
            }
        }
    }

    private enum CharsetRuleResult {
        case needMoreBytes
        case found(TextEncoding?)
    }

    /// Reads `@charset "label";`, which must be the exact first bytes of a stylesheet.
    private static func charsetRule(in bytes: [UInt8], isFinal: Bool) -> CharsetRuleResult {
        let prefix = Array("@charset \"".utf8)
        if bytes.count < prefix.count {
            return !isFinal && prefix.starts(with: bytes) ? .needMoreBytes : .found(nil)
        }
        guard bytes.starts(with: prefix) else { return .found(nil) }
        let window = bytes.prefix(prescanLength)
        var index = prefix.count
        while index + 1 < window.count {
            if window[index] == UInt8(ascii: "\"") {
                guard window[index + 1] == UInt8(ascii: ";") else { return .found(nil) }
                let label = String(decoding: window[prefix.count..<index], as: UTF8.self)
                let encoding = TextEncoding(label: label)
                // "If the return value was UTF-16BE/LE, use UTF-8" (CSS Syntax §3.2).
                if encoding == .utf16BigEndian || encoding == .utf16LittleEndian { return .found(.utf8) }
                return .found(encoding)
            }
            index += 1
        }
        return !isFinal && bytes.count < prescanLength ? .needMoreBytes : .found(nil)
    }
}
