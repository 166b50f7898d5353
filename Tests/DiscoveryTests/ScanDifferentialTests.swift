import Foundation
import Testing
import WebCacheTestSupport

@testable import Discovery

/// The scanners must give what they gave before their byte-level rewrite: every document of
/// ``ScanCorpus`` is scanned and the full result — references with their conditions, the
/// document tree, the font families, the encoding and base — is compared, as a hash, with
/// `Fixtures/scan-golden.txt`, written by the scalar-based scanners of commit ff30b3b (the lines of
/// the `names-` stylesheets by those of commit ac4ed07, before the CSS tokenizer passed over the
/// names of the normal state in one run with the bytes around them). Then each
/// document is fed in random chunks and one byte at a time, which must give the same result.
///
/// After a deliberate change of behaviour, rewrite the file with
/// `WEBCACHE_WRITE_SCAN_GOLDEN=1 swift test --skip-build --filter ScanDifferentialTests`.
@Suite struct ScanDifferentialTests {
    private static let goldenName = "scan-golden.txt"

    @Test func resultsMatchThoseOfTheScalarScanners() throws {
        let results = try Self.htmlDocuments().map { ($0.name, Self.scanHTML($0, chunks: nil)) }
            + Self.cssDocuments().map { ($0.name, Self.scanCSS($0, chunks: nil)) }
        let lines = results.map { "\($0.0)\t\(Self.hash($0.1))" }
        if ProcessInfo.processInfo.environment["WEBCACHE_WRITE_SCAN_GOLDEN"] != nil {
            let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
            try Data((lines.joined(separator: "\n") + "\n").utf8).write(to: folder.appendingPathComponent(Self.goldenName))
            return
        }
        let golden = String(decoding: try fixture(Self.goldenName), as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(golden.count == lines.count)
        for (index, line) in lines.enumerated() where index >= golden.count || golden[index] != line {
            Issue.record("\(results[index].0) differs from the scalar scanners (\(line)); it now gives:\n\(results[index].1)")
        }
    }

    @Test func htmlInRandomChunksGivesTheWholeResult() async throws {
        try await offThePool {
            var random = SeededGenerator(seed: 99)
            for (number, document) in try Self.htmlDocuments().enumerated() {
                let whole = Self.scanHTML(document, chunks: nil)
                let sizes = Self.chunkSizes(document.bytes.count, &random, oneByOne: number < 40)
                let parts = Self.scanHTML(document, chunks: sizes)
                #expect(parts == whole, "\(document.name) in chunks \(sizes.prefix(20))…")
            }
        }
    }

    @Test func cssInRandomChunksGivesTheWholeResult() throws {
        var random = SeededGenerator(seed: 98)
        for (number, document) in try Self.cssDocuments().enumerated() {
            let whole = Self.scanCSS(document, chunks: nil)
            // The stylesheets of names byte by byte too: a name may end a piece, before its `(`.
            let oneByOne = number < 30 || document.name.hasPrefix("names-")
            let sizes = Self.chunkSizes(document.bytes.count, &random, oneByOne: oneByOne)
            #expect(Self.scanCSS(document, chunks: sizes) == whole, "\(document.name) in chunks \(sizes.prefix(20))…")
        }
    }

    // MARK: - Scanning and rendering

    static func htmlDocuments() throws -> [ScanCorpus.Document] { try ScanCorpus.htmlDocuments() }

    static func cssDocuments() throws -> [ScanCorpus.Document] { try ScanCorpus.cssDocuments() }

    private static let cssURL = URL(string: "https://cdn.example.com/css/site.css")!

    /// Chunk lengths covering `count` bytes: one byte each, or a random mix of tiny and large.
    private static func chunkSizes(_ count: Int, _ random: inout SeededGenerator, oneByOne: Bool) -> [Int] {
        if oneByOne { return Array(repeating: 1, count: count) }
        var sizes: [Int] = []
        var total = 0
        while total < count {
            let size = random.below(3) == 0 ? random.below(4) + 1 : random.below(700) + 1
            sizes.append(size)
            total += size
        }
        return sizes
    }

    /// Everything the HTML scanner reports about `document`, fed whole or in `chunks`.
    static func scanHTML(_ document: ScanCorpus.Document, chunks: [Int]?) -> String {
        let options = HTMLScanner.Options(includesMedia: true)
        var scanner = HTMLScanner(documentURL: pageURL, charset: document.charset, options: options)
        let references = feed(document.bytes, in: chunks) { scanner.feed($0) } + scanner.finish()
        return [
            "encoding \(canonical(scanner.encoding as Any)) base \(scanner.baseURL.absoluteString)",
            "references " + canonical(references),
            "tree " + canonical(scanner.documentTree.elements) + " truncated \(scanner.documentTree.isTruncated)",
            "fonts " + canonical(scanner.usedFontFamilies),
        ].joined(separator: "\n")
    }

    /// Everything the CSS scanner reports about `document`, fed whole or in `chunks`.
    static func scanCSS(_ document: ScanCorpus.Document, chunks: [Int]?) -> String {
        var scanner = CSSScanner(stylesheetURL: cssURL, charset: document.charset)
        let references = feed(document.bytes, in: chunks) { scanner.feed($0) } + scanner.finish()
        return [
            "encoding \(canonical(scanner.encoding as Any))",
            "references " + canonical(references),
            "fonts " + canonical(scanner.usedFontFamilies),
        ].joined(separator: "\n")
    }

    /// What `scan` returns for `bytes`, given whole or cut into `chunks`.
    private static func feed(_ bytes: [UInt8], in chunks: [Int]?, to scan: (ArraySlice<UInt8>) -> [Reference])
        -> [Reference]
    {
        var references: [Reference] = []
        var offset = 0
        for length in chunks ?? [bytes.count] {
            let end = min(offset + length, bytes.count)
            references += scan(bytes[offset..<end])
            offset = end
        }
        return references
    }

    /// A rendering of `value` that is the same in every process: sets and dictionaries are sorted.
    static func canonical(_ value: Any) -> String {
        if let string = value as? String { return String(reflecting: string) }
        if let url = value as? URL { return url.absoluteString }
        if let use = value as? FontFamilyUse {
            // Without the selector's hash, which is seeded anew in each process.
            return "(family: \(canonical(use.family)), selector: \(canonical(use.selector as Any)))"
        }
        if let reference = value as? Reference {
            // Rendered as when it stored its `URL`, which its text must parse back to.
            let fields: [(String, Any)] = [
                ("url", reference.url), ("kind", reference.kind), ("source", reference.source),
                ("isRequisite", reference.isRequisite), ("condition", reference.condition as Any),
            ]
            return "(" + fields.map { "\($0.0): \(canonical($0.1))" }.joined(separator: ", ") + ")"
        }
        if let condition = value as? Reference.Condition, condition.unmetSupportsCondition == nil {
            // Rendered as before it had the field, which only an `@supports` Chromium does not meet sets.
            let fields = Mirror(reflecting: condition).children.filter { $0.label != "unmetSupportsCondition" }
            return "(" + fields.map { "\($0.label ?? ""): \(canonical($0.value))" }.joined(separator: ", ") + ")"
        }
        if let face = value as? Reference.FontFaceSource, face.unicodeRange == nil {
            // Rendered as before it had the field, which only an `@font-face` with a valid `unicode-range` sets.
            let fields = Mirror(reflecting: face).children.filter { $0.label != "unicodeRange" }
            return "(" + fields.map { "\($0.label ?? ""): \(canonical($0.value))" }.joined(separator: ", ") + ")"
        }
        if let element = value as? DocumentTree.Element {
            // Rendered as when it stored its attributes in a dictionary.
            let fields: [(String, Any)] = [
                ("name", element.name), ("id", element.id as Any), ("classes", element.classes),
                ("attributes", element.attributes), ("parent", element.parent as Any), ("children", element.children),
                ("position", element.position),
            ]
            return "(" + fields.map { "\($0.0): \(canonical($0.1))" }.joined(separator: ", ") + ")"
        }
        let mirror = Mirror(reflecting: value)
        let children = mirror.children.map { ($0.label, canonical($0.value)) }
        switch mirror.displayStyle {
        case .optional:
            return children.first?.1 ?? "nil"
        case .set, .dictionary:
            return "{" + children.map(\.1).sorted().joined(separator: ", ") + "}"
        case .collection:
            return "[" + children.map(\.1).joined(separator: ", ") + "]"
        case .enum where !children.isEmpty:
            return children.map { "\($0.0 ?? "")(\($0.1))" }.joined()
        case .struct, .class, .tuple:
            return "(" + children.map { "\($0.0 ?? ""): \($0.1)" }.joined(separator: ", ") + ")"
        default:
            return String(describing: value)
        }
    }

    /// FNV-1a, 64 bits, as hex.
    private static func hash(_ text: String) -> String {
        var value: UInt64 = 0xCBF2_9CE4_8422_2325
        for byte in text.utf8 {
            value ^= UInt64(byte)
            value = value &* 0x100_0000_01B3
        }
        return String(value, radix: 16)
    }
}
