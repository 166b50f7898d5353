import Testing

@testable import WebCache

@Suite struct ResourceScannerTests {
    @Test(arguments: [
        ("text/html; charset=utf-8", ResourceScanner.MediaType.html),
        (" Text/CSS ", .css),
        ("\tApplication/Manifest+JSON\t;profile=x", .manifest),
        ("APPLICATION/XHTML+XML", .html),
        ("text/html;", .html),
        ("text/htmlx", .other),
        ("text/ html", .other),
        ("image/png", .other),
        (";charset=utf-8", .missing),
        ("", .missing),
        (" \t ", .missing),
        ("T\u{E9}XT/html", .other),
    ])
    func theMediaTypeIsWhatComesBeforeTheFirstSemicolonTrimmedWithoutASCIICase(
        value: String, expected: ResourceScanner.MediaType
    ) {
        #expect(ResourceScanner.mediaType(of: value) == expected)
    }
}
