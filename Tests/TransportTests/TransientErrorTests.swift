import Foundation
import HTTPCore
import LocalOrigin
import Testing
import WebCacheTestSupport

@testable import Transport

/// Which failures may pass when the request is sent again (``TransportError/isTransient``).
@Suite struct TransientErrorTests {
    private func failure(_ url: URL) async throws -> TransportError {
        let transport = try CurlTransport(configuration: CurlTransport.Configuration())
        do {
            _ = try await transport.fetch(HTTPRequest(url: url))
        } catch let error as TransportError {
            return error
        }
        throw TransportError(code: .networkError, message: "The request to \(url) did not fail.")
    }

    @Test func aURLLibcurlRefusesIsPermanent() async throws {
        let error = try await failure(try #require(URL(string: "http://bad_host!.localhost/")))
        #expect(error.code == .invalidRequest)
        #expect(error.curlCode == 3)
        #expect(!error.isTransient)
    }

    @Test func anAnswerThatIsNotHTTPIsPermanent() async throws {
        let server = OriginServer { request in TestOrigin.faulty(request) }
        try server.start()
        defer { server.stop() }
        let error = try await failure(server.url("not-http"))
        #expect(error.curlCode == 1)
        #expect(!error.isTransient)
    }

    @Test func aRefusedConnectionIsTransient() async throws {
        let refusing = try RefusingPort()
        let error = try await failure(try #require(URL(string: "http://127.0.0.1:\(refusing.port)/")))
        #expect(error.code == .connectFailed)
        #expect(error.isTransient)
    }

    @Test(arguments: [
        (TransportError.Code.timedOut, true), (.protocolError, true), (.networkError, true), (.tls, true),
        (.invalidRequest, false), (.bodyTooLarge, false), (.headerTooLarge, false), (.addressRefused, false),
    ])
    func limitsRefusalsAndRequestsThatCannotBeSentArePermanent(code: TransportError.Code, transient: Bool) {
        #expect(TransportError(code: code, message: "The request failed.").isTransient == transient)
    }
}
