import Foundation
import Testing

@testable import Transport

/// Which connections go to the address their host resolves to (and so have it checked): libcurl's
/// rules for proxies from the configuration and the environment, `no_proxy`, and mapped hosts.
@Suite struct ResolvedConnectionsTests {
    private static func direct(
        _ url: String, proxy: String? = nil, environment: [String: String] = [:], resolve: [String] = []
    ) throws -> Bool {
        var configuration = CurlTransport.Configuration()
        configuration.proxy = proxy
        configuration.resolve = resolve
        let connections = ResolvedConnections(configuration: configuration, environment: environment)
        return connections.connectsToResolvedAddress(of: try #require(URL(string: url)))
    }

    @Test(arguments: [
        // (url, environment, direct)
        ("https://a.example/", ["http_proxy": "http://proxy:3128"], true),
        ("http://a.example/", ["http_proxy": "http://proxy:3128"], false),
        ("http://a.example/", ["HTTP_PROXY": "http://proxy:3128"], true),
        ("https://a.example/", ["https_proxy": "http://proxy:3128"], false),
        ("https://a.example/", ["HTTPS_PROXY": "http://proxy:3128"], false),
        ("http://a.example/", ["https_proxy": "http://proxy:3128"], true),
        ("http://a.example/", ["all_proxy": "socks5://proxy"], false),
        ("https://a.example/", ["ALL_PROXY": "socks5://proxy"], false),
        ("https://a.example/", ["https_proxy": ""], true),
        ("https://a.example/", [:], true),
    ])
    func theEnvironmentsProxyAppliesByScheme(url: String, environment: [String: String], direct: Bool) throws {
        #expect(try Self.direct(url, environment: environment) == direct)
    }

    @Test(arguments: [
        // (no_proxy, host, direct)
        ("*", "anything.example", true),
        ("example.com", "example.com", true),
        ("example.com", "www.example.com", true),
        (".example.com", "www.example.com", true),
        ("example.com.", "www.example.com", true),
        ("EXAMPLE.com", "www.Example.COM", true),
        ("example.com", "badexample.com", false),
        ("example.com", "example.org", false),
        ("other.org, example.com", "a.example.com", true),
        ("other.org example.com", "a.example.com", true),
        ("10.0.0.0/8", "10.1.2.3", true),
        ("10.0.0.0/8", "11.1.2.3", false),
        ("192.168.1.7", "192.168.1.7", true),
        ("192.168.1.7", "192.168.1.8", false),
        ("fd00::/8", "[fd12::1]", true),
        ("fd00::/8", "[fe80::1]", false),
        ("10.0.0.0/8", "ten.example", false),
    ])
    func noProxyNamesHostsThatGoDirect(noProxy: String, host: String, direct: Bool) throws {
        let environment = ["https_proxy": "http://proxy:3128", "no_proxy": noProxy]
        #expect(try Self.direct("https://\(host)/", environment: environment) == direct)
        let upper = ["https_proxy": "http://proxy:3128", "NO_PROXY": noProxy]
        #expect(try Self.direct("https://\(host)/", environment: upper) == direct)
        // The configured proxy follows no_proxy too.
        #expect(try Self.direct("https://\(host)/", proxy: "http://proxy:3128", environment: ["no_proxy": noProxy])
            == direct)
    }

    @Test func theConfiguredProxyWinsOverTheEnvironment() throws {
        #expect(try !Self.direct("http://a.example/", proxy: "http://proxy:3128"))
        #expect(try !Self.direct("https://a.example/", proxy: "http://proxy:3128"))
        #expect(try Self.direct("https://a.example/", proxy: "", environment: ["https_proxy": "http://proxy:3128"]))
    }

    @Test func aMappedHostIsNotCheckedOnlyOnItsPort() throws {
        #expect(try !Self.direct("http://a.example:8080/", resolve: ["a.example:8080:127.0.0.1"]))
        #expect(try Self.direct("http://a.example:8081/", resolve: ["a.example:8080:127.0.0.1"]))
        #expect(try !Self.direct("https://a.example/", resolve: ["a.example::127.0.0.1"]))
    }
}
