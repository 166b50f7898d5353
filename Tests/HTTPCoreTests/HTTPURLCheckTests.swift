import Foundation
import Testing

@testable import HTTPCore

/// Which URLs can be requested, and what is said about those that cannot.
struct HTTPURLCheckTests {
    @Test(arguments: [
        ("http://a.test/", "http://a.test/"),
        ("HTTPS://A.test:443/x?y=1#z", "HTTPS://A.test:443/x?y=1#z"),
        ("http://127.0.0.1:1/", "http://127.0.0.1:1/"),
        ("http://127.0.0.1:65535/", "http://127.0.0.1:65535/"),
        ("http://127.1/", "http://127.1/"),
        ("http://[::1]:8080/", "http://[::1]:8080/"),
        ("http://[fe80::1%25eth0]/", "http://[fe80::1%25eth0]/"),
        ("http://[::ffff:192.0.2.1]/", "http://[::ffff:192.0.2.1]/"),
        ("http://my_host.example./", "http://my_host.example./"),
        ("http://my~host/", "http://my~host/"),
        ("http://b%C3%BCcher.example/", "http://b%C3%BCcher.example/"),
        // Internationalised names become punycode; Unicode and percent-encoded paths stay usable.
        ("http://bücher.example/straße", "http://xn--bcher-kva.example/stra%C3%9Fe"),
        ("https://日本.jp/パス?q=値", "https://xn--wgv71a.jp/%E3%83%91%E3%82%B9?q=%E5%80%A4"),
        ("http://a.test/%E2%82%AC%20x", "http://a.test/%E2%82%AC%20x"),
        // Escapes are kept beside characters that need encoding.
        ("http://a.test/€%20x y", "http://a.test/%E2%82%AC%20x%20y"),
    ])
    func acceptsURLsThatCanBeRequested(text: String, absolute: String) throws {
        #expect(try HTTPURLCheck.url(text).absoluteString == absolute)
    }

    @Test(arguments: [
        ("http://127.0.0.1:-1/", "is not a valid URL"),
        ("ftp://a.test/file", "is not an http or https URL"),
        ("page.html", "is not an absolute http or https URL"),
        ("http://", "has no host"),
        ("https://", "has no host"),
        ("http:///path", "has no host"),
        ("http://127.0.0.1:99999/", "has the port 99999, which is not a number from 1 to 65535"),
        ("http://127.0.0.1:0/", "has the port 0, which is not a number from 1 to 65535"),
        ("http://bad_host!.com/", "has the host 'bad_host!.com', which is not a valid host name or IP address"),
        ("http://a..b/", "has the host 'a..b', which is not a valid host name or IP address"),
        ("http://a%2Fb/", "has the host 'a%2Fb', which is not a valid host name or IP address"),
        ("http://bü!cher.example/",
         "has the host 'xn--b!cher-3ya.example', which is not a valid host name or IP address"),
        ("http://[zz::1]/", "has the host '[zz::1]', which is not a valid IPv6 address"),
        ("http://[192.0.2.1]/", "has the host '[192.0.2.1]', which is not a valid IPv6 address"),
        ("http://[example.com]/", "has the host '[example.com]', which is not a valid IPv6 address"),
        ("http://[fe80::1%25]/", "has the host '[fe80::1%25]', which is not a valid IPv6 address"),
        ("http://1.2.3.999/", "has the host '1.2.3.999', which is not a valid IPv4 address"),
    ])
    func refusesURLsThatCannotBeRequested(text: String, reason: String) {
        #expect(throws: HTTPURLCheck.Problem(reason: reason)) { try HTTPURLCheck.url(text) }
    }

    @Test func checksAURLResolvedAgainstABase() throws {
        let base = try #require(URL(string: "http://a.test/dir/"))
        #expect(HTTPURLCheck.problem(with: try #require(URL(string: "page.html", relativeTo: base))) == nil)
        let elsewhere = try #require(URL(string: "//a.test:70000/x", relativeTo: base))
        #expect(HTTPURLCheck.problem(with: elsewhere)?.reason
            == "has the port 70000, which is not a number from 1 to 65535")
    }
}
