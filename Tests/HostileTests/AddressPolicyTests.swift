import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import Transport
@testable import WebCache

/// A page on a public address cannot make webcache fetch from a private one, however the private
/// address is spelled.
@Suite struct AddressPolicyTests {
    static let privateHosts: [String] = [
        "127.0.0.1", "127.255.255.254", "10.0.0.1", "10.255.255.255", "172.16.0.1", "172.31.255.255",
        "192.168.0.1", "192.168.255.255", "169.254.169.254", "100.64.0.1", "100.127.255.255", "0.0.0.0",
        "[::1]", "[::]", "[fc00::1]", "[fd12:3456::1]", "[fe80::1]", "[febf::1]", "[::ffff:127.0.0.1]",
        "[::ffff:7f00:1]", "[::ffff:10.0.0.1]", "[::ffff:169.254.169.254]",
        "localhost", "LOCALHOST", "localhost.", "api.localhost", "api.localhost.",
        // Other spellings of IPv4 addresses that curl and the C library both accept.
        "2130706433", "0x7f000001", "0x7f.1", "0x7f.0.0.1", "017700000001", "0177.0.0.1", "127.1", "127.0.1",
        "0", "0x0a.0x00.0x00.0x01", "012.1", "3232235521", "2852039166",
        // Percent-encoded and dotted spellings, which curl decodes too.
        "%31%32%37.0.0.1", "%6c%6fcalhost", "127.0.0.1.", "127.0.0.1%2e", "[fe80::1%25eth0]", "[fe80::1%25nosuchif]",
    ]

    static let publicHosts: [String] = [
        "8.8.8.8", "93.184.216.34", "172.15.255.255", "172.32.0.1", "192.169.0.1", "100.63.255.255", "100.128.0.1",
        "169.253.0.1", "11.0.0.1", "[2606:4700::1]", "[2001:db8::1]", "[fec0::1]", "[::ffff:8.8.8.8]",
        "134744072",  // 8.8.8.8 in decimal
    ]

    @Test(arguments: AddressPolicyTests.privateHosts)
    func privateAddressesAreRecognisedInEverySpelling(_ host: String) throws {
        let policy = AddressPolicy()
        let target = try #require(URL(string: "http://\(host)/secret"), "\(host) is not a URL")
        let page = try #require(URL(string: "http://8.8.8.8/page.html"))
        #expect(!policy.allows(target, from: page), "\(host) was allowed from a public page")
        let privatePage = try #require(URL(string: "http://127.0.0.1/page.html"))
        #expect(policy.allows(target, from: privatePage))
    }

    @Test(arguments: AddressPolicyTests.publicHosts)
    func publicAddressesAreAllowed(_ host: String) throws {
        let policy = AddressPolicy()
        let target = try #require(URL(string: "http://\(host)/file"))
        let page = try #require(URL(string: "http://8.8.8.8/page.html"))
        #expect(policy.allows(target, from: page), "\(host) was refused")
    }

    @Test func aPreloadedPublicPageReachesNoPrivateAddress() async throws {
        let port = OriginPort()
        let server = try startOrigin { request in
            guard request.path == "/page.html" else {
                return .text("private data", headers: ["Cache-Control": "max-age=60"])
            }
            let sources = ["http://2130706433:\(port.value)/a.png", "http://0x7f.1:\(port.value)/b.png",
                           "http://[::1]:\(port.value)/c.png", "http://localhost:\(port.value)/d.png",
                           "http://127.0.0.1:\(port.value)/e.png", "http://[::ffff:127.0.0.1]:\(port.value)/f.png"]
            let html = sources.map { "<img src=\"\($0)\">" }.joined() + "<link rel=stylesheet href=/style.css>"
            return cacheablePage(html)
        }
        port.set(server.port)
        defer { server.stop() }
        let factory = try CacheFactory()
        // The page's host resolves (for curl only) to the origin; to the policy it is not private.
        let cache = try factory.make { $0.transportConfiguration.resolve = ["public.test:\(server.port):127.0.0.1"] }
        let report = await cache.preload(["http://public.test:\(server.port)/page.html"], options: quickOptions())
        #expect(report.skipped.count == 6, "\(report.skipped)")
        for problem in report.skipped { #expect(problem.reason.contains("private address"), "\(problem)") }
        // Only the page and its same-host stylesheet were requested.
        #expect(Set(server.requests.map(\.target)) == ["/page.html", "/style.css"])
        await cache.close()
    }
}

extension AddressPolicyTests {
    @Test func aRedirectCannotTakeAPublicPagesRequisiteToAPrivateAddress() async throws {
        let port = OriginPort()
        let server = try startOrigin { request in
            switch request.path {
            case "/page.html": return cacheablePage("<img src=/hop.png><img src=/fine.png>")
            case "/hop.png":
                return OriginResponse(status: 302, headers: ["Location": "http://localhost:\(port.value)/admin"])
            default: return .text("data", headers: ["Cache-Control": "max-age=60"])
            }
        }
        port.set(server.port)
        defer { server.stop() }
        let factory = try CacheFactory()
        let cache = try factory.make { $0.transportConfiguration.resolve = ["public.test:\(server.port):127.0.0.1"] }
        let report = await cache.preload(["http://public.test:\(server.port)/page.html"], options: quickOptions())
        #expect(!server.requests.contains { $0.path == "/admin" }, "the redirect reached the private address")
        let hop = "http://public.test:\(server.port)/hop.png"
        let refused = report.failures.contains { $0.url == hop && $0.reason.contains("private address") }
        #expect(refused, "\(report.failures)")
        #expect(report.completed == 2)
        await cache.close()
    }
}
