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
