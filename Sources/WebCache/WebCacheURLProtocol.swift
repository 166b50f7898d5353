import Foundation
import HTTPCore
import Synchronization

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Lets code written against `URLSession` read through a ``WebCache``: register a cache, add this
/// class to the session configuration's `protocolClasses`, and every http(s) request goes through
/// the cache's loader (store first, RFC 9111 rules, the signed-in session).
///
/// ```swift
/// WebCacheURLProtocol.register(cache)
/// let configuration = URLSessionConfiguration.ephemeral
/// configuration.protocolClasses = [WebCacheURLProtocol.self]
/// let (data, response) = try await URLSession(configuration: configuration).data(from: url)
/// ```
///
/// The request's `cachePolicy` maps onto ``CachePolicy``; the response carries an
/// `X-WebCache-Source` field (`hit`, `revalidated`, `network`, `stale`). Redirects are followed by
/// the loader, so the session sees the final response.
public final class WebCacheURLProtocol: URLProtocol {
    private static let registered = Mutex<WebCache?>(nil)
    private let loading = Mutex<Task<Void, Never>?>(nil)

    /// Makes `cache` the one requests go through; `nil` stops handling requests.
    public static func register(_ cache: WebCache?) {
        registered.withLock { $0 = cache }
    }

    override public class func canInit(with request: URLRequest) -> Bool {
        guard let url = request.url, url.isHTTP else { return false }
        return registered.withLock { $0 != nil }
    }

    override public class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    override public func startLoading() {
        guard let cache = WebCacheURLProtocol.registered.withLock({ $0 }), let url = request.url else {
            client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL))
            return
        }
        let webRequest = WebCacheURLProtocol.webRequest(from: request, url: url)
        let policy = WebCacheURLProtocol.policy(for: request.cachePolicy)
        let handle = Handle(instance: self)
        let task = Task {
            let instance = handle.instance
            let client = instance.client
            do {
                let response = try await cache.load(webRequest, policy: policy)
                var fields: [String: String] = [:]
                for field in response.headers where !field.name.caseInsensitiveEquals("Set-Cookie") {
                    fields[field.name] = response.headers[field.name]
                }
                fields["X-WebCache-Source"] = response.source.rawValue
                guard let head = HTTPURLResponse(url: response.url, statusCode: response.status, httpVersion: "HTTP/1.1",
                                                 headerFields: fields)
                else { throw URLError(.badServerResponse) }
                client?.urlProtocol(instance, didReceive: head, cacheStoragePolicy: .notAllowed)
                for try await chunk in response.body {
                    client?.urlProtocol(instance, didLoad: chunk)
                }
                client?.urlProtocolDidFinishLoading(instance)
            } catch is CancellationError {
                client?.urlProtocol(instance, didFailWithError: URLError(.cancelled))
            } catch {
                client?.urlProtocol(instance, didFailWithError: error)
            }
        }
        loading.withLock { $0 = task }
    }

    override public func stopLoading() {
        loading.withLock { task in
            task?.cancel()
            task = nil
        }
    }

    /// Carries the protocol instance into the loading task.
    ///
    /// @unchecked: URLProtocol is marked non-Sendable, yet its contract is that the URL loading
    /// system calls `startLoading` and `stopLoading`, and accepts client callbacks, from any thread;
    /// the task only calls the client, and the one piece of state this subclass adds, `loading`,
    /// lives in a Mutex.
    private struct Handle: @unchecked Sendable {
        let instance: WebCacheURLProtocol
    }

    private static func webRequest(from request: URLRequest, url: URL) -> WebRequest {
        var headers = HTTPHeaders()
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            headers.append(name: name, value: value)
        }
        return WebRequest(url.absoluteString, method: HTTPMethod(rawValue: request.httpMethod ?? "GET"),
                          headers: headers, body: request.httpBody)
    }

    private static func policy(for policy: URLRequest.CachePolicy) -> CachePolicy {
        switch policy {
        case .reloadIgnoringLocalCacheData, .reloadIgnoringLocalAndRemoteCacheData: .reloadIgnoringCacheData
        case .returnCacheDataElseLoad: .returnCacheDataElseLoad
        case .returnCacheDataDontLoad: .returnCacheDataDontLoad
        default: .useProtocolCachePolicy
        }
    }
}
