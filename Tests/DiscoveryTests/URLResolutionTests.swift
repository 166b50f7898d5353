import Foundation
import Testing

@testable import Discovery

/// Plain relative references are resolved on bytes (RFC 3986 §5.2) rather than through Foundation:
/// for each base and reference the two must give the same URL.
@Suite struct URLResolutionTests {
    static let bases = [
        "https://example.com/dir/page.html", "https://example.com/", "http://example.com:8080/a/b/c?x=1#frag",
        "https://user@example.com/dir/", "https://example.com/dir/page.html?q=/x/y", "https://example.com",
        "file:///srv/site/index.html", "https://example.com/a%20b/c.html",
    ]

    static let references = [
        "a.png", "/img/b.png", "../up/x.gif", "../../../../x.gif", "./a/./b/../c.png", ".", "..", "./", "../",
        "a/..", "a/.", "?only=query", "?", "#frag", "", "img/a.png#part", "x?y=1&z=2#f", "a:b", "c/d:e.png",
        "//cdn.example.net/lib.js", "/", "//", "a//b", "/a/b/../../..", "%41%2e%2E/b", "%zz", "50%", "@x!$&'()*+,;=~",
        "a?b/../c", "/..", "/.", "...", "a/...", ".hidden/x", "https://other.test/y.css", "HTTP://Other.Test/Z",
    ]

    @Test(arguments: bases)
    func bytesResolveAsFoundationDoes(_ base: String) throws {
        let baseURL = try #require(URL(string: base))
        let prepared = URLCleaner.Base(baseURL)
        for reference in Self.references {
            let expected = URLCleaner.resolveWithFoundation(reference, against: baseURL, queryEncoding: .utf8)
            let resolved = URLCleaner.resolve(reference, against: prepared)
            #expect(resolved?.absoluteString == expected?.absoluteString, "\(reference) against \(base)")
        }
    }

    @Test func plainReferencesTakeTheBytePath() throws {
        let base = URLCleaner.Base(try #require(URL(string: "https://example.com/dir/page.html")))
        let origin = try #require(base.origin)
        for reference in ["a.png", "/img/b.png", "../up/x.gif", "?q=1", "x%20y.png"] {
            let bytes = URLCleaner.resolvePlainReference(reference, origin: origin, base: base)
            #expect(bytes != nil && bytes?.isEmpty == false, "\(reference)")
        }
        for reference in ["//cdn.example.net/a.js", "a:b", "é.png", "a b.png", "50%", "a\\b"] {
            #expect(URLCleaner.resolvePlainReference(reference, origin: origin, base: base) == nil, "\(reference)")
        }
    }
}
