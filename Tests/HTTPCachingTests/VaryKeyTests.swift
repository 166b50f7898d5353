import HTTPCore
import Testing

@testable import HTTPCaching

struct VaryKeyTests {
    @Test(arguments: [
        ("§4.1 no Vary", nil, [], "" as String?),
        ("§4.1 empty Vary", "", [("Accept", "x")], ""),
        ("§4.1 one field", "Accept-Encoding", [("Accept-Encoding", "gzip")], "accept-encoding: gzip"),
        ("§4.1 absent field", "Accept-Encoding", [], "accept-encoding"),
        ("§4.1 empty field differs from absent", "Accept-Encoding", [("Accept-Encoding", "")], "accept-encoding: "),
        (
            "§4.1 names lowercased, deduplicated and sorted", "User-Agent, accept, ACCEPT",
            [("Accept", "a"), ("User-Agent", "u")], "accept: a\nuser-agent: u"
        ),
        (
            "§4.1 list whitespace normalised", "Accept", [("Accept", "text/html ,  application/xml")],
            "accept: text/html,application/xml"
        ),
        (
            "§4.1 inner whitespace collapsed", "User-Agent", [("User-Agent", "Foo   1.0\t(x)")],
            "user-agent: Foo 1.0 (x)"
        ),
        ("§4.1 repeated lines combine", "Accept", [("Accept", "a"), ("accept", "b")], "accept: a,b"),
        ("§4.1 Vary: * never matches", "*", [], nil),
        ("§4.1 * among names never matches", "Accept, *", [("Accept", "a")], nil),
    ])
    func secondaryKey(rule: String, vary: String?, request: [(String, String)], expected: String?) {
        #expect(VaryKey.secondaryKey(forVary: vary, request: headers(request)) == expected, "\(rule)")
    }

    @Test(arguments: [
        ([("Accept-Encoding", "gzip, br")], [("accept-encoding", "gzip,br")], true),
        ([("Accept-Encoding", "gzip, br")], [("Accept-Encoding", "gzip"), ("Accept-Encoding", "br")], true),
        ([("Accept-Encoding", "gzip, br")], [("Accept-Encoding", "br, gzip")], false),
        ([("Accept-Encoding", "")], [], false),
        ([("Accept-Encoding", "gzip"), ("Cookie", "a")], [("Accept-Encoding", "gzip"), ("Cookie", "b")], true),
    ])
    func equivalentRequestsShareAKey(first: [(String, String)], second: [(String, String)], same: Bool) {
        // §4.1: fields nominated by Vary match after normalisation; others are ignored.
        let vary = "Accept-Encoding"
        let lhs = VaryKey.secondaryKey(forVary: vary, request: headers(first))
        let rhs = VaryKey.secondaryKey(forVary: vary, request: headers(second))
        #expect((lhs == rhs) == same)
    }

    @Test func responseFormReadsEveryVaryLine() {
        let response = headers([("Vary", "Accept"), ("Vary", "Origin")])
        let key = VaryKey.secondaryKey(forResponse: response, request: headers([("Origin", "https://a.example")]))
        #expect(key == "accept\norigin: https://a.example")
    }

    @Test(arguments: ["Cookie", "Authorization", "Proxy-Authorization"])
    func aCredentialFieldIsKeyedByItsDigestNeverItsValue(field: String) throws {
        // §4.1 matching is unchanged: equal values share a key, different ones do not.
        let key = try #require(VaryKey.secondaryKey(
            forVary: "\(field), Accept", request: headers([(field, "session=s3cret"), ("Accept", "a")])))
        let lowered = field.lowercased()
        #expect(!key.contains("s3cret"), "\(key)")
        // The SHA-256 of "session=s3cret" (as `sha256sum` prints it): keys stay stable across versions.
        let digest = "b0d51f9a11de0e2b247659dea2c579c660ba5b2ca929d5d4b5f64909f8c57fcc"
        #expect(key == "accept: a\n\(lowered): sha256:\(digest)")
        let same = VaryKey.secondaryKey(
            forVary: field, request: headers([(field, "session=s3cret")]))
        let spaced = VaryKey.secondaryKey(
            forVary: field, request: headers([(field, " session=s3cret ")]))
        let other = VaryKey.secondaryKey(
            forVary: field, request: headers([(field, "session=other")]))
        #expect(same == spaced)
        #expect(same != other)
        #expect(VaryKey.secondaryKey(forVary: field, request: headers([])) == lowered)
    }
}
