import Foundation
import HTTPCore
import Testing

/// `URL(parsing:relativeTo:)` reads URLs as the URL Standard does where Foundation differs.
struct URLParsingTests {
    static let base = URL(string: "http://a.test/dir/page.html")!

    @Test(arguments: [
        // Escapes already there are kept beside characters that need encoding (Foundation's own
        // encoding gives /%C3%A4%2520b).
        ("/ä%20b", "http://a.test/%C3%A4%20b"),
        ("/a b%20c", "http://a.test/a%20b%20c"),
        ("ü.png?q=ä%26x#ö", "http://a.test/dir/%C3%BC.png?q=%C3%A4%26x#%C3%B6"),
        // A % that starts no escape is a literal %.
        ("/%zz ä", "http://a.test/%25zz%20%C3%A4"),
        ("/100%", "http://a.test/100%25"),
        // Characters a URL cannot hold after its host.
        ("/a\"b<c>{d}|e^f`g[h]", "http://a.test/a%22b%3Cc%3E%7Bd%7D%7Ce%5Ef%60g%5Bh%5D"),
        // Special schemes read \ as / until the query.
        ("..\\img\\a.png?x=a\\b", "http://a.test/img/a.png?x=a%5Cb"),
        ("\\\\cdn.test\\x.png", "http://cdn.test/x.png"),
        // The host is Foundation's: punycode for a name, brackets for IPv6.
        ("http://ü.test/ä%20b", "http://xn--tda.test/%C3%A4%20b"),
        ("http://[::1]:8080/a b", "http://[::1]:8080/a%20b"),
        // What needs nothing is unchanged.
        ("https://a.test/x?y=1&z=%2F#top", "https://a.test/x?y=1&z=%2F#top"),
        ("style.css", "http://a.test/dir/style.css"),
    ])
    func encodesWhatAURLCannotHoldAndKeepsEscapes(text: String, expected: String) throws {
        let url = try #require(URL(parsing: text, relativeTo: Self.base))
        #expect(url.absoluteString == expected)
    }

    /// Telling absolute URLs from relative references (RFC 3986 §3.1, §4.2).
    @Test(arguments: [
        ("http://a.test/", "http"), ("HTTPS://a.test", "https"), ("ftp:x", "ftp"), ("a+b.c-d:rest", "a+b.c-d"),
        ("index.html", nil), ("/path", nil), ("./x:y", nil), ("1http://a", nil), ("", nil),
        ("nav/home?x=http://a", nil), (":no-scheme", nil),
    ] as [(String, String?)])
    func readsTheSchemeAReferenceStartsWith(text: String, scheme: String?) {
        #expect(URL.scheme(ofReference: text) == scheme)
    }

    @Test func aSchemeOtherThanHTTPKeepsItsBackslashesEncoded() throws {
        let url = try #require(URL(parsing: "ftp://a.test/a\\b"))
        #expect(url.absoluteString == "ftp://a.test/a%5Cb")
    }

    @Test func aMalformedHostIsNoURL() {
        #expect(URL(parsing: "http://a b.test/") == nil)
    }
}
