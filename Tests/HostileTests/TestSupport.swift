import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Sessions
import Testing
import Transport
import WebCache

/// A unique temporary folder, removed with everything in it when the last reference goes.
final class TemporaryFolder: Sendable {
    let url: URL

    init() throws {
        url = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("webcache-hostile-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// A path inside the folder.
    func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }

    /// Writes `data` to a file in the folder and returns its path.
    @discardableResult
    func write(_ data: Data, to name: String) throws -> String {
        let path = path(name)
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// Makes ``WebCache`` instances on a store in a temporary folder, with short network timeouts.
struct CacheFactory {
    let folder: TemporaryFolder
    let storePath: String

    init() throws {
        folder = try TemporaryFolder()
        storePath = folder.path("store.sqlite")
    }

    /// A cache as a guest (or as `user` with a fixed token), with a one-second idle timeout.
    func make(
        instance: URL? = nil, user: String? = nil, token: String = "token-of-the-user",
        configure: (inout WebCache.Configuration) -> Void = { _ in }
    ) throws -> WebCache {
        var configuration = WebCache.Configuration(environment: ["HOME": folder.url.path])
        configuration.storePath = storePath
        configuration.instanceURL = instance
        configuration.transportConfiguration.idleTimeout = .seconds(1)
        configuration.transportConfiguration.connectTimeout = .seconds(2)
        configuration.transportConfiguration.proxy = ""
        if let user {
            configuration.userID = user
            configuration.authorization = StaticTokenProvider(accessToken: token)
        }
        configure(&configuration)
        return try WebCache(configuration: configuration)
    }
}

/// Preload options for tests: quick retries, no media.
func quickOptions(retries: Int = 0) -> PreloadOptions {
    var options = PreloadOptions()
    options.retries = retries
    options.retryDelay = .milliseconds(5)
    options.maximumRetryDelay = .milliseconds(20)
    return options
}

/// Reads a whole response body, or returns the error that ended it.
func loadResult(_ cache: WebCache, _ request: WebRequest, policy: CachePolicy = .useProtocolCachePolicy) async
    -> Result<LoadedResponse, WebCacheError>
{
    do {
        return .success(try await cache.data(for: request, policy: policy))
    } catch let error as WebCacheError {
        return .failure(error)
    } catch {
        return .failure(WebCacheError(.network, "unexpected error type: \(error)"))
    }
}

/// Starts an origin server with `handler`; the caller stops it.
func startOrigin(_ handler: @escaping OriginServer.Handler) throws -> OriginServer {
    let server = OriginServer(handler: handler)
    try server.start()
    return server
}

/// A cacheable HTML page.
func cacheablePage(_ html: String, headers: HTTPHeaders = [:]) -> OriginResponse {
    var all: HTTPHeaders = ["Cache-Control": "max-age=3600"]
    for field in headers { all[field.name] = field.value }
    return .text(html, contentType: "text/html; charset=utf-8", headers: all)
}
