import Foundation
import Testing
import WebCacheTestSupport

@testable import CacheStore

/// The host a saved entry is given: read from the bytes of a plain URL, by `URLComponents` for any
/// other, and the same either way.
@Suite
struct EntryHostTests {
    /// What the host was before plain URLs were read from their bytes.
    private func parsedHost(_ url: String) -> String {
        (URLComponents(string: url)?.host ?? "").lowercased()
    }

    static let plain = [
        "http://127.0.0.1:8080/tiny/1",
        "https://Example.COM/a/b.css?v=3&x=%2F",
        "http://example.test",
        "http://example.test:1/",
        "http://example.test:65535/path?query",
        "https://a-b.c_d~e.example/!$&'()*+,;=:@/?/x",
        "http://localhost/%41%7a",
        "https://cdn.example.org/img/1.png?w=1&h=2",
    ]

    static let others = [
        "http://example.test:65536/",
        "http://example.test:123456/",
        "http://example.test:/",
        "http://example.test:8a/",
        "http://:80/",
        "http:///path",
        "http://user@example.test/",
        "http://user:secret@example.test/",
        "http://[::1]:8080/",
        "http://xn--bcher-kva.example/",
        "http://www.XN--bcher-kva.example/",
        "http://exa mple.test/",
        "http://example.test/a b",
        "http://example.test/%zz",
        "http://example.test/%4",
        "http://example.test/#fragment",
        "http://example.test/[x]",
        "http://example.test/\"q\"",
        "http://example.test/<x>",
        "http://example.test/ü",
        "http://bücher.example/",
        "http://ex%41mple.test/",
        "HTTP://EXAMPLE.TEST/",
        "ftp://example.test/",
        "mailto:someone@example.test",
        "example.test/path",
        "",
    ]

    @Test(arguments: plain)
    func readsThePlainURLsHostFromItsBytes(url: String) throws {
        let host = try #require(CacheEntry.simpleHost(of: url))
        #expect(host == parsedHost(url))
        #expect(CacheEntry.host(of: url) == host)
    }

    @Test(arguments: others)
    func leavesEveryOtherURLToTheFullParse(url: String) {
        #expect(CacheEntry.simpleHost(of: url) == nil)
        #expect(CacheEntry.host(of: url) == parsedHost(url))
    }

    /// Random URLs made of the characters that matter to either path: wherever the bytes are read,
    /// they give what the full parse gives.
    @Test
    func agreesWithTheFullParseOnRandomURLs() {
        var generator = SeededGenerator(seed: 17)
        let pieces = ["a", "Z", "0", "9", "-", ".", "_", "~", ":", "/", "?", "@", "%", "%4", "%41", "!", "[", "]",
                      " ", "#", "xn--", "XN--", "é", "80", "65535", "99999"]
        var readFromBytes = 0
        for _ in 0..<20_000 {
            let scheme = ["http://", "https://", "HTTP://", "http:/"].randomElement(using: &generator)!
            var url = scheme
            for _ in 0..<Int.random(in: 0...10, using: &generator) {
                url += pieces.randomElement(using: &generator)!
            }
            let host = CacheEntry.simpleHost(of: url)
            if let host {
                readFromBytes += 1
                #expect(host == parsedHost(url), "\(url)")
            }
            #expect(CacheEntry.host(of: url) == parsedHost(url), "\(url)")
        }
        // Enough of the random URLs take the byte path for the comparison to mean something.
        #expect(readFromBytes > 1_000)
    }
}
