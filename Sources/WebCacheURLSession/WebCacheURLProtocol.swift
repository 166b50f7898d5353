import Foundation
import HTTPCore
import Transport
import WebCache
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
    /// The loading task, and whether the URL loading system has stopped this protocol instance: after
    /// `stopLoading` the client must not be called (FoundationNetworking traps when it is, as the
    /// task is no longer registered with its session).
    private let loading = Mutex<(task: Task<Void, Never>?, stopped: Bool)>((nil, false))

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
            let client = StoppableClient(client: instance.client, instance: handle)
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
                client.call { $0.urlProtocol(instance, didReceive: head, cacheStoragePolicy: .notAllowed) }
                for try await chunk in response.body {
                    client.call { $0.urlProtocol(instance, didLoad: chunk) }
                }
                client.call { $0.urlProtocolDidFinishLoading(instance) }
            } catch is CancellationError {
                client.call { $0.urlProtocol(instance, didFailWithError: URLError(.cancelled)) }
            } catch {
                client.call { $0.urlProtocol(instance, didFailWithError: error) }
            }
        }
        loading.withLock { state in
            if state.stopped { task.cancel() } else { state.task = task }
        }
    }

    override public func stopLoading() {
        loading.withLock { state in
            state.stopped = true
            state.task?.cancel()
            state.task = nil
        }
    }

    /// The protocol's client, called only while the URL loading system has not stopped the instance.
    private struct StoppableClient {
        let client: (any URLProtocolClient)?
        let instance: Handle

        func call(_ body: (any URLProtocolClient) -> Void) {
            guard let client, !instance.instance.loading.withLock({ $0.stopped }) else { return }
            body(client)
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
