import Foundation
import HTTPCore
import LocalOrigin
import Testing
@testable import Transport

/// Behaviour specific to ``CurlTransport``: curl-style options and their validation.
@Suite struct CurlTransportTests {
    @Test func resolveRoutesAMadeUpHostToTheOrigin() async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        var configuration = CurlTransport.Configuration()
        configuration.resolve = ["origin.invalid:\(server.port):127.0.0.1"]
        let transport = try CurlTransport(configuration: configuration)
        let url = try #require(URL(string: "http://origin.invalid:\(server.port)/hello"))
        let (response, body) = try await transport.fetch(HTTPRequest(url: url))
        #expect(response.head.status == 200)
        #expect(String(decoding: body, as: UTF8.self) == "hello")
        // The configuration chose the address, not the host's resolution: none is reported.
        #expect(response.remoteAddress == nil)
        #expect(server.requests.last?.headers["Host"] == "origin.invalid:\(server.port)")
    }

    @Test func theAddressAResolvedHostConnectedToIsReported() async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try CurlTransport(configuration: CurlTransport.Configuration())
        let url = try #require(URL(string: "http://localhost:\(server.port)/hello"))
        let (response, _) = try await transport.fetch(HTTPRequest(url: url))
        #expect(response.remoteAddress == "127.0.0.1")
    }

    @Test func connectToRoutesAMadeUpHostAndPortToTheOrigin() async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        var configuration = CurlTransport.Configuration()
        configuration.connectTo = ["www.origin.invalid:80:127.0.0.1:\(server.port)"]
        let transport = try CurlTransport(configuration: configuration)
        let url = try #require(URL(string: "http://www.origin.invalid/hello"))
        let (_, body) = try await transport.fetch(HTTPRequest(url: url))
        #expect(String(decoding: body, as: UTF8.self) == "hello")
        #expect(server.requests.last?.headers["Host"] == "www.origin.invalid")
    }

    @Test func defaultHeadersAndUserAgentAreSentAndRequestHeadersWin() async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        var configuration = CurlTransport.Configuration()
        configuration.defaultHeaders = ["X-Default": "d", "Accept-Language": "en"]
        configuration.userAgent = "webcache-tests"
        let transport = try CurlTransport(configuration: configuration)
        _ = try await transport.fetch(HTTPRequest(url: server.url("hello"), headers: ["Accept-Language": "de"]))
        let logged = try #require(server.requests.last)
        #expect(logged.headers["X-Default"] == "d")
        #expect(logged.headers["Accept-Language"] == "de")
        #expect(logged.headers["User-Agent"] == "webcache-tests")
        #expect(logged.headers["Accept-Encoding"] != nil)
    }

    @Test(arguments: [
        (["nohost"], [String]()),
        (["host:notaport:1.2.3.4"], []),
        ([], ["a:80:b"]),
    ])
    func malformedRoutingEntriesAreRejectedByName(resolve: [String], connectTo: [String]) {
        var configuration = CurlTransport.Configuration()
        configuration.resolve = resolve
        configuration.connectTo = connectTo
        let entry = (resolve + connectTo)[0]
        #expect {
            _ = try CurlTransport(configuration: configuration)
        } throws: { error in
            guard let error = error as? TransportError else { return false }
            return error.code == .invalidRequest && error.message.contains("'\(entry)'")
        }
    }

    @Test func explicitProxyReceivesTheRequestInAbsoluteForm() async throws {
        let proxy = try TestOrigin.start()
        defer { proxy.stop() }
        var configuration = CurlTransport.Configuration()
        configuration.proxy = proxy.baseURL.absoluteString
        let transport = try CurlTransport(configuration: configuration)
        let url = try #require(URL(string: "http://proxied.invalid/page?x=1"))
        let (response, _) = try await transport.fetch(HTTPRequest(url: url))
        #expect(response.head.status == 404)
        #expect(proxy.requests.last?.target == "http://proxied.invalid/page?x=1")
    }

    @Test func headerValuesWithLineBreaksAreRefusedWithoutEchoingThem() async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try CurlTransport()
        let request = HTTPRequest(url: server.url("hello"), headers: ["Authorization": "Bearer secret\r\nX-Evil: 1"])
        do {
            _ = try await transport.send(request)
            Issue.record("A header with a line break was sent.")
        } catch let error as TransportError {
            #expect(error.code == .invalidRequest)
            #expect(error.message.contains("Authorization"))
            #expect(!error.description.contains("secret"))
        }
        #expect(server.requestCount == 0)
    }

    @Test func unknownHostFailsWithHostNotFound() async throws {
        let transport = try CurlTransport()
        let url = try #require(URL(string: "http://no-such-host.invalid/x"))
        await #expect {
            _ = try await transport.send(HTTPRequest(url: url))
        } throws: { error in
            (error as? TransportError)?.code == .hostNotFound
                && (error as? TransportError)?.message.contains(url.absoluteString) == true
        }
    }

    /// The handle of a transfer whose host did not resolve is not kept for the next: libcurl refuses
    /// a reset one its buffer size (seen as "libcurl refused an option" for the retry and the next request).
    @Test func aFailedResolutionLeavesNothingBehindForTheNextRequests() async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try CurlTransport()
        let url = try #require(URL(string: "http://no-such-host.invalid/x"))
        for _ in 0..<3 {
            await #expect {
                _ = try await transport.send(HTTPRequest(url: url))
            } throws: { error in
                (error as? TransportError)?.code == .hostNotFound
            }
        }
        let response = try await transport.send(HTTPRequest(url: server.url("generated?size=100")))
        #expect(response.head.status == 200)
        #expect(try await response.body.collect().count == 100)
    }

    @Test func responsesOutliveTheTransport() async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        var response: TransportResponse?
        do {
            let transport = try CurlTransport()
            response = try await transport.send(HTTPRequest(url: server.url("generated?size=300000")))
        }
        let body = try await #require(response).body.collect()
        #expect(body.count == 300_000)
    }

    /// A transfer paused because its consumer is slow is not "idle": it must survive a pause
    /// longer than the idle timeout.
    @Test func aPausedTransferOutlivesTheIdleTimeout() async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        var configuration = CurlTransport.Configuration()
        configuration.idleTimeout = .seconds(1)
        configuration.bodyBufferBytes = 64 * 1024
        let transport = try CurlTransport(configuration: configuration)
        let size = 8 * 1024 * 1024
        let response = try await transport.send(HTTPRequest(url: server.url("generated?size=\(size)")))
        try await Task.sleep(for: .milliseconds(2500))
        let body = try await response.body.collect()
        #expect(body.count == size)
    }
}
