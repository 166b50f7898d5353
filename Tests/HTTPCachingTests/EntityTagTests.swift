import Testing

@testable import HTTPCaching

struct EntityTagTests {
    // MARK: - Parsing (RFC 9110 §8.8.3)

    @Test(arguments: [
        (#""xyzzy""#, EntityTag(opaqueTag: "xyzzy")),
        (#"W/"xyzzy""#, EntityTag(opaqueTag: "xyzzy", isWeak: true)),
        (#""""#, EntityTag(opaqueTag: "")),
        (#"  "a-b!#"  "#, EntityTag(opaqueTag: "a-b!#")),
    ])
    func parsesValidTags(text: String, expected: EntityTag) {
        #expect(EntityTag(parsing: text) == expected)
    }

    @Test(arguments: [
        "xyzzy", #"w/"xyzzy""#, #""xyzzy"#, #"xyzzy""#, #""a"b""#, #""a b""#, #"W/ "a""#, #""a"x"#, "\"", "",
    ])
    func rejectsInvalidTags(text: String) {
        #expect(EntityTag(parsing: text) == nil)
    }

    @Test(arguments: [#""xyzzy""#, #"W/"xyzzy""#])
    func descriptionRoundTrips(text: String) throws {
        #expect(try #require(EntityTag(parsing: text)).description == text)
    }

    // MARK: - Comparison (RFC 9110 §8.8.3.2, the table of that section)

    @Test(arguments: [
        (#"W/"1""#, #"W/"1""#, false, true),
        (#"W/"1""#, #"W/"2""#, false, false),
        (#"W/"1""#, #""1""#, false, true),
        (#""1""#, #""1""#, true, true),
        (#""1""#, #""2""#, false, false),
    ])
    func comparesLikeTheRFCTable(lhs: String, rhs: String, strong: Bool, weak: Bool) throws {
        let left = try #require(EntityTag(parsing: lhs))
        let right = try #require(EntityTag(parsing: rhs))
        #expect(left.stronglyMatches(right) == strong)
        #expect(right.stronglyMatches(left) == strong)
        #expect(left.weaklyMatches(right) == weak)
        #expect(right.weaklyMatches(left) == weak)
    }
}
