import Foundation
import HTTPCore
import LocalOrigin
import Testing
@testable import Transport

/// Servers that misbehave: every failure is a ``TransportError`` of the right kind naming the URL.
@Suite struct FaultTests {
    private func failure(_ path: String, maxHeaderBytes: Int = 256 * 1024) async throws -> TransportError? {
        let server = OriginServer { request in TestOrigin.faulty(request) }
        try server.start()
        defer { server.stop() }
        var configuration = CurlTransport.Configuration()
        configuration.maxHeaderBytes = maxHeaderBytes
        let transport = try CurlTransport(configuration: configuration)
        let url = server.url(path)
        do {
            _ = try await transport.fetch(HTTPRequest(url: url))
            return nil
        } catch let error as TransportError {
            #expect(error.message.contains(url.absoluteString))
            return error
        }
    }

    @Test func connectionResetMidBodyIsAProtocolError() async throws {
        let error = try await failure("reset-mid-body")
        #expect(error?.code == .protocolError || error?.code == .networkError)
        #expect(error?.curlCode != nil)
    }

    @Test func bodyShorterThanContentLengthIsAProtocolError() async throws {
        let error = try await failure("short-body")
        #expect(error?.code == .protocolError)
    }

    @Test func enormousHeadIsRefusedOverTheLimit() async throws {
        let error = try await failure("enormous-head", maxHeaderBytes: 64 * 1024)
        #expect(error?.code == .headerTooLarge)
        #expect(error?.message.contains("65536") == true)
    }

    @Test func somethingThatIsNotHTTPIsAProtocolError() async throws {
        let error = try await failure("not-http")
        #expect(error?.code == .protocolError)
    }
}
