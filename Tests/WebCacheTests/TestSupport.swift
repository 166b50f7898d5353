import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Synchronization
import Testing
import WebCacheTestSupport

@testable import WebCache

/// A value shared between a test and its origin handler, which runs on the server's threads.
final class Shared<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) {
        storage = Mutex(value)
    }

    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }

    @discardableResult
    func update<T: Sendable>(_ body: (inout Value) -> T) -> T {
        storage.withLock { body(&$0) }
    }
}

extension Shared where Value == Bool {
    /// Holds the calling thread (an origin handler's) until the test sets the value, for 10 s at
    /// most: a test that never sets it fails on its own expectations rather than hanging.
    func waitUntilSet() {
        for _ in 0..<1000 where !value { Thread.sleep(forTimeInterval: 0.01) }
    }
}

extension TemporaryFolder {
    /// The path of the store file of a test in this folder.
    var storePath: String { url.appending(path: "store.sqlite").path }

    /// Writes `text` at `path` below the folder, creating folders on the way.
    func write(_ path: String, _ text: String) throws {
        try write(Data(text.utf8), to: path)
    }
}

/// Runs `body` with a started origin answering with `handler` and a cache over a fresh store file
/// whose instance URL is the origin; stops and closes both afterwards.
func withCache(
    origin handler: @escaping OriginServer.Handler,
    configure: (inout WebCache.Configuration) -> Void = { _ in },
    _ body: (OriginServer, WebCache) async throws -> Void
) async throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let origin = OriginServer(handler: handler)
    try origin.start()
    defer { origin.stop() }
    var configuration = WebCache.Configuration(environment: [:])
    configuration.storePath = folder.storePath
    configuration.instanceURL = origin.baseURL
    configure(&configuration)
    let cache = try WebCache(configuration: configuration)
    do {
        try await body(origin, cache)
        await cache.close()
    } catch {
        await cache.close()
        throw error
    }
}

/// Waits until `condition` holds, checking every 10 ms for at most `seconds`; returns whether it held.
func eventually(within seconds: Double = 30, _ condition: () -> Bool) async throws -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

extension WebCache {
    /// The stored variants of an absolute URL in this cache's partition.
    func storedVariants(_ url: URL) throws -> [CacheEntryView] {
        try store.variants(partition: partition, method: .get, url: url.cacheKey.absoluteString).map {
            CacheEntryView(status: $0.status, headers: $0.headers, body: try $0.bodyID.map(store.bodyData) ?? Data())
        }
    }
}

/// What a test checks of a stored entry.
struct CacheEntryView {
    var status: Int
    var headers: HTTPHeaders
    var body: Data
}

extension LoadedResponse {
    var text: String { String(decoding: body, as: UTF8.self) }
}
