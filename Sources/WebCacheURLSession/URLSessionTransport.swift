import Foundation
import HTTPCore
import Transport
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An ``HTTPTransport`` over Foundation's `URLSession`, for platforms without libcurl.
///
/// It streams bodies through a data delegate, never follows redirects, and uses neither `URLCache`
/// nor cookie storage: caching and sessions belong to the layers above.
///
/// On Apple platforms a lagging consumer suspends the task, so buffering is bounded as with
/// ``CurlTransport``. FoundationNetworking (Linux) does not resume a data task suspended during a
/// transfer, so there the whole unread remainder of a body may be buffered: prefer ``CurlTransport``
/// for large bodies on Linux. A request's ``HTTPRequest/bodyStream`` is collected whole before
/// the task starts, so uploads are held in memory too.
///
/// A request that refuses private addresses (``HTTPRequest/refusesPrivateAddresses``) is refused when
/// its host is, or resolves to, a loopback, private or link-local address just before the task
/// starts. `URLSession` resolves the name again when it connects, which this transport cannot see:
/// unlike ``CurlTransport``, which checks the address it connects to, it does not catch a name whose
/// answer changes in between (DNS rebinding).
public final class URLSessionTransport: HTTPTransport {
    /// Settings of a ``URLSessionTransport``.
    public struct Configuration: Sendable {
        /// A transfer that receives nothing for this long fails.
        public var idleTimeout: Duration = .seconds(30)
        /// The most connections to one host.
        public var maxConnectionsPerHost = 8
        /// The largest response body accepted, in bytes; `nil` for no limit.
        public var maxBodyBytes: Int64?
        /// How many body bytes may wait for a slow consumer before the task is suspended.
        public var bodyBufferBytes = 1024 * 1024

        /// Creates the default settings.
        public init() {}
    }

    /// The settings the transport was created with.
    public let configuration: Configuration
    private let session: URLSession
    private let delegate: URLSessionTransportDelegate

    /// Creates a transport with its own `URLSession`.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = 1
        delegate = URLSessionTransportDelegate(configuration: configuration, queue: queue)
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.httpMaximumConnectionsPerHost = configuration.maxConnectionsPerHost
        sessionConfiguration.timeoutIntervalForRequest = configuration.idleTimeout.timeInterval
        session = URLSession(configuration: sessionConfiguration, delegate: delegate, delegateQueue: queue)
    }

    deinit {
        // Running transfers finish; the session then releases its delegate.
        session.finishTasksAndInvalidate()
    }

    /// Starts a data task and returns when the response head has arrived.
    public func send(_ request: HTTPRequest) async throws -> TransportResponse {
        try Task.checkCancellation()
        if request.refusesPrivateAddresses, let host = request.url.host,
            let address = await Self.firstPrivateAddress(ofHost: host)
        {
            throw TransportError.addressRefused(request.url, address: address)
        }
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        for field in request.headers { urlRequest.addValue(field.value, forHTTPHeaderField: field.name) }
        // URLSession takes a whole body here: a streamed one is collected first (held whole in memory).
        if let stream = request.bodyStream {
            do {
                urlRequest.httpBody = try await stream.collect()
            } catch {
                throw TransportError(
                    code: .invalidRequest,
                    message: "The request body for \(request.url.redactedForMessages) broke off before its end.",
                    url: request.url)
            }
        } else {
            urlRequest.httpBody = request.body
        }
        // URLSession has no hook just before a request leaves: the condition is asked as the task starts.
        if let condition = request.sendCondition, !condition.holds {
            throw TransportError.withdrawn(request.url, condition: condition)
        }
        let task = session.dataTask(with: urlRequest)
        let promise = HeadPromise()
        let channel = BodyChannel(
            highWater: configuration.bodyBufferBytes, control: URLSessionFlowControl(task: task, queue: delegate.queue))
        delegate.register(task: task, url: request.url, promise: promise, channel: channel)
        return try await withTaskCancellationHandler {
            task.resume()
            return try await promise.value()
        } onCancel: {
            task.cancel()
        }
    }
}

extension URLSessionTransport {
    /// ``NetworkAddress/firstPrivateAddress(ofHost:)`` on a Dispatch queue: resolving a name blocks,
    /// which a thread of Swift's cooperative pool must not.
    fileprivate static func firstPrivateAddress(ofHost host: String) async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: NetworkAddress.firstPrivateAddress(ofHost: host))
            }
        }
    }
}

/// Suspends and resumes a data task on the delegate's serial queue, so that a resume can never
/// overtake the suspend it answers.
struct URLSessionFlowControl: BodyFlowControl {
    let task: URLSessionDataTask
    let queue: OperationQueue

    func resumeProducer() { queue.addOperation { task.resume() } }
    func cancelProducer() { task.cancel() }
}

/// Receives the session's callbacks and forwards them to each task's head promise and body channel.
///
/// `@unchecked Sendable` because `NSObject` subclasses cannot be checked: the only mutable state
/// is `tasks`, inside a `Mutex`; `configuration` and `queue` are immutable.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct TaskState {
        var url: URL
        var promise: HeadPromise
        var channel: BodyChannel
        var requestTime = Date()
        var received: Int64 = 0
        var failure: TransportError?
    }

    let configuration: URLSessionTransport.Configuration
    let queue: OperationQueue
    private let tasks = Mutex<[Int: TaskState]>([:])

    init(configuration: URLSessionTransport.Configuration, queue: OperationQueue) {
        self.configuration = configuration
        self.queue = queue
    }

    func register(task: URLSessionTask, url: URL, promise: HeadPromise, channel: BodyChannel) {
        tasks.withLock { $0[task.taskIdentifier] = TaskState(url: url, promise: promise, channel: channel) }
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    func urlSession(
        _ session: URLSession,
        dataTask: URLSessionDataTask,
        didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        guard let state = tasks.withLock({ $0[dataTask.taskIdentifier] }), let http = response as? HTTPURLResponse
        else {
            completionHandler(.cancel)
            return
        }
        var headers = HTTPHeaders()
        for (name, value) in http.allHeaderFields {
            headers.append(name: "\(name)", value: "\(value)")
        }
        // URLSession decodes the content: the head must describe the decoded body.
        let decodedCoding = headers.removeContentCoding()
        state.promise.settle(.success(TransportResponse(
            head: HTTPResponseHead(status: http.statusCode, headers: headers),
            body: ResponseBody(channel: state.channel),
            requestTime: state.requestTime,
            responseTime: Date(),
            url: state.url,
            decodedContentCoding: decodedCoding
        )))
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let verdict = tasks.withLock { tasks -> (BodyChannel, Bool)? in
            guard var state = tasks[dataTask.taskIdentifier] else { return nil }
            state.received += Int64(data.count)
            if let limit = configuration.maxBodyBytes, state.received > limit {
                state.failure = TransportError(
                    code: .bodyTooLarge,
                    message: "The response body from \(state.url.redactedForMessages) is larger than the limit of "
                        + "\(limit) bytes.",
                    url: state.url)
                tasks[dataTask.taskIdentifier] = state
                return (state.channel, false)
            }
            tasks[dataTask.taskIdentifier] = state
            return (state.channel, true)
        }
        guard let (channel, withinLimit) = verdict else { return }
        guard withinLimit else {
            dataTask.cancel()
            return
        }
        switch channel.offer(data, refusable: false) {
        case .accepted, .refused: break
        case .acceptedButFull:
            #if !canImport(FoundationNetworking)
            dataTask.suspend()
            #endif
        case .consumerGone: dataTask.cancel()
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let state = tasks.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let result: Result<Void, any Error>
        if let failure = state.failure {
            result = .failure(failure)
        } else if let error {
            result = .failure(Self.transportError(error, url: state.url))
        } else {
            result = .success(())
        }
        if case .failure(let failure) = result, !state.promise.isSettled { state.promise.settle(.failure(failure)) }
        state.channel.finish(result)
    }

    private static func transportError(_ error: any Error, url: URL) -> any Error {
        guard let urlError = error as? URLError else {
            return TransportError(
                code: .networkError, message: "The request to \(url.redactedForMessages) failed.", url: url,
                cause: error)
        }
        if urlError.code == .cancelled { return CancellationError() }
        let target = url.redactedForMessages
        let (code, message): (TransportError.Code, String) =
            switch urlError.code {
            case .cannotFindHost, .dnsLookupFailed: (.hostNotFound, "Could not resolve the host of \(target).")
            case .cannotConnectToHost, .networkConnectionLost, .notConnectedToInternet:
                (.connectFailed, "Could not connect to \(target).")
            case .timedOut: (.timedOut, "The request to \(target) timed out.")
            case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate:
                (.tls, "The TLS connection to \(target) failed.")
            case .badServerResponse, .cannotParseResponse:
                (.protocolError, "The response from \(target) was malformed.")
            default: (.networkError, "The request to \(target) failed.")
            }
        return TransportError(code: code, message: message, url: url, cause: urlError)
    }
}

extension Duration {
    /// The duration in seconds, as Foundation's `TimeInterval`.
    var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
