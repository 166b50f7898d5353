import Testing

@testable import WebCache

@Suite struct ResourceScannerTests {
    @Test(arguments: [
        ("text/html; charset=utf-8", "text/html"),
        (" Text/CSS ", "text/css"),
        ("\tApplication/Manifest+JSON\t;profile=x", "application/manifest+json"),
        ("text/html;", "text/html"),
        (";charset=utf-8", ""),
        ("", ""),
        (" \t ", ""),
        ("T\u{E9}XT/html", "t\u{E9}xt/html"),
    ])
    func theMediaTypeIsWhatComesBeforeTheFirstSemicolonTrimmedInASCIILowerCase(value: String, expected: String) {
        #expect(ResourceScanner.mediaType(of: value) == expected)
    }
}
