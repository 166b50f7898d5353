import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Testing
import Transport
import WebCacheTestSupport
@testable import WebCache

/// What a preload reaches: denied and allowed hosts, link depth, and private addresses.
@Suite struct PreloadScopeTests {
    /// A page on 127.0.0.1 referencing one image there and one on `localhost` (the same server, another host).
    private static func twoHostRig() throws -> PreloadRig {
        try PreloadRig.start { request in
            switch request.path {
            case "/index.html":
                let port = request.headers["Host"]?.split(separator: ":").last ?? ""
                return .text("<img src=\"/here.png\"><img src=\"http://localhost:\(port)/there.png\">",
                             contentType: "text/html")
            default:
                return OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(100)))
            }
        }
    }

    @Test(arguments: [
        (denied: Set(["localhost"]), allowed: Set<String>()),
        (denied: Set<String>(), allowed: Set(["127.0.0.1"])),
        // Hosts match in any case.
        (denied: Set(["LocalHost"]), allowed: Set<String>()),
    ])
    func hostsOutsideTheScopeAreSkipped(denied: Set<String>, allowed: Set<String>) async throws {
        let rig = try Self.twoHostRig()
        var options = PreloadOptions()
        options.deniedHosts = denied
        options.allowedHosts = allowed
        let events = PreloadEventLog()

        let report = await rig.cache.preload(["index.html"], options: options, events: events.handler)

        let skippedURL = "http://localhost:\(rig.server.port)/there.png"
        #expect(Array(events.skipped.keys) == [skippedURL])
        #expect(events.skipped[skippedURL]?.contains("localhost") == true)
        #expect(report.skipped.map(\.url) == [skippedURL])
        #expect(report.failures.isEmpty)
        #expect(Set(rig.requestCounts.keys) == ["/index.html", "/here.png"])
        await rig.stop()
    }

    /// A denied host is never fetched from: a given page on it is skipped too, while the given pages
    /// on other hosts load (an allowed-hosts list, by contrast, leaves the given pages alone).
    @Test func aGivenPageOnADeniedHostIsSkipped() async throws {
        let rig = try Self.twoHostRig()
        var options = PreloadOptions()
        options.deniedHosts = ["LOCALHOST"]
        let events = PreloadEventLog()
        let denied = "http://localhost:\(rig.server.port)/index.html"

        let report = await rig.cache.preload(["index.html", denied], options: options, events: events.handler)

        #expect(report.skipped.map(\.url).contains(denied), "\(report.skipped)")
        #expect(events.skipped[denied]?.contains("the host localhost is denied") == true, "\(events.skipped)")
        #expect(report.failures.isEmpty)
        #expect(report.pages == 1)
        #expect(try rig.cache.store.entry(url: denied) == nil)
        #expect(rig.requestCounts["/index.html"] == 1)
        await rig.stop()
    }

    @Test(arguments: [
        ("localhost", "localhost"), (" Example.TEST ", "example.test"), ("[::1]", "::1"), ("::1", "::1"),
        ("[FE80::1]", "fe80::1"), ("Bücher.example", "xn--bcher-kva.example"), ("a.test.", "a.test."),
    ])
    func optionHostsAreComparedAsURLsGiveThem(given: String, compared: String) {
        #expect(PreloadOptions.comparableHost(given) == compared)
    }

    @Test func bothHostsAreFetchedWhenNothingLimitsThem() async throws {
        let rig = try Self.twoHostRig()

        let report = await rig.cache.preload(["index.html"])

        #expect(report.skipped.isEmpty)
        #expect(report.completed == 3)
        #expect(Set(rig.requestCounts.keys) == ["/index.html", "/here.png", "/there.png"])
        await rig.stop()
    }

    // MARK: - Depth

    @Test(arguments: [0, 1])
    func linksAreFollowedOnTheSameSiteUpToTheDepth(depth: Int) async throws {
        let rig = try PreloadRig.start { request in
            let port = request.headers["Host"]?.split(separator: ":").last ?? ""
            switch request.path {
            case "/index.html":
                return .text("<a href=\"second.html\">2</a><a href=\"http://localhost:\(port)/elsewhere.html\">x</a>",
                             contentType: "text/html")
            case "/second.html":
                return .text("<img src=\"second.png\"><a href=\"third.html\">3</a>", contentType: "text/html")
            case "/second.png":
                return OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(100)))
            default:
                return .text("<p>page</p>", contentType: "text/html")
            }
        }
        var options = PreloadOptions()
        options.depth = depth

        let report = await rig.cache.preload(["index.html"], options: options)

        let expected: Set<String> = depth == 0 ? ["/index.html"] : ["/index.html", "/second.html", "/second.png"]
        #expect(Set(rig.requestCounts.keys) == expected)
        #expect(report.pages == depth + 1)
        #expect(report.failures.isEmpty)
        if depth == 1 {
            #expect(try rig.cache.store.pageStatus(forPage: rig.url("second.html")).isComplete)
        }
        await rig.stop()
    }

    /// `www.site.localhost` and `cdn.site.localhost` are one site (curl sends both to 127.0.0.1, with no
    /// name lookup); a followed link obeys the denied and allowed hosts as requisites do.
    @Test(arguments: [
        (denied: Set(["cdn.site.localhost"]), allowed: Set<String>()),
        (denied: Set<String>(), allowed: Set(["www.site.localhost"])),
    ])
    func followedLinksStayWithinTheAllowedHosts(denied: Set<String>, allowed: Set<String>) async throws {
        let rig = try PreloadRig.start { request in
            let host = request.headers["Host"] ?? ""
            let port = host.split(separator: ":").last ?? ""
            switch (host.hasPrefix("www."), request.path) {
            case (true, "/index.html"):
                return .text("""
                    <a href="second.html">same host</a><a href="http://cdn.site.localhost:\(port)/other.html">cdn</a>
                    """, contentType: "text/html")
            default:
                return .text("<p>\(host)\(request.path)</p>", contentType: "text/html")
            }
        }
        var options = PreloadOptions()
        options.depth = 1
        options.deniedHosts = denied
        options.allowedHosts = allowed
        let events = PreloadEventLog()
        let page = "http://www.site.localhost:\(rig.server.port)/index.html"

        let report = await rig.cache.preload([page], options: options, events: events.handler)

        let hosts = rig.server.requests.map { ($0.headers["Host"] ?? "") + $0.path }
        let port = rig.server.port
        #expect(hosts.sorted() == ["www.site.localhost:\(port)/index.html", "www.site.localhost:\(port)/second.html"])
        #expect(Array(events.skipped.keys) == ["http://cdn.site.localhost:\(port)/other.html"])
        #expect(report.pages == 2)
        #expect(report.failures.isEmpty)
        await rig.stop()
    }

    // MARK: - Private addresses

    @Test(arguments: [
        ("0.1.2.3", true), ("10.0.0.1", true), ("127.0.0.1", true), ("127.255.0.9", true),
        ("169.254.169.254", true), ("172.16.0.1", true), ("172.31.255.255", true), ("192.168.1.1", true),
        ("100.64.0.1", true), ("100.127.255.255", true),
        ("8.8.8.8", false), ("93.184.216.34", false), ("172.15.255.255", false), ("172.32.0.0", false),
        ("192.167.1.1", false), ("100.63.255.255", false), ("100.128.0.0", false), ("169.253.0.1", false),
        ("11.0.0.1", false),
    ])
    func ipv4Classification(address: String, isPrivate: Bool) throws {
        let parts = address.split(separator: ".").compactMap { UInt32($0) }
        try #require(parts.count == 4)
        let value = parts[0] << 24 | parts[1] << 16 | parts[2] << 8 | parts[3]
        #expect(NetworkAddress.isPrivate(ipv4: value) == isPrivate)
        #expect(NetworkAddress.isPrivate(numeric: address) == isPrivate)
        #expect(AddressPolicy().isPrivate(host: address) == isPrivate)
    }

    @Test(arguments: [
        ("[::1]", true), ("[::]", true), ("[fc00::1]", true), ("[fd12:3456::1]", true), ("[fe80::1]", true),
        ("[febf::1]", true), ("[::ffff:127.0.0.1]", true), ("[::ffff:10.1.2.3]", true),
        ("[2001:db8::1]", false), ("[2606:4700::1111]", false), ("[fec0::1]", false), ("[::ffff:8.8.8.8]", false),
        ("localhost", true), ("app.localhost", true),
    ])
    func hostClassification(host: String, isPrivate: Bool) {
        #expect(AddressPolicy().isPrivate(host: host) == isPrivate)
        if host.hasPrefix("[") {
            #expect(NetworkAddress.isPrivate(numeric: String(host.dropFirst().dropLast())) == isPrivate)
        }
    }

    @Test(arguments: ["", "localhost", "example.com", "1.2.3", "::g", "[::1]"])
    func textThatIsNoNumericAddressIsNotPublic(text: String) {
        #expect(NetworkAddress.isPrivate(numeric: text))
    }

    @Test(arguments: [
        ("http://93.184.216.34/page.html", "http://127.0.0.1/admin", false),
        ("http://93.184.216.34/page.html", "http://localhost:8080/x.png", false),
        ("http://93.184.216.34/page.html", "http://169.254.169.254/latest/meta-data", false),
        ("http://93.184.216.34/page.html", "http://[::1]/x.css", false),
        ("http://93.184.216.34/page.html", "http://10.0.0.5/x.css", false),
        ("http://93.184.216.34/page.html", "http://8.8.8.8/x.css", true),
        ("http://127.0.0.1:8080/page.html", "http://127.0.0.1:8080/x.css", true),
        ("http://127.0.0.1:8080/page.html", "http://localhost:9090/x.css", true),
        ("http://10.0.0.1/page.html", "http://8.8.8.8/x.css", true),
    ])
    func publicPagesMayNotReachPrivateAddresses(page: String, target: String, allowed: Bool) throws {
        let pageURL = try #require(URL(string: page))
        let targetURL = try #require(URL(string: target))
        #expect(AddressPolicy().allows(targetURL, from: pageURL) == allowed)
    }

    /// A page on a public address (203.0.113.10, a documentation address: curl's `--connect-to` sends
    /// the connection to the local origin, so nothing leaves the machine) may not make webcache fetch
    /// from loopback addresses, while its own public host stays allowed.
    @Test func aPublicPageCannotReachLoopbackAddresses() async throws {
        let folder = try TemporaryFolder()
        let server = OriginServer { request in
            switch request.path {
            case "/index.html":
                let port = request.headers["X-Origin-Port"] ?? ""
                return .text("""
                    <img src="/public.png"><img src="http://127.0.0.1:\(port)/secret.png">
                    <img src="http://localhost:\(port)/secret-too.png"><img src="http://[::1]:\(port)/secret-v6.png">
                    """, contentType: "text/html")
            default:
                return Self.image()
            }
        }
        try server.start()
        var configuration = WebCache.Configuration(environment: [:])
        configuration.storePath = folder.storePath
        configuration.transportConfiguration.connectTo = ["203.0.113.10:80:127.0.0.1:\(server.port)"]
        configuration.transportConfiguration.defaultHeaders = ["X-Origin-Port": "\(server.port)"]
        configuration.transportConfiguration.proxy = ""
        let cache = try WebCache(configuration: configuration)
        let events = PreloadEventLog()

        let report = await cache.preload(["http://203.0.113.10/index.html"], events: events.handler)

        #expect(report.failures.isEmpty, "\(report.failures)")
        #expect(server.requests.map(\.path).sorted() == ["/index.html", "/public.png"])
        #expect(server.requests.allSatisfy { $0.headers["Host"] == "203.0.113.10" })
        let port = server.port
        let refused: Set<String> = ["http://127.0.0.1:\(port)/secret.png", "http://localhost:\(port)/secret-too.png",
                                    "http://[::1]:\(port)/secret-v6.png"]
        #expect(Set(events.skipped.keys) == refused)
        for (url, reason) in events.skipped {
            #expect(reason.contains("private address"), "\(url): \(reason)")
        }
        #expect(Set(report.skipped.map(\.url)) == refused)
        await cache.close()
        server.stop()
        folder.remove()
    }

    /// A public resource that redirects to a loopback address is not followed there.
    @Test func aRedirectFromAPublicAddressToLoopbackIsNotFollowed() async throws {
        let folder = try TemporaryFolder()
        let server = OriginServer { request in
            let port = request.headers["X-Origin-Port"] ?? ""
            switch request.path {
            case "/index.html":
                return .text("<img src=\"/moved.png\"><img src=\"/renamed.png\">", contentType: "text/html")
            case "/moved.png":
                return OriginResponse(status: 302, headers: ["Location": "http://127.0.0.1:\(port)/secret.png"])
            case "/renamed.png":
                return OriginResponse(status: 301, headers: ["Location": "/public.png"])
            default:
                return Self.image()
            }
        }
        try server.start()
        var configuration = WebCache.Configuration(environment: [:])
        configuration.storePath = folder.storePath
        configuration.transportConfiguration.connectTo = ["203.0.113.10:80:127.0.0.1:\(server.port)"]
        configuration.transportConfiguration.defaultHeaders = ["X-Origin-Port": "\(server.port)"]
        configuration.transportConfiguration.proxy = ""
        let cache = try WebCache(configuration: configuration)
        let events = PreloadEventLog()

        let report = await cache.preload(["http://203.0.113.10/index.html"], events: events.handler)

        #expect(server.requests.map(\.path).sorted() == ["/index.html", "/moved.png", "/public.png", "/renamed.png"])
        #expect(server.requests.allSatisfy { $0.headers["Host"] == "203.0.113.10" })
        #expect(report.failures.map(\.url) == ["http://203.0.113.10/moved.png"])
        let reason = try #require(events.failures["/moved.png"])
        #expect(reason.contains("127.0.0.1") && reason.contains("private address"), "\(reason)")
        #expect(Set(events.fetchedPaths) == ["/index.html", "/renamed.png"])
        await cache.close()
        server.stop()
        folder.remove()
    }

    private static func image() -> OriginResponse {
        OriginResponse(headers: ["Content-Type": "image/png"], body: .bytes(preloadFiller(100)))
    }

    @Test func aURLWithoutAHostIsNeverAllowed() throws {
        let page = try #require(URL(string: "http://127.0.0.1/page.html"))
        let target = try #require(URL(string: "http:///x.png"))
        #expect(!AddressPolicy().allows(target, from: page))
    }
}
