import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheURLSession
@testable import Transport

/// ``HTTPRequest/refusesPrivateAddresses``: ``CurlTransport`` checks the address it actually
/// connects to, so a host name that resolves to a private address when the connection is made is
/// refused before any byte is sent, however it resolved before.
@Suite struct AddressRefusalTests {
    private static func transport(_ configure: (inout CurlTransport.Configuration) -> Void = { _ in }) throws
        -> CurlTransport
    {
        var configuration = CurlTransport.Configuration()
        configuration.proxy = ""
        configure(&configuration)
        return try CurlTransport(configuration: configuration)
    }

    @Test(arguments: ["127.0.0.1", "localhost"])
    func aRequestThatRefusesPrivateAddressesNeverReachesALoopbackOrigin(host: String) async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try Self.transport()
        let url = try #require(URL(string: "http://\(host):\(server.port)/hello"))

        let error = try await #require(throws: TransportError.self) {
            _ = try await transport.fetch(HTTPRequest(url: url, refusesPrivateAddresses: true))
        }

        #expect(error.code == .addressRefused)
        #expect(error.message.contains("http://\(host):\(server.port)/hello"), "\(error.message)")
        #expect(error.message.contains("127.0.0.1") || error.message.contains("::1"), "\(error.message)")
        #expect(server.requests.isEmpty, "the origin was reached: \(server.requests.map(\.path))")
    }

    @Test func theSameRequestWithoutTheRefusalIsSent() async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let (response, body) = try await Self.transport().fetch(HTTPRequest(url: server.url("hello")))
        #expect(response.head.status == 200)
        #expect(String(decoding: body, as: UTF8.self) == "hello")
        #expect(server.requests.count == 1)
    }

    @Test func aConnectionKeptAliveFromAnEarlierRequestIsCheckedToo() async throws {
        // The first request may reach the origin and leaves its connection open; the second, which
        // may not, would reuse it without opening a socket.
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try Self.transport()
        let (first, _) = try await transport.fetch(HTTPRequest(url: server.url("hello")))
        #expect(first.head.status == 200)

        let error = try await #require(throws: TransportError.self) {
            _ = try await transport.fetch(HTTPRequest(url: server.url("hello"), refusesPrivateAddresses: true))
        }

        #expect(error.code == .addressRefused)
        #expect(error.message.contains("127.0.0.1"), "\(error.message)")
        #expect(server.requests.count == 1, "the origin got \(server.requests.count) requests")
    }

    @Test func aHostTheConfigurationMapsItselfIsNotChecked() async throws {
        // `--resolve` and `--connect-to` are the user's own choice of address, like a proxy's.
        let server = try TestOrigin.start()
        defer { server.stop() }
        let resolving = try Self.transport { $0.resolve = ["mapped.invalid:\(server.port):127.0.0.1"] }
        let mappedURL = try #require(URL(string: "http://mapped.invalid:\(server.port)/hello"))
        let (resolved, _) = try await resolving.fetch(HTTPRequest(url: mappedURL, refusesPrivateAddresses: true))
        #expect(resolved.head.status == 200)

        let connecting = try Self.transport { $0.connectTo = ["public.invalid:80:127.0.0.1:\(server.port)"] }
        let connectURL = try #require(URL(string: "http://public.invalid/hello"))
        let (connected, _) = try await connecting.fetch(HTTPRequest(url: connectURL, refusesPrivateAddresses: true))
        #expect(connected.head.status == 200)

        // A mapping for another host or port does not exempt this one.
        let elsewhere = try Self.transport { $0.resolve = ["other.invalid:\(server.port):127.0.0.1"] }
        let error = try await #require(throws: TransportError.self) {
            _ = try await elsewhere.fetch(HTTPRequest(url: server.url("hello"), refusesPrivateAddresses: true))
        }
        #expect(error.code == .addressRefused)
        #expect(server.requests.count == 2)
    }

    @Test(arguments: ["127.0.0.1", "localhost", "[::1]"])
    func theURLSessionTransportRefusesALoopbackOriginBeforeTheTaskStarts(host: String) async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = URLSessionTransport()
        let url = try #require(URL(string: "http://\(host):\(server.port)/hello"))

        let error = try await #require(throws: TransportError.self) {
            _ = try await transport.fetch(HTTPRequest(url: url, refusesPrivateAddresses: true))
        }

        #expect(error.code == .addressRefused)
        #expect(error.message.contains("http://\(host):\(server.port)/hello"), "\(error.message)")
        #expect(server.requests.isEmpty, "the origin was reached: \(server.requests.map(\.path))")
        // Without the refusal the same transport reaches it.
        if host != "[::1]" {
            let (response, _) = try await transport.fetch(HTTPRequest(url: url))
            #expect(response.head.status == 200)
        }
    }
}
