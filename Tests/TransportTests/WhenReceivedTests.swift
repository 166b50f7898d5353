import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
@testable import Transport

/// ``ResponseBody/whenReceived(_:)``: told once the whole body has crossed the network, before the
/// consumer reads it, and never for a transfer that fails.
@Suite struct WhenReceivedTests {
    /// Set once, from any thread.
    private final class Flag: Sendable {
        private let value = Mutex(false)
        var isSet: Bool { value.withLock { $0 } }
        func set() { value.withLock { $0 = true } }

        /// Waits up to ten seconds for the flag.
        func wait() async throws -> Bool {
            let deadline = ContinuousClock.now + .seconds(120)
            while !isSet, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(5))
            }
            return isSet
        }
    }

    @Test(arguments: TransportKind.allCases)
    func aBodyIsReportedReceivedBeforeItIsRead(kind: TransportKind) async throws {
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try kind.make()
        let size = 200_000
        let response = try await transport.send(HTTPRequest(url: server.url("generated?size=\(size)")))
        let received = Flag()
        response.body.whenReceived { received.set() }

        #expect(try await received.wait(), "told while nothing has been read")
        let body = try await response.body.collect()
        #expect(body.count == size)

        // Asked again after the end, it is told at once.
        let again = Flag()
        response.body.whenReceived { again.set() }
        #expect(again.isSet)
    }

    @Test func aBodyCutShortIsNeverReportedReceived() async throws {
        let server = OriginServer { request in TestOrigin.faulty(request) }
        try server.start()
        defer { server.stop() }
        let transport = try TransportKind.curl.make()
        let response = try await transport.send(HTTPRequest(url: server.url("reset-mid-body")))
        let received = Flag()
        response.body.whenReceived { received.set() }

        await #expect(throws: TransportError.self) { _ = try await response.body.collect() }
        #expect(!received.isSet)
    }

    @Test func aBodyLargerThanTheBufferIsReportedOnlyOnceItHasAllArrived() async throws {
        // The transfer pauses while the buffer is full, so it cannot end before the reader catches up.
        let server = try TestOrigin.start()
        defer { server.stop() }
        let transport = try TransportKind.curl.make(bodyBufferBytes: 64 * 1024)
        let size = 4 * 1024 * 1024
        let response = try await transport.send(HTTPRequest(url: server.url("generated?size=\(size)")))
        let received = Flag()
        response.body.whenReceived { received.set() }
        try await Task.sleep(for: .milliseconds(200))
        #expect(!received.isSet, "told before the paused transfer ended")

        var count = 0
        for try await chunk in response.body { count += chunk.count }
        #expect(count == size)
        #expect(received.isSet)
    }
}
