import Foundation
import Testing
import WebCacheTestSupport

@testable import HTTPCore

/// `HTTPURLCheck.plainURL`: the URLs taken from their bytes alone are exactly what the full parse,
/// check and cache key give, and everything that needs more is left to them.
struct PlainURLTests {
    /// What the full way makes of `text`: parsed, checked, its cache key; `nil` when it is refused.
    private static func fullWay(_ text: String) -> String? {
        guard let url = try? HTTPURLCheck.url(text), url.user == nil, url.password == nil else { return nil }
        return url.cacheKey.absoluteString
    }

    @Test(arguments: [
        "http://a.test/",
        "https://a.test:8443/x/y?q=1&r=a/b",
        "http://127.0.0.1:33297/tiny/1",
        "http://0.0.0.0/",
        "http://255.255.255.255:65535/",
        "http://10.0.0.1:1/",
        "http://a-b.c-d/~x'/_y?z=.:@!$&()*+,;=",
        "http://a.test/.x/..y/.../x.",
        "http://a.test/x?/./../",
        "http://a.test//double//slash",
        "https://www.example.com:8080/a/b.html?q=a?b",
        "http://1a.test/", "http://a.123x/", "http://xn--bcher-kva.example/",
    ])
    func takesAPlainURLAsTheFullWayGivesIt(text: String) throws {
        let url = try #require(HTTPURLCheck.plainURL(text))
        #expect(url.absoluteString == text)
        #expect(url.baseURL == nil)
        #expect(Self.fullWay(text) == text)
    }

    @Test(arguments: [
        // Case, default ports, and what the cache key adds or removes
        "HTTP://a.test/", "Http://a.test/", "http://A.test/", "http://a.Test/x",
        "http://a.test:80/", "https://a.test:443/", "http://a.test", "http://a.test?q", "http://a.test/x#f",
        "http://a.test/#",
        // Ports that are no port, or spelled with a leading zero
        "http://a.test:/", "http://a.test:0/", "http://a.test:65536/", "http://a.test:080/", "http://a.test:123456/",
        "http://a.test:8x/",
        // Dot segments, percent-encoding, characters to encode
        "http://a.test/a/../b", "http://a.test/./b", "http://a.test/a/..", "http://a.test/a/.", "http://a.test/a/.?q",
        "http://a.test/..", "http://a.test/.", "http://a.test/%41", "http://a.test/x%", "http://a.test/x y",
        "http://a.test/x\\y", "http://a.test/x\"y", "http://a.test/<>", "http://a.test/ä", "http://a.test/x\t",
        "http://a.test/[x]", "http://a.test/{x}", "http://a.test/x|y", "http://a.test/x^y", "http://a.test/`",
        // A ' in the query, which the key writes %27
        "http://a.test/x?q='",
        // Credentials, internationalised and unusual hosts
        "http://user@a.test/", "http://user:pw@a.test/", "http://bücher.example/",
        "http://a..b/", "http://.a/", "http://a./", "http:///x", "http://my_host/", "http://my~host/", "http://[::1]/",
        "http://a%2Eb/",
        // Numbered hosts that are no plain dotted quad
        "http://127.1/", "http://1.2.3.256/", "http://01.2.3.4/", "http://1.2.3.4.5/", "http://1.2.3/",
        "http://0x7f.0.0.1/", "http://4294967295/", "http://a.1/",
        // Not an absolute http(s) URL, or with spaces around it
        "ftp://a.test/", "http:/a.test/", "http:a.test/", "//a.test/", "/x", "", " http://a.test/", "http://a.test/ ",
        "httpx://a.test/", "https:/a.test/",
    ])
    func leavesEverythingElseToTheFullWay(text: String) {
        #expect(HTTPURLCheck.plainURL(text) == nil, "\(text)")
    }

    @Test func agreesWithTheFullWayOnManyGeneratedURLs() {
        // URLs made of pieces that each path of the check meets, in a fixed pseudo-random order
        let schemes = ["http://", "https://", "HTTP://", "http:/", "ftp://"]
        let hosts = ["a.test", "A.test", "127.0.0.1", "1.2.3.256", "127.1", "a..b", "x-y.z", "user@a.test", "b\u{FC}cher.de",
                     "", "[::1]", "a_b", "09.1.1.1", "a.test."]
        let ports = ["", ":80", ":443", ":8080", ":0", ":65535", ":65536", ":", ":007"]
        let paths = ["/", "", "/a/b", "/a/../b", "/./", "/%20", "/x#y", "/x?y=1", "/ä", "/a b", "/..", "/a/.", "/.a",
                     "?q", "/x?/../"]
        var generator = SeededGenerator(seed: 0x5EED)
        var taken = 0
        for _ in 0..<10_000 {
            let text = schemes.randomElement(using: &generator)! + hosts.randomElement(using: &generator)!
                + ports.randomElement(using: &generator)! + paths.randomElement(using: &generator)!
            guard let url = HTTPURLCheck.plainURL(text) else { continue }
            taken += 1
            #expect(url.absoluteString == text, "\(text)")
            #expect(Self.fullWay(text) == text, "\(text)")
        }
        // And the check took a good share of them, so that the comparison means something
        #expect(taken > 50)
    }

    @Test func plainSchemeHostAndPortAreFoundationsOnManyGeneratedURLs() {
        // The same pieces, with a fragment, a query or nothing after the authority too
        let schemes = ["http://", "https://", "HTTP://", "http:/", "ftp://"]
        let hosts = ["a.test", "A.test", "127.0.0.1", "1.2.3.256", "127.1", "a..b", "x-y.z", "user@a.test", "b\u{FC}cher.de",
                     "", "[::1]", "a_b", "09.1.1.1", "a.test."]
        let ports = ["", ":80", ":443", ":8080", ":0", ":65535", ":65536", ":", ":007"]
        let tails = ["/", "", "/a/b", "/a/../b", "/%20", "#f", "?q", "/x?y=1", "/ä", "x", ":"]
        var generator = SeededGenerator(seed: 0xA07)
        var taken = 0
        for _ in 0..<10_000 {
            let text = schemes.randomElement(using: &generator)! + hosts.randomElement(using: &generator)!
                + ports.randomElement(using: &generator)! + tails.randomElement(using: &generator)!
            let scheme = HTTPURLCheck.plainScheme(text)
            guard let (host, port) = HTTPURLCheck.plainHostAndPort(text) else {
                #expect(scheme == nil, "\(text)")
                continue
            }
            taken += 1
            let url = URL(string: text)
            #expect(url?.host == host && url?.effectivePort == port, "\(text)")
            #expect(scheme != nil && url?.scheme == scheme, "\(text)")
        }
        #expect(taken > 50)
    }
}
