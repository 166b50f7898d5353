import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import Transport
import WebCache
import WebCacheTestSupport

@testable import Gateway

#if canImport(Glibc)
import Glibc
#endif

/// The gateway is no open proxy: beyond loopback it needs allowed client ranges and a credential,
/// clients elsewhere may not reach private addresses through it, and slow or busy clients cannot
/// take it from the others. A client "on another machine" is this machine's own non-loopback
/// address (the gateway sees a client that is not loopback); tests that need one are skipped on a
/// machine without such an address.
@Suite(.timeLimit(.minutes(3)))
struct GatewayAdmissionTests {
    static let localAddress = TestSocket.firstNonLoopbackIPv4()

    // MARK: - Configuration

    @Test func aGatewayBeyondLoopbackNeedsAllowedClientsAndACredential() async throws {
        let folder = try TemporaryFolder()
        defer { folder.remove() }
        let cache = try GatewayHarness.makeCache(folder: URL(fileURLWithPath: folder.path("")))
        func start(_ configure: (inout GatewayServer.Configuration) -> Void) async -> GatewayError? {
            var configuration = GatewayServer.Configuration()
            configuration.bindAddress = "0.0.0.0"
            configure(&configuration)
            do {
                try await GatewayServer.serve(cache: cache, configuration: configuration) { _ in }
                return nil
            } catch {
                return error as? GatewayError
            }
        }

        let noRanges = await start { _ in }
        let noCredential = await start { $0.admission.allowedClients = [AddressRange("10.0.0.0/8")!] }
        let withCredential = await start {
            $0.admission.allowedClients = [AddressRange("10.0.0.0/8")!]
            $0.admission.credential = ProxyCredential(secret: "s3cret")
        }
        let withoutAuth = await start {
            $0.admission.allowedClients = [AddressRange("10.0.0.0/8")!]
            $0.admission.allowsUnauthenticatedClients = true
        }
        let loopback = await start { $0.bindAddress = "127.0.0.1" }

        #expect(noRanges?.code == .invalidConfiguration)
        #expect(noRanges?.message.contains("--allow CIDR") == true, "\(String(describing: noRanges))")
        #expect(noCredential?.code == .invalidConfiguration)
        #expect(noCredential?.message.contains("--no-auth") == true, "\(String(describing: noCredential))")
        #expect(withCredential == nil && withoutAuth == nil && loopback == nil)
        await cache.close()
    }

    @Test(arguments: [
        ("10.1.2.3", "10.0.0.0/8", true), ("11.1.2.3", "10.0.0.0/8", false), ("192.0.2.2", "192.0.2.2", true),
        ("192.0.2.3", "192.0.2.2/32", false), ("2001:db8::5", "2001:db8::/32", true), ("::ffff:10.1.2.3", "10.0.0.0/8", true),
        ("2001:db9::5", "2001:db8::/32", false), ("10.1.2.3", "::/0", false), ("1.2.3.4", "0.0.0.0/0", true),
    ])
    func addressRangesContainWhatTheyName(address: String, range: String, contained: Bool) throws {
        let block = try #require(AddressRange(range))
        #expect(block.contains(try #require(NetworkAddress.bytes(numeric: address))) == contained)
    }

    @Test(arguments: ["", "10.0.0.0/33", "10.0.0/8", "::/129", "host.example", "10.0.0.0/-1", "10.0.0.0/+8"])
    func aRangeThatIsNoCIDRIsRefused(text: String) {
        #expect(AddressRange(text) == nil)
    }

    @Test func theCredentialIsTheBasicPasswordOrTheBearerToken() throws {
        let credential = try #require(ProxyCredential(secret: "s3cret\n"))
        let basic = "Basic " + Data("anyone:s3cret".utf8).base64EncodedString()
        let wrong = "Basic " + Data("anyone:s3cres".utf8).base64EncodedString()
        #expect(credential.isShown(in: ["Proxy-Authorization": basic]))
        #expect(credential.isShown(in: ["Proxy-Authorization": "Bearer s3cret"]))
        #expect(!credential.isShown(in: ["Proxy-Authorization": wrong]))
        #expect(!credential.isShown(in: ["Proxy-Authorization": "Bearer s3cret2"]))
        #expect(!credential.isShown(in: ["Proxy-Authorization": "Bearer s3cre"]))
        #expect(!credential.isShown(in: ["Authorization": "Bearer s3cret"]))
        #expect(ProxyCredential(secret: " \n") == nil)
    }

    // MARK: - Clients elsewhere

    @Test(.enabled(if: localAddress != nil, "this machine has no address but loopback"))
    func aClientOutsideTheAllowedRangesIsClosedAtOnce() async throws {
        let local = try #require(Self.localAddress)
        try await GatewayHarness.run(origin: { _ in .text("origin") }, configure: { configuration, upstream in
            configuration.bindAddress = "0.0.0.0"
            configuration.upstream = upstream
            configuration.admission.allowedClients = [AddressRange("10.123.0.0/16")!]
            configuration.admission.allowsUnauthenticatedClients = true
        }) { harness in
            let port = harness.gateway.port
            let refused = try await TestSocket.exchange(from: local, to: local, port: port, "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let loopback = try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: port,
                                                   "GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(refused.isEmpty, "a client outside the ranges got: \(refused)")
            #expect(loopback.hasPrefix("HTTP/1.1 200"), "\(loopback)")
            #expect(harness.origin.requests.count == 1)
        }
    }

    @Test(.enabled(if: localAddress != nil, "this machine has no address but loopback"))
    func aClientElsewhereNeedsTheCredentialAndMayNotReachPrivateAddresses() async throws {
        let local = try #require(Self.localAddress)
        try await GatewayHarness.run(origin: { request in .text("origin \(request.path)") }, configure: { configuration, upstream in
            configuration.bindAddress = "0.0.0.0"
            configuration.upstream = upstream
            configuration.admission.allowedClients = [AddressRange("\(local)/32")!]
            configuration.admission.credential = ProxyCredential(secret: "s3cret")
        }) { harness in
            let port = harness.gateway.port
            let origin = harness.origin.port
            let credential = "Proxy-Authorization: Basic \(Data("me:s3cret".utf8).base64EncodedString())\r\n"
            func send(_ target: String, _ extra: String? = nil, from client: String? = nil) async throws -> String {
                let client = client ?? local
                return try await TestSocket.exchange(from: client, to: client, port: port,
                                              "GET \(target) HTTP/1.1\r\nHost: x\r\n\(extra ?? credential)Connection: close\r\n\r\n")
            }

            // Without the credential, or with a wrong one: 407 with a challenge
            let anonymous = try await send("/a", "")
            let wrong = try await send("/a", "Proxy-Authorization: Bearer nope\r\n")
            #expect(anonymous.hasPrefix("HTTP/1.1 407"), "\(anonymous)")
            #expect(anonymous.contains("Proxy-Authenticate: Basic realm="), "\(anonymous)")
            #expect(wrong.hasPrefix("HTTP/1.1 407"), "\(wrong)")
            // With it: the upstream the operator chose is served
            let upstream = try await send("/a")
            #expect(upstream.hasPrefix("HTTP/1.1 200") && upstream.hasSuffix("origin /a"), "\(upstream)")

            // Forward requests to loopback, IPv4-mapped loopback, link-local, private and unspecified addresses: 403
            for target in [
                "http://127.0.0.1:\(origin)/secret", "http://[::ffff:127.0.0.1]:\(origin)/secret",
                "http://localhost:\(origin)/secret", "http://169.254.169.254/latest/meta-data",
                "http://10.0.0.1/admin", "http://0.0.0.0:\(origin)/secret", "http://[::1]:\(origin)/secret",
            ] {
                let reply = try await send(target)
                #expect(reply.hasPrefix("HTTP/1.1 403"), "\(target): \(reply)")
            }
            #expect(!harness.origin.requests.contains { $0.path == "/secret" })
            // The same forward request from loopback is the local user's own
            let fromLoopback = try await send("http://127.0.0.1:\(origin)/secret", from: "127.0.0.1")
            #expect(fromLoopback.hasPrefix("HTTP/1.1 200"), "\(fromLoopback)")
        }
    }

    // MARK: - Limits

    @Test func requestsOverAClientsRateAreAnswered429() async throws {
        try await GatewayHarness.run(origin: { _ in .text("origin") }, configure: { configuration, upstream in
            configuration.upstream = upstream
            // Three at once, then one more every thousand seconds: the fourth is over, however slow the machine.
            configuration.admission.requestRate = (0.001, 3)
        }) { harness in
            var statuses: [String] = []
            for index in 0..<6 {
                let reply = try await TestSocket.exchange(
                    from: "127.0.0.1", to: "127.0.0.1", port: harness.gateway.port,
                    "GET /r\(index) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                statuses.append(String(reply.prefix(12)))
            }
            #expect(statuses == Array(repeating: "HTTP/1.1 200", count: 3) + Array(repeating: "HTTP/1.1 429", count: 3))
            #expect(harness.origin.requests.count == 3)
        }
    }

    @Test func anOversizedRequestHeadIsRefusedAndTheGatewayGoesOn() async throws {
        try await GatewayHarness.run(origin: { _ in .text("origin") }, configure: { configuration, upstream in
            configuration.upstream = upstream
            configuration.admission.maximumHeaderBytes = 8 * 1024
        }) { harness in
            let port = harness.gateway.port
            let huge = "X-Filler: " + String(repeating: "a", count: 200 * 1024) + "\r\n"
            let refused = try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: port,
                                                  "GET /big HTTP/1.1\r\nHost: x\r\n\(huge)Connection: close\r\n\r\n")
            let fine = try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: port,
                                               "GET /small HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(!refused.hasPrefix("HTTP/1.1 200"), "\(refused.prefix(200))")
            #expect(fine.hasPrefix("HTTP/1.1 200"), "\(fine)")
            #expect(harness.origin.requests.map(\.path) == ["/small"])
        }
    }

    /// The head limit holds to the byte, also below the size of the connection's buffer: a head of
    /// exactly the limit is served, one byte more is answered 431 naming both sizes, and the
    /// connection's next client is served.
    @Test func aRequestHeadIsAcceptedUpToItsLimitToTheByte() async throws {
        let limit = 8 * 1024
        try await GatewayHarness.run(origin: { request in .text("origin \(request.path)") }, configure: {
            configuration, upstream in
            configuration.upstream = upstream
            configuration.admission.maximumHeaderBytes = limit
        }) { harness in
            func head(_ path: String, bytes: Int) -> String {
                let start = "GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Filler: "
                let filler = String(repeating: "a", count: bytes - start.utf8.count - 4)
                return start + filler + "\r\n\r\n"
            }
            let port = harness.gateway.port
            let atLimit = try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: port,
                                                        head("/at", bytes: limit))
            let over = try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: port,
                                                     head("/over", bytes: limit + 1))
            let after = try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: port,
                                                      head("/after", bytes: 200))
            #expect(atLimit.hasPrefix("HTTP/1.1 200"), "\(atLimit.prefix(200))")
            #expect(over.hasPrefix("HTTP/1.1 431"), "\(over.prefix(200))")
            #expect(over.contains("is \(limit + 1) bytes, more than the gateway accepts (\(limit) bytes)"),
                    "\(over.suffix(300))")
            #expect(after.hasPrefix("HTTP/1.1 200"), "\(after.prefix(200))")
            #expect(harness.origin.requests.map(\.path) == ["/at", "/after"])
        }
    }

    /// A request head at the default limit leaves the connection's buffer room for a large response
    /// head: 14 KB of response fields (which a buffer of the limit and 8 KiB could not hold) reach
    /// the client whole.
    @Test func aHeadAtTheLimitStillGetsALargeResponseHead() async throws {
        var fields: HTTPHeaders = ["Cache-Control": "max-age=60"]
        for index in 0..<140 { fields.append(name: "X-Field-\(index)", value: String(repeating: "v", count: 88)) }
        let sent = fields
        try await GatewayHarness.run(origin: { _ in .text("origin", headers: sent) }, configure: { configuration, upstream in
            configuration.upstream = upstream
        }) { harness in
            let limit = GatewayServer.Admission().maximumHeaderBytes
            let start = "GET /large HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Filler: "
            let filler = String(repeating: "a", count: limit - start.utf8.count - 4)
            let reply = try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: harness.gateway.port,
                                                      start + filler + "\r\n\r\n")
            #expect(reply.hasPrefix("HTTP/1.1 200"), "\(reply.prefix(200))")
            #expect(reply.contains("X-Field-139: " + String(repeating: "v", count: 88)))
            #expect(reply.hasSuffix("\r\n\r\norigin"), "\(reply.suffix(100))")
        }
    }

    @Test func aClientThatSendsItsHeadTooSlowlyIsCutOffWhileItIsStillSending() async throws {
        try await GatewayHarness.run(origin: { _ in .text("origin") }, configure: { configuration, upstream in
            configuration.upstream = upstream
            configuration.idleTimeout = 600
            configuration.admission.headTimeout = .seconds(1)
        }) { harness in
            // A header byte every 50 ms never lets the connection go idle; only the head timeout ends it.
            let slow = try TestSocket.SlowSender(from: "127.0.0.1", to: "127.0.0.1", port: harness.gateway.port)
            let outcome = await slow.sendUntilClosed(safetyNet: .seconds(120))
            #expect(outcome == .closedByGateway, "\(outcome)")
        }
    }

    @Test(.enabled(if: localAddress != nil, "this machine has no address but loopback"))
    func manySlowClientsDoNotKeepTheGatewayFromServingOthers() async throws {
        let local = try #require(Self.localAddress)
        try await GatewayHarness.run(origin: { request in .text("origin \(request.path)") }, configure: { configuration, upstream in
            configuration.bindAddress = "0.0.0.0"
            configuration.upstream = upstream
            configuration.connectionLimit = 24
            configuration.idleTimeout = 600
            configuration.admission.allowedClients = [AddressRange("\(local)/32")!]
            configuration.admission.allowsUnauthenticatedClients = true
            configuration.admission.connectionsPerClient = 8
            configuration.admission.headTimeout = .seconds(600)
        }) { harness in
            let port = harness.gateway.port
            // Given 40 slowloris connections from one address, more than the gateway's 24 connections
            let senders = (0..<40).compactMap { _ in try? TestSocket.SlowSender(from: local, to: local, port: port) }
            try #require(!senders.isEmpty)
            let running = senders.map { sender in Task { await sender.sendUntilClosed(safetyNet: .seconds(600)) } }

            // When another client asks for pages
            var replies: [String] = []
            for index in 0..<5 {
                replies.append(try await TestSocket.exchange(from: "127.0.0.1", to: "127.0.0.1", port: port,
                                                       "GET /p\(index) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
            }

            // Then it is served, and the slow client holds no more than its share
            #expect(replies.allSatisfy { $0.hasPrefix("HTTP/1.1 200") }, "\(replies.map { $0.prefix(40) })")
            for sender in senders { sender.stop() }
            let outcomes = await running.asyncMap { await $0.value }
            #expect(outcomes.count { $0 == .stoppedByTest } <= 8, "\(outcomes)")
        }
    }
}

extension Array {
    fileprivate func asyncMap<T>(_ transform: (Element) async -> T) async -> [T] {
        var results: [T] = []
        for element in self { results.append(await transform(element)) }
        return results
    }
}
