import Testing

@testable import Discovery

@Suite struct SrcsetParserTests {
    static let cases: [(String, [String])] = [
        ("a.png", ["a.png"]),
        ("a.png 1x, b.png 2x", ["a.png", "b.png"]),
        ("a,b.png 1x", ["a,b.png"]),
        ("a.png,b.png", ["a.png,b.png"]),
        ("a.png, b.png", ["a.png", "b.png"]),
        ("a.png,, b.png,,", ["a.png", "b.png"]),
        ("  a.png   100w  ,\n b.png 200w ", ["a.png", "b.png"]),
        (",,,a.png", ["a.png"]),
        ("data:image/png;base64,AAA= 1x, b.png 2x", ["data:image/png;base64,AAA=", "b.png"]),
        ("a.png 1x 2x, b.png", ["b.png"]),
        ("a.png 100w 1x", []),
        ("a.png 10h", []),
        ("a.png 100w 50h", ["a.png"]),
        ("a.png 2q", []),
        ("a.png 0w", []),
        ("a.png 0x", ["a.png"]),
        ("a.png 1.5x", ["a.png"]),
        ("a.png -1x", []),
        ("a.png (max-width: 100px), b.png", ["b.png"]),
        ("", []),
        ("   ,  ", []),
    ]

    @Test(arguments: cases)
    func parsesCandidatesLikeTheHTMLSpec(_ value: String, _ urls: [String]) {
        #expect(SrcsetParser.urls(in: value) == urls)
    }
}
