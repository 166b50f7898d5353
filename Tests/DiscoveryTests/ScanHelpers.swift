import Foundation
import Testing

@testable import Discovery

/// The page URL most tests scan as.
let pageURL = URL(string: "https://example.com/dir/page.html")!

/// Scans `html` in one chunk and renders each reference as `kind url`, with `(link)` for non-requisites.
func scan(_ html: String, options: HTMLScanner.Options = .init(), charset: String? = nil) -> [String] {
    render(scanReferences(Array(html.utf8), options: options, charset: charset))
}

/// Scans `bytes` split into the given chunk lengths (the rest in a last chunk).
func scanReferences(
    _ bytes: [UInt8],
    chunks: [Int] = [],
    options: HTMLScanner.Options = .init(),
    charset: String? = nil,
    url: URL = pageURL
) -> [Reference] {
    var scanner = HTMLScanner(documentURL: url, charset: charset, options: options)
    var found: [Reference] = []
    var offset = 0
    for length in chunks {
        let end = min(offset + length, bytes.count)
        found += scanner.feed(bytes[offset..<end])
        offset = end
    }
    found += scanner.feed(bytes[offset...])
    found += scanner.finish()
    return found
}

/// Scans `bytes` one byte per `feed` call.
func scanByteByByte(_ bytes: [UInt8], charset: String? = nil, url: URL = pageURL) -> [Reference] {
    var scanner = HTMLScanner(documentURL: url, charset: charset)
    var found: [Reference] = []
    for byte in bytes { found += scanner.feed([byte]) }
    return found + scanner.finish()
}

func render(_ references: [Reference]) -> [String] {
    references.map { "\($0.kind.rawValue) \($0.url.absoluteString)\($0.isRequisite ? "" : " (not requisite)")" }
}

/// Loads a fixture file's bytes.
func fixture(_ name: String) throws -> [UInt8] {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
    return Array(try Data(contentsOf: url))
}
