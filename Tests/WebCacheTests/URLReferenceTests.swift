import Testing

@testable import WebCache

/// Telling absolute URLs from relative references (RFC 3986 §3.1, §4.2), and hiding credentials in messages.
struct URLReferenceTests {
    @Test(arguments: [
        ("http://a.test/", true), ("HTTPS://a.test", true), ("ftp:x", true), ("a+b.c-d:rest", true),
        ("index.html", false), ("/path", false), ("./x:y", false), ("1http://a", false), ("", false),
        ("nav/home?x=http://a", false), (":no-scheme", false),
    ])
    func recognisesSchemes(text: String, hasScheme: Bool) {
        #expect(URLReference.hasScheme(text) == hasScheme)
    }

    @Test func messagesHideCredentials() {
        #expect(URLReference.excerpt("http://user:secret@a.test/x") == "http://***@a.test/x")
    }
}
