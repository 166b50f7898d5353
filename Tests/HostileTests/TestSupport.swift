import CacheStore
import Foundation
import HTTPCore
import LocalOrigin
import Sessions
import Testing
import Transport
import WebCache

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
        Issue.record("A load threw \(type(of: error)), not a WebCacheError: \(error)")
        return .failure(WebCacheError(.network, "\(error)", cause: error))
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
