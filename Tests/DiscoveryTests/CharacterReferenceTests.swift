import Testing

@testable import Discovery

@Suite struct CharacterReferenceTests {
    static let cases: [(String, String)] = [
        ("a&amp;b", "a&b"),
        ("&lt;&gt;&quot;&apos;", "<>\"'"),
        ("&nbsp;", "\u{A0}"),
        ("&nbsp", "\u{A0}"),
        ("&copy 2024", "© 2024"),
        ("&amp", "&"),
        ("?a=1&amp=2", "?a=1&amp=2"),
        ("?a=1&ampx=2", "?a=1&ampx=2"),
        ("?a=1&amp;x=2", "?a=1&x=2"),
        ("&amp/", "&/"),
        ("&notit;", "&notit;"),
        ("&not ", "¬ "),
        ("&#65;&#x42;&#X43", "ABC"),
        ("&#0;", "\u{FFFD}"),
        ("&#x110000;", "\u{FFFD}"),
        ("&#xD800;", "\u{FFFD}"),
        ("&#x80;&#150;", "€–"),
        ("&#;&#x;", "&#;&#x;"),
        ("&unknown;", "&unknown;"),
        ("&", "&"),
        ("a & b", "a & b"),
        ("&sol;&colon;&quest;&num;", "/:?#"),
        ("&AMP;&COPY;", "&©"),
        ("&hellip;", "…"),
    ]

    @Test(arguments: cases)
    func decodesAttributeValues(_ raw: String, _ decoded: String) {
        #expect(Array(raw.utf8).withUnsafeBufferPointer(CharacterReferences.decodeAttributeValue) == decoded)
    }
}
