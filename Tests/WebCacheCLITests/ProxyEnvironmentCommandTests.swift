import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

/// The real `webcache` executable and the proxy variables of its environment, which the transport
/// reads once when it is made: `http_proxy` sends requests through the proxy, `no_proxy` exempts the
/// hosts it names, and without either a request goes straight to its host.
@Suite(.timeLimit(.minutes(3)))
final class ProxyEnvironmentCommandTests: Sendable {
    let folder: TemporaryFolder
    /// Stands for a proxy: answers every request with the target it was sent, which a client sends
    /// to a proxy as the whole URL and to an origin as the path alone.
    let proxy: OriginServer

    init() throws {
        folder = try TemporaryFolder()
        proxy = OriginServer { request in
            .text("target \(request.target)", headers: ["Cache-Control": "max-age=600"])
        }
        try proxy.start()
    }

    deinit {
        proxy.stop()
    }

    private func get(_ url: String, environment: [String: String]) async throws -> WebcacheRunner.Result {
        let runner = WebcacheRunner(home: folder, extraEnvironment: environment)
        return try await runner.run(["get", url, "--store", folder.path("store-\(UUID().uuidString).sqlite")])
    }

    @Test func httpProxyInTheEnvironmentCarriesTheRequest() async throws {
        // Given a host that does not resolve, and http_proxy naming the stand-in proxy
        let environment = ["http_proxy": proxy.baseURL.absoluteString]

        // When it is fetched
        let result = try await get("http://proxied.invalid/page", environment: environment)

        // Then the proxy was asked for the whole URL and its answer is the body
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout == "target http://proxied.invalid/page")
    }

    @Test func noProxyExemptsTheHostsItNames() async throws {
        // Given the same proxy, with the host named by no_proxy
        let environment = ["http_proxy": proxy.baseURL.absoluteString, "no_proxy": "proxied.invalid"]

        // When it is fetched
        let result = try await get("http://proxied.invalid/page", environment: environment)

        // Then the request went to the host itself, which does not resolve, and not to the proxy
        #expect(result.exitCode != 0)
        #expect(result.stderr.contains("proxied.invalid"), "\(result.stderr)")
        #expect(proxy.requests.isEmpty)
    }

    @Test func withoutProxyVariablesARequestGoesStraightToItsHost() async throws {
        // When the stand-in is fetched as an origin, with no proxy variable set
        let result = try await get(proxy.url("/direct").absoluteString, environment: [:])

        // Then it was sent the path alone, as an origin is
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout == "target /direct")
    }
}
