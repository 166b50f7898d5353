import Foundation
import Testing
import WebCacheTestSupport

@testable import WebCache

/// `WebCache.resolve` refuses, naming the input, a URL whose host or port no connection can use,
/// and keeps internationalised hosts and Unicode or percent-encoded paths working.
struct URLResolutionTests {
    private let folder: TemporaryFolder
    private let cache: WebCache

    init() throws {
        folder = try TemporaryFolder()
        var configuration = WebCache.Configuration(environment: [:])
        configuration.storePath = folder.path("store.sqlite")
        configuration.instanceURL = URL(string: "http://instance.test/portal/")
        cache = try WebCache(configuration: configuration)
    }

    /// A reference resolved again (kept, or dropped once more than the kept number were resolved)
    /// gives the same URL; one that failed fails again with the same message.
    @Test func resolvesAReferenceAgainAlike() async throws {
        let references = (0..<(ResolvedReferences.limit + 10)).map { "item/\($0)?q=\($0)" }
            + ["http://a.test/x", " https://B.test:443/y "]
        let first = try references.map { try cache.resolve($0) }
        let again = try references.map { try cache.resolve($0) }
        #expect(first == again)
        #expect(first[0].absoluteString == "http://instance.test/portal/item/0?q=0")
        for _ in 0..<2 {
            let error = #expect(throws: WebCacheError.self) { try cache.resolve("http://127.0.0.1:0/") }
            #expect(error?.message == "'http://127.0.0.1:0/' has the port 0, which is not a number from 1 to 65535.")
        }
        await cache.close()
    }

    /// References are trimmed of whitespace as Foundation's `CharacterSet.whitespaces` does, also when
    /// the check on the bytes takes the quick way (a visible ASCII character at each end).
    @Test(arguments: [
        "http://a.test/", " http://a.test/", "http://a.test/ ", "\thttp://a.test/\t", "\u{00A0}http://a.test/",
        "http://a.test/\u{2003}", "http://a.test/é", "éhttp://a.test/", "", " ", "x", "\u{3000}",
        "http://a.test/\u{00A0} ", "http://a.test/ x",
    ])
    func trimsReferencesAsFoundationDoes(reference: String) async {
        #expect(WebCache.trimmingWhitespace(reference) == reference.trimmingCharacters(in: .whitespaces))
        await cache.close()
    }

    @Test(arguments: [
        ("http://127.0.0.1:99999/",
         "'http://127.0.0.1:99999/' has the port 99999, which is not a number from 1 to 65535."),
        ("http://127.0.0.1:0/", "'http://127.0.0.1:0/' has the port 0, which is not a number from 1 to 65535."),
        ("http://bad_host!.com/",
         "'http://bad_host!.com/' has the host 'bad_host!.com', which is not a valid host name or IP address."),
        ("http://[zz::1]/", "'http://[zz::1]/' has the host '[zz::1]', which is not a valid IPv6 address."),
        ("http://", "'http://' has no host."),
        ("https://", "'https://' has no host."),
        ("http://127.0.0.1:-1/", "'http://127.0.0.1:-1/' is not a valid URL."),
        ("ftp://a.test/file", "'ftp://a.test/file' is not an http or https URL."),
        ("//instance.test:70000/x",
         "'//instance.test:70000/x' has the port 70000, which is not a number from 1 to 65535."),
    ])
    func refusesAURLNoConnectionCanUseNamingIt(reference: String, message: String) async {
        let error = #expect(throws: WebCacheError.self) { try cache.resolve(reference) }
        #expect(error?.code == .invalidURL)
        #expect(error?.message == message)
        await cache.close()
    }

    @Test(arguments: [
        ("http://bücher.example/straße", "http://xn--bcher-kva.example/stra%C3%9Fe"),
        ("http://a.test/%E2%82%AC%20x", "http://a.test/%E2%82%AC%20x"),
        ("http://[::1]:8080/", "http://[::1]:8080/"),
        ("nav/ä", "http://instance.test/portal/nav/%C3%A4"),
    ])
    func keepsURLsThatCanBeRequested(reference: String, resolved: String) async throws {
        #expect(try cache.resolve(reference).absoluteString == resolved)
        await cache.close()
    }
}
