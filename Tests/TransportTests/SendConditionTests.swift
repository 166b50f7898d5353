import Dispatch
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import WebCacheURLSession
@testable import Transport

/// ``HTTPRequest/sendCondition``: a request that waits for a connection is withdrawn, not sent, when
/// its condition no longer holds as it is about to leave.
@Suite(.timeLimit(.minutes(2)))
struct SendConditionTests {
    /// An origin whose `/held` answers only once `release` is signalled, after signalling `arrived`.
    final class HeldOrigin: Sendable {
        let arrived = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let server: OriginServer

        init() throws {
            let arrived = arrived
            let release = release
            server = OriginServer { request in
                if request.path == "/held" {
                    arrived.signal()
                    release.wait()
                }
                return .text("answer for \(request.path)")
            }
            try server.start()
        }
    }

    /// A transport with one connection in all, so that a second request waits for the first's.
    private func oneConnection() throws -> CurlTransport {
        var configuration = CurlTransport.Configuration()
        configuration.proxy = ""
        configuration.maxConnections = 1
        configuration.maxConnectionsPerHost = 1
        return try CurlTransport(configuration: configuration)
    }

    @Test func aRequestWaitingForAConnectionIsWithdrawnWhenItsConditionNoLongerHolds() async throws {
        let origin = try HeldOrigin()
        defer { origin.server.stop() }
        let transport = try oneConnection()
        let signedIn = Atomic<Bool>(true)
        // Given: the only connection busy with a held request, and a second request behind it
        let first = Task { try await transport.fetch(HTTPRequest(url: origin.server.url("held"))) }
        await Task.detached { origin.arrived.wait() }.value
        var request = HTTPRequest(url: origin.server.url("second"), headers: ["Cookie": "session=old"])
        request.sendCondition = SendCondition(reason: "the user signed out") { signedIn.load(ordering: .acquiring) }
        let second = Task { [request] in try await transport.fetch(request) }
        // When: the condition stops holding while the second waits (it cannot leave before the first
        // ends), and the first ends
        signedIn.store(false, ordering: .releasing)
        origin.release.signal()
        // Then: the first is answered; the second is withdrawn and never reaches the origin
        #expect(try await first.value.0.head.status == 200)
        let error = try await #require(throws: TransportError.self) { _ = try await second.value }
        #expect(error.code == .withdrawn)
        #expect(error.message == "The request to \(origin.server.url("second")) was withdrawn before it was sent: "
            + "the user signed out.")
        #expect(!error.isTransient)
        #expect(origin.server.requests.map(\.path) == ["/held"])
    }

    @Test func urlSessionAsksTheConditionAsTheTaskStarts() async throws {
        let origin = try HeldOrigin()
        defer { origin.server.stop() }
        let transport = URLSessionTransport(configuration: URLSessionTransport.Configuration())
        var request = HTTPRequest(url: origin.server.url("second"))
        request.sendCondition = SendCondition(reason: "the user signed out") { false }
        let error = try await #require(throws: TransportError.self) { _ = try await transport.fetch(request) }
        #expect(error.code == .withdrawn)
        #expect(origin.server.requests.isEmpty)
    }

    @Test func aRequestWhoseConditionHoldsIsSent() async throws {
        let origin = try HeldOrigin()
        defer { origin.server.stop() }
        let transport = try oneConnection()
        var request = HTTPRequest(url: origin.server.url("second"))
        request.sendCondition = SendCondition(reason: "never") { true }
        let (response, body) = try await transport.fetch(request)
        #expect(response.head.status == 200)
        #expect(String(decoding: body, as: UTF8.self) == "answer for /second")
        #expect(origin.server.requests.map(\.path) == ["/second"])
    }
}
