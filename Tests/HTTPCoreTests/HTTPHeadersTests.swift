import Foundation
import Testing

@testable import HTTPCore

struct HTTPHeadersTests {
    @Test func lookupIgnoresCaseAndJoinsRepeatedLines() {
        // Given
        var headers: HTTPHeaders = ["Cache-Control": "max-age=60"]
        headers.append(name: "cache-control", value: "must-revalidate")

        // Then (RFC 9110 §5.3: repeated lines combine with commas)
        #expect(headers["CACHE-CONTROL"] == "max-age=60, must-revalidate")
        #expect(headers.values(for: "Cache-Control") == ["max-age=60", "must-revalidate"])
        #expect(headers.firstValue(for: "CACHE-control") == "max-age=60")
        #expect(headers["ETag"] == nil)
        #expect(headers.firstValue(for: "ETag") == nil)
        // Lines of other names between them, and one line alone.
        let spread: HTTPHeaders = ["Vary": "a", "ETag": "\"e\"", "vary": "b", "Date": "d", "VARY": "c"]
        #expect(spread["Vary"] == "a, b, c")
        #expect(spread["etag"] == "\"e\"")
    }

    @Test func indicesNameEveryLineOfANameAndSetValueKeepsItsPlace() {
        var headers: HTTPHeaders = ["Vary": "a", "ETag": "\"e\"", "vary": "b", "Varx": "x", "VARY": "c"]
        #expect(headers.indices(named: "VARY") == [0, 2, 4])
        #expect(headers.indices(named: "Age").isEmpty)
        let copy = headers
        headers.setValue("z", at: 2)
        #expect(headers.fields.map(\.name) == ["Vary", "ETag", "vary", "Varx", "VARY"])
        #expect(headers["Vary"] == "a, z, c")
        // The copy it was made from keeps its value.
        #expect(copy["Vary"] == "a, b, c")
    }

    @Test func lookupsFindOnlyTheNameAmongNamesOfItsLengthAndLongerOnes() {
        // Names as long as the one asked for, and names it begins, sit before, between and after
        // its lines.
        let headers = HTTPHeaders([
            HTTPField(name: "Varx", value: "x"), HTTPField(name: "Vary-Not", value: "n"),
            HTTPField(name: "vARY", value: "a"), HTTPField(name: "Var", value: "v"),
            HTTPField(name: "Vary", value: "b"), HTTPField(name: "Wary", value: "w"),
        ])
        #expect(headers["Vary"] == "a, b")
        #expect(headers.values(for: "VARY") == ["a", "b"])
        #expect(headers.firstValue(for: "vary") == "a")
        #expect(headers.listValues(for: "Vary") == ["a", "b"])
        #expect(headers.contains("vary") && headers.contains("VAR"))
        #expect(!headers.contains("Va") && !headers.contains("Varyx"))
        #expect(headers["Vary-not"] == "n")
        #expect(headers.firstValue(for: "Ary") == nil)
    }

    @Test func settingReplacesEveryLineOfThatName() {
        var headers: HTTPHeaders = ["Vary": "Accept", "X-A": "1", "vary": "Origin"]
        headers["VARY"] = "Accept-Encoding"
        #expect(headers.fields == [HTTPField(name: "Vary", value: "Accept-Encoding"), HTTPField(name: "X-A", value: "1")])
        headers["Vary"] = nil
        #expect(!headers.contains("vary"))
    }

    @Test(arguments: [
        ("a, b,,c", ["a", "b", "c"]),
        ("no-cache=\"Set-Cookie, X-Foo\", max-age=5", ["no-cache=\"Set-Cookie, X-Foo\"", "max-age=5"]),
        ("\"a\\\"b,c\", d", ["\"a\\\"b,c\"", "d"]),
        ("  ", []),
    ])
    func listSplittingRespectsQuotes(value: String, expected: [String]) {
        #expect(HTTPHeaders.splitList(value) == expected)
    }

    @Test func listValuesJoinTheMembersOfEveryLineOfTheName() {
        let headers = HTTPHeaders([
            HTTPField(name: "Cache-Control", value: #"max-age=5, no-cache="a, b""#),
            HTTPField(name: "Vary", value: "Accept"),
            HTTPField(name: "cache-control", value: " ,public,, "),
            HTTPField(name: "CACHE-CONTROL", value: ""),
        ])
        #expect(headers.listValues(for: "Cache-Control") == ["max-age=5", #"no-cache="a, b""#, "public"])
        #expect(headers.listValues(for: "vary") == ["Accept"])
        #expect(headers.listValues(for: "Connection").isEmpty)
    }

    @Test func removingTheContentCodingRemovesTheCodedLength() {
        var coded: HTTPHeaders = ["Content-Type": "text/css", "Content-Encoding": "br", "Content-Length": "120"]
        #expect(coded.removeContentCoding() == "br")
        #expect(coded.fields == (["Content-Type": "text/css"] as HTTPHeaders).fields)
        for fields: HTTPHeaders in [["Content-Length": "120"], ["Content-Encoding": "identity", "Content-Length": "120"]] {
            var plain = fields
            #expect(plain.removeContentCoding() == nil)
            #expect(plain.fields == fields.fields)
        }
    }

    @Test(arguments: [
        (#""v1""#, #"W/"v1""#), (#" "v1" "#, #"W/"v1""#), (#"W/"v1""#, #"W/"v1""#), ("v1", "v1"),
    ])
    func weakeningMarksOnlyAStrongTag(tag: String, weakened: String) {
        var headers: HTTPHeaders = ["Content-Type": "text/css", "ETag": tag]
        headers.weakenEntityTag()
        #expect(headers.fields == (["Content-Type": "text/css", "ETag": weakened] as HTTPHeaders).fields)
    }

    @Test(arguments: [
        ("Content-Type", "content-type", true), ("ETAG", "ETag", true), ("te", "TE", true),
        ("Content-Type", "Content-Typo", false), ("Age", "Ages", false), ("", "", true), ("a", "", false),
        // Only ASCII letters fold: `@` and `` ` ``, `[` and `{` are 32 apart as a letter's two cases are.
        ("@", "`", false), ("[", "{", false), ("É", "é", false), ("straße", "STRASSE", false), ("ÿ", "ÿ", true),
    ])
    func comparesNamesIgnoringASCIICase(lhs: String, rhs: String, equal: Bool) {
        #expect(lhs.caseInsensitiveEquals(rhs) == equal)
        #expect(rhs.caseInsensitiveEquals(lhs) == equal)
        // Substrings, whose bytes are a part of another string's, compare alike.
        let padded = "x" + lhs + "y"
        let inner = padded.dropFirst().dropLast()
        #expect(inner.caseInsensitiveEquals(rhs) == equal)
        #expect(rhs.caseInsensitiveEquals(inner) == equal)
    }

    @Test func descriptionRedactsCredentials() {
        let headers: HTTPHeaders = ["Authorization": "Bearer secret", "Cookie": "sid=secret", "Accept": "*/*"]
        #expect(!headers.description.contains("secret"))
        #expect(headers.description.contains("Accept: */*"))
    }
}

struct CacheKeyTests {
    @Test(arguments: [
        ("HTTP://Example.COM:80/a?b=1#frag", "http://example.com/a?b=1"),
        ("https://example.com:443", "https://example.com/"),
        ("https://example.com:8443/x", "https://example.com:8443/x"),
        ("http://example.com/a#", "http://example.com/a"),
        ("http://EXAMPLE.com/a", "http://example.com/a"),
        ("http://example.com:80/", "http://example.com/"),
        ("http://example.com?q=1", "http://example.com/?q=1"),
        ("http://u:p@example.com/", "http://u:p@example.com/"),
        ("http://[::1]:8080/x", "http://[::1]:8080/x"),
        ("http://example.com/already/a/key?x=1", "http://example.com/already/a/key?x=1"),
        // Dot segments go (RFC 3986 §5.2.4), as in the request line libcurl sends; a query keeps its dots.
        ("http://example.com/css/../css/main.css", "http://example.com/css/main.css"),
        ("http://example.com/css/./main.css", "http://example.com/css/main.css"),
        ("http://example.com/a/b/..", "http://example.com/a/"),
        ("http://example.com/a/.", "http://example.com/a/"),
        ("http://example.com/../x", "http://example.com/x"),
        ("http://example.com/a/%2E%2e/b", "http://example.com/b"),
        ("http://example.com/a//../b", "http://example.com/a/b"),
        ("http://example.com/a.b/..c/.d/e..?q=/../", "http://example.com/a.b/..c/.d/e..?q=/../"),
        // A port is its number.
        ("http://127.0.0.1:028931/x", "http://127.0.0.1:28931/x"),
        ("http://example.com:/x", "http://example.com/x"),
        ("http://[::1]:08080/x", "http://[::1]:8080/x"),
        // Escapes of unreserved characters are the characters, other escapes are upper case.
        ("http://a/key/%61", "http://a/key/a"), ("http://a/%7euser/a%2Db%5F", "http://a/~user/a-b_"),
        ("http://a/%c3%a9?q=%2f%7E", "http://a/%C3%A9?q=%2F~"), ("http://a/b%2Fc", "http://a/b%2Fc"),
        ("http://a/x/%2E%2E/y", "http://a/y"), ("http://a/x%2E/y", "http://a/x./y"),
        // A ' in the query is written %27, as browsers send it (URL Standard); in the path it stays.
        ("http://a/O'Brien?caption=O'Brien", "http://a/O'Brien?caption=O%27Brien"),
        ("http://a/x?caption=O%27Brien", "http://a/x?caption=O%27Brien"),
    ])
    func normalisesSpellingsOfOneResource(input: String, expected: String) throws {
        #expect(try #require(URL(string: input)).cacheKey.absoluteString == expected)
    }

    @Test(arguments: [
        ("http://example.com/", true), ("https://a.b:8443/x?y", true), ("HTTP://example.com/", false),
        ("http://Example.com/", false), ("http://example.com", false), ("http://example.com/#f", false),
        ("http://example.com:80/", false), ("https://example.com:443/", false), ("http://u@example.com/", false),
        ("ftp://example.com/", false), ("https://example.com:80/", true), ("http://example.com:443/", true),
        ("http://example.com:8080/", true), ("http://example.com:180/", true), ("http://127.0.0.1:41234/a", true),
        ("http://", false), ("https://", false), ("http:///", false), ("http://a#/", false), ("http://a?b/", false),
        ("http://a%41/", false), ("https:/a/", false), ("httpx://a/", false), ("http://a/b?c#", false), ("http://:80/", false),
        ("https://a:4430/", true),
        ("http://a/b/../c", false), ("http://a/./c", false), ("http://a/b/..", false), ("http://a/b/.", false),
        ("http://a/b/.?q", false), ("http://a/%2e/c", false), ("http://a/%2E%2E/c", false),
        ("http://a/b.c/d..e/.f/..g", true), ("http://a/b?x=/../", true), ("http://a/%20", true),
        ("http://a:08080/", false), ("http://a:/", false), ("http://[::1]:8080/x", true), ("http://[::1]/x", true),
        ("http://[::1]:080/x", false),
        ("http://a/%61", false), ("http://a/%2f", false), ("http://a/x?q=%7E", false), ("http://a/x?q=%e9", false),
        ("http://a/%2F", true), ("http://a/%C3%A9?q=%2F", true), ("http://a/%25", true),
        ("http://a/x?q='", false), ("http://a/x'y", true), ("http://a/x?q=%27", true),
    ])
    func recognisesKeysWithoutRebuildingThem(text: String, isKey: Bool) throws {
        #expect(URL.isInCacheKeyForm(text) == isKey)
        // The fast path must agree with the full normalisation.
        if isKey { #expect(try #require(URL(string: text)).cacheKey.absoluteString == text) }
    }

    @Test(arguments: [
        "http://example.com/", "https://a.b:8443/x?y", "HTTP://example.com/", "http://Example.com/a", "http://example.com",
        "http://example.com:80/", "https://example.com:443/x", "http://u@example.com/", "http://example.com/a#f",
        "http://[::1]:8080/x", "ftp://example.com/",
    ])
    func keysTextAsItsURLIsKeyed(text: String) throws {
        #expect(URL.cacheKeyText(ofAbsoluteString: text) == (try #require(URL(string: text))).cacheKey.absoluteString)
    }

    @Test(arguments: [
        ("https://A.test/x?y", "https://a.test"), ("http://a.test:80/", "http://a.test"),
        ("http://a.test:8080/x", "http://a.test:8080"), ("http://[::1]:8080/", "http://[::1]:8080"),
    ])
    func serializesOriginsAsTheOriginFieldWritesThem(url: String, origin: String) throws {
        #expect(try #require(URL(string: url)).serializedOrigin == origin)
    }

    @Test func comparesOriginsWithDefaultPorts() throws {
        let plain = try #require(URL(string: "http://a.test/x"))
        #expect(plain.isSameOrigin(as: try #require(URL(string: "HTTP://A.test:80/y"))))
        #expect(!plain.isSameOrigin(as: try #require(URL(string: "https://a.test/x"))))
        #expect(!plain.isSameOrigin(as: try #require(URL(string: "http://a.test:8080/x"))))
    }
}
