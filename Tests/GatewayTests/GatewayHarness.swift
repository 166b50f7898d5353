import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Transport
import WebCache

@testable import Gateway

/// A running setup for one test: an origin on 127.0.0.1, a store in a fresh temporary folder, a
/// gateway in front of both, and curl clients that talk to the gateway as a proxy or directly.
struct GatewayHarness: Sendable {
    let origin: OriginServer
    let cache: WebCache
    let gateway: GatewayServer
    /// A client that uses the gateway as its HTTP proxy (absolute-form requests).
    let proxied: CurlTransport
    /// A client that uses no proxy at all.
    let direct: CurlTransport
    let accessLog: AccessLogRecorder

    /// A response read to the end.
    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data
        var servedAs: String? { headers["X-WebCache"] }
    }

    /// Starts an origin with `handler`, a store, and a gateway configured by `configure`, runs
    /// `body`, and tears everything down.
    static func run(
        origin handler: @escaping OriginServer.Handler,
        configure: (inout GatewayServer.Configuration, URL) -> Void = { _, _ in },
        _ body: (GatewayHarness) async throws -> Void
    ) async throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "gateway-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let origin = OriginServer(handler: handler)
        try origin.start()
        defer { origin.stop() }
        let cache = try makeCache(folder: folder)
        do {
            try await serve(cache: cache, origin: origin, configure: configure, body)
            await cache.close()
        } catch {
            await cache.close()
            throw error
        }
    }

    /// Runs a gateway over an existing cache and origin.
    static func serve(
        cache: WebCache, origin: OriginServer,
        configure: (inout GatewayServer.Configuration, URL) -> Void = { _, _ in },
        _ body: (GatewayHarness) async throws -> Void
    ) async throws {
        let recorder = AccessLogRecorder()
        var configuration = GatewayServer.Configuration()
        configuration.accessLog = { recorder.record($0) }
        configure(&configuration, origin.baseURL)
        try await GatewayServer.serve(cache: cache, configuration: configuration) { gateway in
            // The clients' idle timeout is a safety net against a hang, not a measure of speed: on a
            // busy machine a gateway's answer can take longer than curl's 30 s default to start.
            var proxiedSettings = CurlTransport.Configuration()
            proxiedSettings.proxy = gateway.url.absoluteString
            proxiedSettings.idleTimeout = .seconds(300)
            var directSettings = CurlTransport.Configuration()
            directSettings.proxy = ""
            directSettings.idleTimeout = .seconds(300)
            let harness = GatewayHarness(
                origin: origin, cache: cache, gateway: gateway,
                proxied: try CurlTransport(configuration: proxiedSettings),
                direct: try CurlTransport(configuration: directSettings), accessLog: recorder)
            try await body(harness)
        }
    }

    /// A cache with its store in `folder`, whose loader opens at most `connectionsPerHost`
    /// connections to one origin at once.
    static func makeCache(folder: URL, connectionsPerHost: Int = 8) throws -> WebCache {
        var configuration = WebCache.Configuration()
        configuration.storePath = folder.appending(path: "store.sqlite").path
        var transport = CurlTransport.Configuration()
        transport.maxConnectionsPerHost = connectionsPerHost
        transport.proxy = ""
        transport.idleTimeout = .seconds(300)
        configuration.transportConfiguration = transport
        return try WebCache(configuration: configuration)
    }

    /// Sends a request through the gateway as a proxy, reads the whole reply, and waits until the
    /// gateway has finished with the request (the client can have the last byte before the store
    /// has committed the entry).
    func get(
        _ path: String, method: HTTPMethod = .get, headers: HTTPHeaders = [:], body: Data? = nil
    ) async throws -> Reply {
        let answered = accessLog.all.count
        let request = HTTPRequest(method: method, url: origin.url(path), headers: headers, body: body)
        let reply = try await Self.send(request, via: proxied)
        await accessLog.waitForCount(answered + 1)
        return reply
    }

    static func send(_ request: HTTPRequest, via transport: CurlTransport) async throws -> Reply {
        let response = try await transport.send(request)
        let body = try await response.body.collect()
        return Reply(status: response.head.status, headers: response.head.headers, body: body)
    }
}

/// Collects the gateway's access-log entries.
final class AccessLogRecorder: Sendable {
    private let entries = Mutex<[AccessLogEntry]>([])

    func record(_ entry: AccessLogEntry) {
        entries.withLock { $0.append(entry) }
    }

    var all: [AccessLogEntry] { entries.withLock { $0 } }

    /// Returns once at least `count` entries were recorded.
    func waitForCount(_ count: Int) async {
        // A cancelled wait (the test's time limit) ends, rather than spinning on a sleep that throws.
        while entries.withLock({ $0.count }) < count {
            guard (try? await Task.sleep(for: .milliseconds(5))) != nil else { return }
        }
    }
}

/// Origin handlers the tests share.
enum Origins {
    /// Serves `text` for every path, with the given extra headers, and a strong ETag; answers
    /// `If-None-Match` with 304.
    static func validated(_ text: String, etag: String = "\"v1\"", cacheControl: String) -> OriginServer.Handler {
        { request in
            let headers: HTTPHeaders = ["ETag": etag, "Cache-Control": cacheControl]
            if request.headers["If-None-Match"] == etag {
                return OriginResponse(status: 304, headers: headers)
            }
            return .text(text + " " + request.path, headers: headers)
        }
    }
}

/// FNV-1a over a byte stream, to compare large bodies without keeping them.
struct Digest {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325
    private(set) var count = 0

    mutating func update(_ data: Data) {
        for byte in data {
            value = (value ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        count += data.count
    }
}
