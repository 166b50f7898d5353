import HTTPCore
import Testing
import WebCacheTestSupport

@testable import HTTPCaching

struct CacheControlTests {
    typealias Directive = CacheControl.Directive

    // MARK: - Syntax (RFC 9111 §5.2, RFC 9110 §5.6.2 tokens and §5.6.4 quoted strings)

    @Test(arguments: [
        ("§5.2 token value", "max-age=60", [Directive(name: "max-age", value: "60")]),
        (
            "§5.2 names are case-insensitive", "MAX-AGE=60, No-Cache",
            [Directive(name: "max-age", value: "60"), Directive(name: "no-cache")]
        ),
        (
            "§5.2.2.4 quoted list keeps its comma", #"no-cache="Set-Cookie, X-Foo", public"#,
            [Directive(name: "no-cache", value: "Set-Cookie, X-Foo"), Directive(name: "public")]
        ),
        ("RFC 9110 §5.6.4 backslash escapes", #"private="a\"b\\c""#, [Directive(name: "private", value: #"a"b\c"#)]),
        ("§5.2 quoted delta-seconds accepted", #"max-age="60""#, [Directive(name: "max-age", value: "60")]),
        ("unterminated quote kept raw", #"max-age="60"#, [Directive(name: "max-age", value: #""60"#)]),
        ("text after closing quote kept raw", #"max-age="6"0"#, [Directive(name: "max-age", value: #""6"0"#)]),
        ("empty members skipped", " , ,max-age=5,, ", [Directive(name: "max-age", value: "5")]),
        ("nameless member dropped", "=5, public", [Directive(name: "public")]),
        ("empty value kept", "max-age=", [Directive(name: "max-age", value: "")]),
        ("spaces around = dropped", "max-age = 60 ,Public", [Directive(name: "max-age", value: "60"), Directive(name: "public")]),
        ("non-ASCII names lowercased", "X-ÅGE=1", [Directive(name: "x-åge", value: "1")]),
        (
            "§5.2.3 unknown directives kept in order", "foo=bar, max-age=1",
            [Directive(name: "foo", value: "bar"), Directive(name: "max-age", value: "1")]
        ),
        (
            "duplicates kept in order", "max-age=1, max-age=2",
            [Directive(name: "max-age", value: "1"), Directive(name: "max-age", value: "2")]
        ),
    ])
    func parsesDirectives(rule: String, value: String, expected: [Directive]) {
        #expect(CacheControl(value).directives == expected, "\(rule)")
    }

    /// The directives are read from the field's bytes: on 5,000 random values of the bytes that
    /// matter (quotes, backslashes, commas, `=`, spaces, tabs, letters in both cases, a non-ASCII
    /// letter), they are what splitting the list into strings and reading each member gives.
    @Test func directivesReadAsBytesMatchTheListReadAsStrings() {
        var generator = SeededGenerator(seed: 9111)
        let pieces = ["\"", "\\", ",", "=", " ", "\t", "a", "B", "max-age", "60", "é", "no-cache", ", ", "=\""]
        for round in 0..<5_000 {
            let value = (0..<Int.random(in: 0...12, using: &generator))
                .map { _ in pieces.randomElement(using: &generator)! }.joined()
            #expect(CacheControl(value).directives == Self.directivesReadAsStrings(value), "\(round): \(value)")
            let twoLines = CacheControl(headers: headers([("Cache-Control", value), ("X-Other", "1"), ("cache-control", "a=b")]))
            #expect(twoLines.directives == Self.directivesReadAsStrings(value) + [Directive(name: "a", value: "b")])
        }
    }

    /// The list split into member strings and each member read as a directive, its quoted value
    /// unquoted a `Character` at a time: the way the directives were read before they were read as
    /// bytes.
    private static func directivesReadAsStrings(_ value: String) -> [Directive] {
        HTTPHeaders.splitList(value).compactMap { member in
            guard let equals = member.firstIndex(of: "=") else { return Directive(name: member) }
            let name = member[..<equals].trimmingHTTPWhitespace()
            guard !name.isEmpty else { return nil }
            let raw = member[member.index(after: equals)...].trimmingHTTPWhitespace()
            return Directive(name: name, value: unquotedByCharacters(raw) ?? raw)
        }
    }

    private static func unquotedByCharacters(_ text: String) -> String? {
        guard text.first == "\"" else { return text }
        var result = ""
        var escaped = false
        var index = text.index(after: text.startIndex)
        while index < text.endIndex {
            let character = text[index]
            if escaped {
                result.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "\"" {
                return text.index(after: index) == text.endIndex ? result : nil
            } else {
                result.append(character)
            }
            index = text.index(after: index)
        }
        return nil
    }

    @Test func readsEveryCacheControlLine() {
        // RFC 9110 §5.3: repeated lines are one list.
        let directives = CacheControl(headers: headers([("Cache-Control", "max-age=5"), ("cache-control", "public")]))
        #expect(directives.directives == [Directive(name: "max-age", value: "5"), Directive(name: "public")])
        #expect(directives.contains("PUBLIC"))
        #expect(!directives.contains("private"))
    }

    // MARK: - Delta-seconds (RFC 9111 §1.2.2)

    @Test(arguments: [
        ("0", 0), ("60", 60), ("007", 7), ("2147483647", 2_147_483_647),
        ("2147483648", 2_147_483_648), ("2147483649", 2_147_483_648),
        ("99999999999999999999999999", 2_147_483_648),
    ])
    func deltaSecondsClampAt2To31(text: String, expected: Int) {
        #expect(CacheControl.parseDeltaSeconds(text) == expected)
    }

    @Test(arguments: ["", "-1", "+5", "1.5", "5s", "1e3", " 5", "٣", "0x10"])
    func invalidDeltaSecondsAreRejected(text: String) {
        #expect(CacheControl.parseDeltaSeconds(text) == nil)
    }

    @Test func deltaSecondsReportsAbsentInvalidAndFirstOccurrence() {
        let directives = CacheControl("max-age=30, max-age=10, min-fresh, max-stale=abc")
        #expect(directives.deltaSeconds("max-age") == .seconds(30))  // §4.2.1: first occurrence
        #expect(directives.deltaSeconds("min-fresh") == .invalid)
        #expect(directives.deltaSeconds("max-stale") == .invalid)
        #expect(directives.deltaSeconds("s-maxage") == .absent)
    }

    // MARK: - Request directives (RFC 9111 §5.2.1, §5.4; RFC 5861 §4)

    @Test func readsRequestDirectives() {
        let directives = RequestCacheControl(
            headers: headers([
                ("Cache-Control", "MAX-AGE=10, min-fresh=5, No-Store, only-if-cached, stale-if-error=30, no-cache")
            ])
        )
        #expect(directives.maxAge == 10)
        #expect(directives.minFresh == 5)
        #expect(directives.noStore)
        #expect(directives.onlyIfCached)
        #expect(directives.noCache)
        #expect(directives.staleIfError == 30)
        #expect(directives.maxStale == nil)
    }

    @Test(arguments: [
        ("§5.2.1.2 without value", "max-stale", RequestCacheControl.MaxStale.unlimited),
        ("§5.2.1.2 with value", "max-stale=60", .seconds(60)),
        ("§5.2.1.2 quoted value", #"max-stale="60""#, .seconds(60)),
        ("§5.2.1.2 first occurrence", "max-stale=5, max-stale", .seconds(5)),
    ])
    func readsMaxStale(rule: String, value: String, expected: RequestCacheControl.MaxStale) {
        #expect(RequestCacheControl(headers: headers([("Cache-Control", value)])).maxStale == expected, "\(rule)")
    }

    @Test(arguments: ["max-age=soon", "max-age=-1", "min-fresh=1.5", "max-stale=abc", "stale-if-error=x"])
    func invalidRequestDirectivesAreIgnored(value: String) {
        let directives = RequestCacheControl(headers: headers([("Cache-Control", value)]))
        #expect(directives.maxAge == nil)
        #expect(directives.minFresh == nil)
        #expect(directives.maxStale == nil)
        #expect(directives.staleIfError == nil)
    }

    @Test(arguments: [
        ("§5.4 Pragma alone", [("Pragma", "no-cache")], true),
        ("§5.4 Pragma is case-insensitive and a list", [("Pragma", "foo, NO-CACHE")], true),
        ("§5.4 Pragma ignored beside Cache-Control", [("Pragma", "no-cache"), ("Cache-Control", "max-age=60")], false),
        ("§5.4 Pragma ignored beside an empty Cache-Control", [("Pragma", "no-cache"), ("Cache-Control", "")], false),
        ("§5.4 other Pragma values", [("Pragma", "x-no-cache")], false),
        ("§5.2.1.4 Cache-Control no-cache", [("Cache-Control", "no-cache")], true),
    ])
    func pragmaNoCacheOnlyWithoutCacheControl(rule: String, pairs: [(String, String)], expected: Bool) {
        #expect(RequestCacheControl(headers: headers(pairs)).noCache == expected, "\(rule)")
    }

    // MARK: - Response directives (RFC 9111 §5.2.2, RFC 5861, RFC 8246)

    @Test func readsResponseDirectives() {
        let directives = ResponseCacheControl(
            headers: headers([
                ("Cache-Control", #"Public, PRIVATE="Set-Cookie, X-User", no-cache="Set-Cookie""#),
                ("Cache-Control", "must-revalidate, proxy-revalidate, must-understand, no-store, immutable"),
                ("Cache-Control", "s-maxage=20, stale-while-revalidate=30, stale-if-error=40, max-age=10"),
                ("Cache-Control", "No-Transform"),
            ])
        )
        #expect(directives.noTransform)
        #expect(!ResponseCacheControl(headers: headers([("Cache-Control", "max-age=10")])).noTransform)
        #expect(directives.isPublic)
        #expect(directives.isPrivate)
        #expect(directives.privateFields == ["set-cookie", "x-user"])
        #expect(directives.noCache)
        #expect(directives.noCacheFields == ["set-cookie"])
        #expect(directives.mustRevalidate && directives.proxyRevalidate && directives.mustUnderstand)
        #expect(directives.noStore && directives.immutable)
        #expect(directives.sharedMaxAge == 20)
        #expect(directives.staleWhileRevalidate == 30)
        #expect(directives.staleIfError == 40)
        #expect(directives.maxAge == 10)
    }

    @Test func unqualifiedNoCacheHasNoFields() {
        let directives = ResponseCacheControl(headers: headers([("Cache-Control", "no-cache")]))
        #expect(directives.noCache)
        #expect(directives.noCacheFields.isEmpty)
    }

    @Test(arguments: [
        ("§4.2.1 invalid max-age means stale", "max-age=abc", 0 as Int?),
        ("§4.2.1 negative max-age means stale", "max-age=-5", 0),
        ("§4.2.1 valueless max-age means stale", "max-age", 0),
        ("§4.2.1 first valid occurrence wins", "max-age=60, max-age=5", 60),
        ("§4.2.1 first occurrence invalid means stale", "max-age=x, max-age=60", 0),
        ("§1.2.2 overflow clamps to 2^31", "max-age=99999999999999", 2_147_483_648),
        ("absent", "public", nil),
    ])
    func responseMaxAge(rule: String, value: String, expected: Int?) {
        #expect(ResponseCacheControl(headers: headers([("Cache-Control", value)])).maxAge == expected, "\(rule)")
    }

    @Test func repeatedDirectivesReadAsTheFirstOneOrGatheredWhenTheyListFields() {
        // §4.2.1: the first occurrence of a numeric directive counts, even when invalid; the field
        // names of every qualified no-cache and private are kept.
        let directives = ResponseCacheControl(
            headers: headers([
                ("Cache-Control", "s-maxage=20, stale-if-error=x, no-cache=\"A\", private=\"B\""),
                ("Cache-Control", "s-maxage=5, stale-if-error=40, stale-while-revalidate=7, stale-while-revalidate=9"),
                ("Cache-Control", "NO-CACHE=\"C, D\", private=\"E\", max-age=3, max-age=x"),
            ])
        )
        #expect(directives.sharedMaxAge == 20)
        #expect(directives.staleIfError == nil)
        #expect(directives.staleWhileRevalidate == 7)
        #expect(directives.maxAge == 3)
        #expect(directives.noCacheFields == ["a", "c", "d"])
        #expect(directives.privateFields == ["b", "e"])
    }

    @Test func invalidStaleExtensionsAreIgnored() {
        // RFC 5861: the directives only grant permission, so an invalid one grants nothing.
        let directives = ResponseCacheControl(
            headers: headers([
                ("Cache-Control", "stale-while-revalidate=soon, stale-if-error")
            ])
        )
        #expect(directives.staleWhileRevalidate == nil)
        #expect(directives.staleIfError == nil)
    }
}
