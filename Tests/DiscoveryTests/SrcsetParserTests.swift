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
        ("wrong.png 1.x, right.png 1x", ["right.png"]),
        ("a.png -1x", []),
        ("a.png (max-width: 100px), b.png", ["b.png"]),
        ("", []),
        ("   ,  ", []),
    ]

    @Test(arguments: cases)
    func parsesCandidatesLikeTheHTMLSpec(_ value: String, _ urls: [String]) {
        #expect(SrcsetParser.urls(in: value) == urls)
    }

    static let descriptorCases: [(String, [ImageCandidate.Descriptor]?)] = [
        ("a.png", [.none]),
        ("a.png 2x", [.density(2)]),
        ("a.png 007x", [.density(7)]),
        ("a.png 1.5x", [.density(1.5)]),
        ("a.png .5x", [.density(0.5)]),
        ("a.png 1e1x", [.density(10)]),
        ("a.png 2E-1x", [.density(0.2)]),
        // A valid floating-point number only (HTML §2.3.4.3): no `+`, digits after a `.`.
        ("a.png +3x", nil),
        ("a.png 1.x", nil),
        ("a.png 1.e2x", nil),
        ("a.png -.5e+1x", nil),
        ("a.png 1e+1x", [.density(10)]),
        ("a.png 1234567890123456789x", [.density(1_234_567_890_123_456_768)]),
        ("a.png 1.5.5x", nil),
        ("a.png 1ex", nil),
        ("a.png x", nil),
        ("a.png infx", nil),
        ("a.png 0x1p3x", nil),
        ("a.png ２x", nil),
        ("a.png 800w", [.width(800)]),
        ("a.png 0800w", [.width(800)]),
        ("a.png 99999999999999999999999w", [.width(Int.max)]),
        ("a.png 000w", nil),
        ("a.png +8w", nil),
        ("a.png 8.0w", nil),
        ("a.png w", nil),
        ("a.png 800w 600h", [.width(800)]),
        ("a.png 600h 800w", [.width(800)]),
        ("a.png 600h 600h 800w", nil),
        ("a.png 1x 800w", nil),
        ("a.png 800w 1x", nil),
        ("a.png 2x, b.png 800w, c.png 3q, d.png", [.density(2), .width(800), .none]),
    ]

    /// Each candidate's descriptor, read from the value's bytes; `nil` where every candidate is dropped.
    @Test(arguments: descriptorCases)
    func readsDescriptorValues(_ value: String, _ descriptors: [ImageCandidate.Descriptor]?) {
        #expect(SrcsetParser.candidates(in: value).map(\.descriptor) == (descriptors ?? []))
    }
}
