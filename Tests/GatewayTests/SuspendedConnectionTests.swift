import Dispatch
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import WebCache

@testable import Gateway

#if canImport(Glibc)
import Glibc
#endif

/// The gateway's few event-loop threads never wait: a request the loader answers suspends its
/// connection until the origin has answered, so misses held by a slow origin, more of them than
/// there are threads, never keep a stored hit from being served; a client that leaves while its
/// connection is suspended is noticed once the connection is resumed; and stopping resumes every
/// suspended connection first. The origin is held by explicit gates, never by timing; the clients
/// are raw sockets, each on a thread of its own, so that no client-side connection limit interferes.
@Suite(.timeLimit(.minutes(5)))
struct SuspendedConnectionTests {
    /// More misses in flight than the gateway has event-loop threads (one per core).
    static let waitingMisses = ProcessInfo.processInfo.activeProcessorCount + 2

    static let streamedSize = 1000 + 2 * 1024 * 1024

    /// An origin that holds every `/slow…` request at `gate` and answers the others at once, all
    /// cacheable. `/slow/stream` sends 1000 bytes, then waits at the gate, then 2 MiB more.
    static func origin(gate: OriginGate) -> OriginServer.Handler {
        { request in
            let cacheable: HTTPHeaders = ["Cache-Control": "max-age=3600"]
            if request.path == "/slow/stream" {
                return OriginResponse(headers: cacheable, body: .stream(contentLength: streamedSize) { writer in
                    try writer.write(Data(repeating: 0x61, count: 1000))
                    gate.pass()
                    try writer.write(Data(repeating: 0x62, count: streamedSize - 1000))
                })
            }
            if request.path.hasPrefix("/slow") { gate.pass() }
            return .text("origin \(request.path)", headers: cacheable)
        }
    }

    /// Runs a reverse-proxy gateway in front of an origin held by `gate`, whose loader may open as
    /// many connections to the origin as there are waiting misses.
    static func run(gate: OriginGate, _ body: (GatewayHarness) async throws -> Void) async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "gateway-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = OriginServer(handler: Self.origin(gate: gate))
        try origin.start()
        defer { origin.stop() }
        let cache = try GatewayHarness.makeCache(folder: folder, connectionsPerHost: waitingMisses)
        // The origin's handlers are let go before the store closes, which waits for its loads.
        do {
            try await GatewayHarness.serve(cache: cache, origin: origin, configure: { configuration, upstream in
                configuration.upstream = upstream
            }, body)
            gate.open()
            await cache.close()
        } catch {
            gate.open()
            await cache.close()
            throw error
        }
    }

    /// Sends `GET path` and reads the reply until the gateway closes the connection.
    static func get(_ path: String, from harness: GatewayHarness) async throws -> String {
        try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: harness.gateway.port,
                                      "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    }

    @Test func aStoredHitIsServedWhileMoreMissesThanThreadsWaitForTheOrigin() async throws {
        let gate = OriginGate()
        try await Self.run(gate: gate) { harness in
            // Given: a stored entry, and more misses than event-loop threads held by the origin
            let stored = try await Self.get("/stored", from: harness)
            #expect(stored.contains("X-WebCache: network"), "\(stored)")
            let misses = (0..<Self.waitingMisses).map { index in
                Task { try await Self.get("/slow/\(index)", from: harness) }
            }
            await gate.waitForArrivals(Self.waitingMisses)

            // When: a client asks for the stored entry while every miss still waits
            let hit = try await Self.get("/stored", from: harness)

            // Then: it is answered from the store, and the misses get their answers once the origin goes on
            #expect(hit.hasPrefix("HTTP/1.1 200"), "\(hit)")
            #expect(hit.contains("X-WebCache: hit"), "\(hit)")
            #expect(hit.hasSuffix("\r\n\r\norigin /stored"), "\(hit)")
            #expect(gate.arrivals == Self.waitingMisses)
            gate.open()
            for (index, miss) in misses.enumerated() {
                let reply = try await miss.value
                #expect(reply.hasPrefix("HTTP/1.1 200"), "\(reply)")
                #expect(reply.contains("X-WebCache: network"), "\(reply)")
                #expect(reply.hasSuffix("\r\n\r\norigin /slow/\(index)"), "\(reply)")
            }
        }
    }

    @Test func aClientThatLeavesWhileItWaitsForTheHeadDoesNotHoldTheGateway() async throws {
        let gate = OriginGate()
        try await Self.run(gate: gate) { harness in
            let logged = harness.accessLog.all.count
            // Given: a client whose request waits at the origin, and which then leaves
            let socket = try TestSocket.connect(from: "127.0.0.1", to: "127.0.0.1", port: harness.gateway.port)
            let request = Array("GET /slow/left HTTP/1.1\r\nHost: x\r\n\r\n".utf8)
            #expect(send(socket, request, request.count, Int32(MSG_NOSIGNAL)) == request.count)
            await gate.waitForArrivals(1)
            close(socket)

            // When: the origin answers
            gate.open()
            await harness.accessLog.waitForCount(logged + 1)

            // Then: the request is over, and the gateway serves the next client
            #expect(harness.accessLog.all.last?.url.hasSuffix("/slow/left") == true)
            let next = try await Self.get("/stored", from: harness)
            #expect(next.hasPrefix("HTTP/1.1 200"), "\(next)")
            #expect(next.hasSuffix("\r\n\r\norigin /stored"), "\(next)")
        }
    }

    @Test func aClientThatLeavesWhileItWaitsForMoreOfTheBodyIsLoggedIncomplete() async throws {
        let gate = OriginGate()
        try await Self.run(gate: gate) { harness in
            let logged = harness.accessLog.all.count
            // Given: a client that got the head, the rest of the body held by the origin
            async let received = StoredHitTests.readThenLeave(
                port: harness.gateway.port, target: "/slow/stream", bytes: 0)
            await gate.waitForArrivals(1)
            // When: it leaves, then the origin sends the rest
            #expect(try await received < Self.streamedSize)
            gate.open()
            await harness.accessLog.waitForCount(logged + 1)

            // Then: the answer is logged incomplete, and the gateway serves the next client
            let entry = try #require(harness.accessLog.all.last)
            #expect(entry.url.hasSuffix("/slow/stream"))
            #expect(!entry.isComplete)
            #expect(entry.bodyBytes < Int64(Self.streamedSize))
            let next = try await Self.get("/stored", from: harness)
            #expect(next.hasPrefix("HTTP/1.1 200"), "\(next)")
        }
    }

    @Test func stoppingResumesTheWaitingConnectionsAndAnswersThem503OrClosesThem() async throws {
        let gate = OriginGate()
        var misses: [Task<String, any Error>] = []
        try await Self.run(gate: gate) { harness in
            // Given: more misses than event-loop threads held by the origin
            misses = (0..<Self.waitingMisses).map { index in
                Task { try await Self.get("/slow/\(index)", from: harness) }
            }
            await gate.waitForArrivals(Self.waitingMisses)
            // When: the gateway stops (at the end of this closure), with every miss suspended
        }
        // Then: it has stopped, and no waiting client got anything but the gateway's 503
        for miss in misses {
            let reply = try await miss.value
            #expect(reply.isEmpty || reply.hasPrefix("HTTP/1.1 503"), "\(reply)")
        }
    }
}

/// Holds origin handlers until the test opens it, and counts the ones that arrived.
final class OriginGate: Sendable {
    private let state = Mutex((arrivals: 0, open: false))
    private let opened = DispatchSemaphore(value: 0)

    /// Called by a handler: counts it, then waits until ``open()`` (ten minutes at most, a safety net).
    func pass() {
        let isOpen = state.withLock { state in
            state.arrivals += 1
            return state.open
        }
        guard !isOpen else { return }
        // Each released handler releases the next.
        if opened.wait(timeout: .now() + 600) == .success { opened.signal() }
    }

    /// How many handlers arrived.
    var arrivals: Int { state.withLock { $0.arrivals } }

    /// Lets every handler, waiting or to come, go on.
    func open() {
        let wasOpen = state.withLock { state in
            defer { state.open = true }
            return state.open
        }
        if !wasOpen { opened.signal() }
    }

    /// Returns once `count` handlers arrived.
    func waitForArrivals(_ count: Int) async {
        while arrivals < count {
            guard (try? await Task.sleep(for: .milliseconds(5))) != nil else { return }
        }
    }
}
