import CMicroHTTPD
import CacheStore
import Dispatch
import FoundationEssentials
import HTTPCore
import Synchronization
import WebCache
#if canImport(Glibc)
import Glibc
#endif

/// A local HTTP gateway to a ``WebCache``: browsers and any HTTP client read the store through it.
///
/// It is a forward proxy for absolute-form requests (`GET http://host/path`, what a browser sends
/// to its HTTP proxy) and, with ``Configuration/upstream``, a reverse proxy that maps origin-form
/// requests (`GET /path`) onto one origin. Every request goes through the library's loader, so
/// the same RFC 9111 rules decide hits, revalidation and storage. Responses carry `Age` and
/// `X-WebCache: hit|revalidated|network|stale`; hop-by-hop fields are not forwarded; a client's
/// `If-None-Match` / `If-Modified-Since` is answered 304 from the response the store gives;
/// unsafe methods are passed through and invalidate what they change. `CONNECT` is refused with
/// 501: a TLS tunnel is encrypted end to end, so there is nothing the gateway could cache.
///
/// The HTTP side is libmicrohttpd (Debian `libmicrohttpd-dev`). It fits because it is small
/// (one C library, no dependencies worth naming), speaks HTTP/1.1 with keep-alive, pipelining and
/// chunked encoding, parses requests defensively, streams a response from a callback that pulls
/// bytes as the socket takes them, and offers suspend/resume for producers that are not ready yet;
/// it is maintained by GNU and packaged in Debian. The gateway runs it as an epoll event loop on one
/// thread per core, each serving its share of the connections; a callback never blocks its thread.
/// A request the loader answers suspends its connection while the async loader produces the head
/// and the body, through a bounded buffer (see ``Exchange``), so bodies of any size stream with flat
/// memory, and the loader's side resumes it (``ConnectionSuspensions``); so does an upload that
/// waits for the upstream to take more. A fresh hit skips the loader: the event-loop thread looks
/// the request up in the store itself (``WebCache/storedAnswer(for:policy:copyingBody:)``) and copies the stored
/// body straight into the server's send buffer (``StoredBodyStream``), with no task, no thread hop
/// and no copy through `Data`.
///
/// ```swift
/// let cache = try WebCache(configuration: WebCache.Configuration())
/// try await GatewayServer.serve(cache: cache) { gateway in
///     print(gateway.url)             // http://127.0.0.1:41234/
///     try await Task.sleep(for: .seconds(3600))
/// }
/// await cache.close()
/// ```
public final class GatewayServer: Sendable {
    /// The configuration the gateway runs with.
    public let configuration: Configuration
    let cache: WebCache
    /// The pseudonym in this gateway's `Via` entries (RFC 9110 §7.6.3), random per instance.
    let viaPseudonym = "webcache-" + String(UInt32.random(in: .min ... .max), radix: 16)

    private struct Registry {
        var stopping = false
        var jobs: [ObjectIdentifier: Job] = [:]
    }

    /// One submitted request and the exchange its response goes through.
    private struct Job: Sendable {
        var request: ProxyRequest
        var exchange: Exchange
    }

    private let registry = Mutex(Registry())
    /// The running server's address (0 when stopped): the daemon and the thread that accepts its
    /// connections. Kept as an integer because a pointer is not `Sendable`; it is turned back into
    /// a pointer only to stop the server.
    private let daemon = Mutex<UInt>(0)
    private let boundPort = Mutex<UInt16>(0)
    private let jobs: AsyncStream<Job>
    private let jobSink: AsyncStream<Job>.Continuation
    /// Requests per client, when ``Admission/requestRate`` limits them.
    let rateLimiter: ClientRateLimiter?
    /// What forward requests' hosts resolve to, for the admission of clients beyond loopback.
    let privateHosts = PrivateHosts()
    /// Cuts off clients that send their request heads too slowly (``Admission/headTimeout``).
    private let watchdog: SlowClientWatchdog
    /// The connections waiting for the loader or the upstream, and what resumes them.
    private let suspensions = ConnectionSuspensions()
    /// Answers requests; set once the port is known (its redirects are rewritten onto the gateway's
    /// URL). Read on every request by every event-loop thread, so without a lock.
    private let handlerReference = AtomicLazyReference<HandlerBox>()

    /// The handler, boxed for ``handlerReference``.
    private final class HandlerBox: Sendable {
        let handler: ProxyHandler
        init(_ handler: ProxyHandler) { self.handler = handler }
    }

    /// The handler every request goes through (set before the first request can arrive).
    private var handler: ProxyHandler? { handlerReference.load()?.handler }
    /// How many requests were answered straight from the store, without the loader.
    let storeAnswers = Atomic<Int>(0)
    /// Fresh answers kept in memory; `nil` when ``Configuration/memoryCacheSize`` is 0.
    let hotAnswers: HotAnswers?
    /// How many of ``storeAnswers`` came from ``hotAnswers`` without reading the store.
    let memoryAnswers = Atomic<Int>(0)

    /// The head sent to requests still waiting when the gateway stops.
    private static let shutdownHead = Exchange.Head(status: 503, headers: ["Connection": "close"], length: .none)

    /// Body bytes handed to the HTTP server per content-reader call.
    private static let readerBlockSize = 64 * 1024

    // MARK: - Running

    /// Starts a gateway in front of `cache`, runs `body`, then stops the gateway: requests still
    /// waiting get 503 and every connection is closed before this returns. `cache` stays open.
    ///
    /// - Parameters:
    ///   - cache: the library instance every request is loaded through (its identity applies).
    ///   - configuration: the address, the upstream and the network policy.
    ///   - body: runs while the gateway serves; it gets the running gateway (for ``url``).
    /// - Returns: what `body` returns.
    /// - Throws: ``GatewayError`` when the configuration is unusable or the port cannot be opened,
    ///   or what `body` throws.
    public static func serve<Value>(
        cache: WebCache, configuration: Configuration = Configuration(),
        _ body: (GatewayServer) async throws -> Value
    ) async throws -> Value {
        let server = try GatewayServer(cache: cache, configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self, returning: Value.self) { group in
            group.addTask { await server.processJobs() }
            group.addTask { await server.flushHitsPeriodically() }
            group.addTask { await server.watchStoreFile() }
            defer {
                server.stop()
                group.cancelAll()
            }
            return try await body(server)
        }
    }

    /// The port the gateway listens on (the one picked when the configuration asked for 0).
    public var port: UInt16 { boundPort.withLock { $0 } }

    /// The gateway's base URL, such as `http://127.0.0.1:41234/`: the proxy address for clients,
    /// and the root of the upstream in reverse-proxy mode.
    public var url: URL {
        let bind = configuration.bindAddress
        let address = bind.contains(":") ? "[\(bind)]" : bind
        return URL(string: "http://\(address):\(port)/")!
    }

    private init(cache: WebCache, configuration: Configuration) throws(GatewayError) {
        self.cache = cache
        self.configuration = configuration
        hotAnswers = configuration.memoryCacheSize > 0
            ? HotAnswers(capacity: configuration.memoryCacheSize,
                         fileFolder: URL(fileURLWithPath: cache.store.path).deletingLastPathComponent().path)
            : nil
        (jobs, jobSink) = AsyncStream.makeStream(of: Job.self)
        try Self.validate(configuration)
        try Self.validate(configuration.admission, bindAddress: configuration.bindAddress)
        rateLimiter = configuration.admission.requestRate.map { ClientRateLimiter(perSecond: $0.perSecond, burst: $0.burst) }
        watchdog = SlowClientWatchdog(timeout: configuration.admission.headTimeout)
        do {
            try start()
        } catch {
            watchdog.stop()
            throw error
        }
        let handler = ProxyHandler(cache: cache, configuration: configuration, gatewayURL: url,
                                   viaPseudonym: viaPseudonym)
        _ = handlerReference.storeIfNil(HandlerBox(handler))
    }

    /// Rejects a bind address that is not an IP address and an upstream that is not an http(s) URL.
    private static func validate(_ configuration: Configuration) throws(GatewayError) {
        let address = configuration.bindAddress
        guard NetworkAddress.bytes(numeric: address) != nil else {
            throw GatewayError(.invalidConfiguration, "The bind address '\(address)' is not an IPv4 or IPv6 address.")
        }
        if let upstream = configuration.upstream {
            guard let scheme = upstream.scheme?.lowercased(), scheme == "http" || scheme == "https",
                let host = upstream.host, !host.isEmpty, upstream.query == nil
            else {
                throw GatewayError(.invalidConfiguration,
                                   "The upstream '\(upstream.absoluteString)' is not an http or https URL "
                                       + "without a query.")
            }
        }
        guard configuration.connectionLimit > 0, configuration.idleTimeout >= 0,
            configuration.maximumRequestBodySize >= 0
        else {
            throw GatewayError(.invalidConfiguration,
                               "The connection limit must be positive, and the idle timeout and body limit "
                                   + "not negative.")
        }
    }

    /// Starts the HTTP server. Its callbacks reach this object through an unretained pointer:
    /// `serve` keeps the object alive until the daemon has stopped.
    private func start() throws(GatewayError) {
        if let failure = cmhd_load() { throw GatewayError(.unavailable, String(cString: failure)) }
        let context = Unmanaged.passUnretained(self).toOpaque()
        errno = 0
        let handle = configuration.bindAddress.withCString { address in
            cmhd_start(
                address, configuration.port,
                { context, connection, _, method, version, data, size, requestContext in
                    guard let context, let connection, let method, let size,
                        let pointer = requestContext?.pointee
                    else { return MHD_Result.NO }
                    let server = Unmanaged<GatewayServer>.fromOpaque(context).takeUnretainedValue()
                    let request = Unmanaged<ConnectionRequest>.fromOpaque(pointer).takeUnretainedValue()
                    if !request.started, let version { request.isHTTP10 = strcmp(version, "HTTP/1.0") == 0 }
                    return server.access(connection, request: request, method: method, data: data, size: size)
                },
                context,
                { _, uri, _ in
                    let request = ConnectionRequest(target: uri.map { String(cString: $0) } ?? "")
                    return Unmanaged.passRetained(request).toOpaque()
                },
                context,
                { context, connection, requestContext, termination in
                    guard let context, let requestContext, let pointer = requestContext.pointee else { return }
                    requestContext.pointee = nil
                    let server = Unmanaged<GatewayServer>.fromOpaque(context).takeUnretainedValue()
                    // The connection may carry another request: its head is awaited from now.
                    if let connection, let deadline = GatewayServer.headDeadline(of: connection) {
                        server.watchdog.awaitHead(deadline)
                    }
                    let request = Unmanaged<ConnectionRequest>.fromOpaque(pointer).takeRetainedValue()
                    if let exchange = request.exchange { server.completed(exchange) }
                    // MHD_REQUEST_TERMINATED_COMPLETED_OK is 0: the whole response was sent.
                    if let hit = request.storedHit { server.logStoredHit(hit, of: request, sent: termination.rawValue == 0) }
                },
                context,
                { context, address, _ in
                    guard let context else { return MHD_Result.NO }
                    let server = Unmanaged<GatewayServer>.fromOpaque(context).takeUnretainedValue()
                    return server.admitsConnection(from: GatewayServer.bytes(of: address)) ? MHD_Result.YES : MHD_Result.NO
                },
                context,
                { context, connection, socketContext, notice in
                    guard let context, let connection, let socketContext else { return }
                    let server = Unmanaged<GatewayServer>.fromOpaque(context).takeUnretainedValue()
                    if notice.rawValue == 0 {  // MHD_CONNECTION_NOTIFY_STARTED
                        let deadline = server.watchdog.opened(cmhd_connection_socket(connection))
                        socketContext.pointee = Unmanaged.passRetained(deadline).toOpaque()
                    } else if let pointer = socketContext.pointee {
                        socketContext.pointee = nil
                        server.suspensions.closed(ConnectionSuspensions.key(of: connection))
                        server.watchdog.closed(Unmanaged<SlowClientWatchdog.Deadline>.fromOpaque(pointer).takeRetainedValue())
                    }
                },
                context,
                UInt32(configuration.idleTimeout), UInt32(configuration.connectionLimit),
                UInt32(configuration.admission.connectionsPerClient),
                ConnectionBuffer.size(maximumHeaderBytes: configuration.admission.maximumHeaderBytes),
                UInt32(min(ProcessInfo.processInfo.activeProcessorCount, configuration.connectionLimit)))
        }
        guard let handle else {
            let reason = errno != 0 ? String(cString: strerror(errno)) : "the HTTP server did not start"
            throw GatewayError(.cannotListen,
                               "The gateway cannot listen on \(configuration.bindAddress) port "
                                   + "\(configuration.port): \(reason).")
        }
        daemon.withLock { $0 = UInt(bitPattern: Int(bitPattern: handle)) }
        boundPort.withLock { $0 = cmhd_bound_port(handle) }
    }

    /// Stops accepting requests, ends the ones in flight, resumes every suspended connection (the
    /// HTTP server may not stop while one is) and stops the HTTP server, which closes every
    /// connection and joins its threads.
    private func stop() {
        let pending = registry.withLock { registry in
            registry.stopping = true
            let pending = Array(registry.jobs.values)
            registry.jobs = [:]
            return pending
        }
        for job in pending {
            job.exchange.abort(with: Self.shutdownHead)
            // A connection waiting to hand on more of an upload stops waiting.
            job.request.bodyStream?.cancel()
        }
        suspensions.resumeAll()
        daemon.withLock { address in
            if let handle = UnsafeMutablePointer<cmhd_server>(bitPattern: address) { cmhd_stop(handle) }
            address = 0
        }
        watchdog.stop()
        jobSink.finish()
    }

    // MARK: - Async side

    /// Answers submitted requests, each in its own child task, until the gateway stops.
    private func processJobs() async {
        await withDiscardingTaskGroup { group in
            for await job in jobs {
                group.addTask { await self.answer(job) }
            }
        }
    }

    /// Writes the recorded hits to the store every ``Configuration/hitFlushInterval`` until the
    /// gateway stops. A failed write keeps the hits for the next one and is logged.
    private func flushHitsPeriodically() async {
        while (try? await Task.sleep(for: configuration.hitFlushInterval)) != nil {
            do {
                try await cache.store.flushAccessLog()
            } catch {
                configuration.logger.log(.warning, "The gateway's hit counts could not be written: \(error)")
            }
        }
    }

    /// Checks every ``Configuration/storeFileCheckInterval`` that the store's file is still the one at
    /// its path, and warns once when it is not: a gateway whose store was removed (or replaced) under
    /// it would otherwise go on storing into a file that is gone when it stops, and serve what the
    /// removed file held, without a word.
    private func watchStoreFile() async {
        let store = cache.store
        while (try? await Task.sleep(for: configuration.storeFileCheckInterval)) != nil {
            guard store.isStillAtItsPath else {
                configuration.logger.warning(
                    "The store file '\(store.path)' was removed or replaced while the gateway ran: it still serves "
                        + "and stores with the file it opened, which is gone when it stops, and does not see what is "
                        + "stored at that path now. Restart it to use the store there.")
                return
            }
        }
    }

    /// Loads the response for one job and streams it into its exchange.
    private func answer(_ job: Job) async {
        guard let handler else { return }
        let response = await handler.respond(to: job.request)
        // The upload was read to its end, or is no longer wanted: its connection stops waiting.
        defer { job.request.bodyStream?.cancel() }
        let headBytes = ConnectionBuffer.responseBytes(response.headers)
        if headBytes > job.request.responseHeadRoom {
            let url = (try? job.request.url.get())?.absoluteString ?? job.request.target
            let message = warnOfOversizedHead(url: url, headBytes: headBytes, room: job.request.responseHeadRoom)
            let body = Data((message + "\n").utf8)
            guard job.exchange.deliverHead(Exchange.Head(status: 502, headers: Self.textHeaders,
                                                         length: .known(UInt64(body.count))))
            else { return }
            let sent = await job.exchange.push(body)
            job.exchange.finish(failed: !sent)
            logAnswer(method: job.request.method, target: job.request.target, url: url, status: 502, source: nil,
                      bodyBytes: sent ? Int64(body.count) : 0, isComplete: sent)
            return
        }
        // The client already got another answer (the gateway's own, such as 413 or 503).
        guard job.exchange.deliverHead(Exchange.Head(status: response.status, headers: response.headers,
                                                     length: response.length))
        else { return }
        var bytes: Int64 = 0
        var complete = true
        if let body = response.body {
            // One chunk is held back until the next one (or the end) arrives: the loader saves a
            // network response when the body ends, so the client gets its last byte only after the
            // entry is stored, and a request it sends next is a hit.
            var held: Data?
            do {
                for try await chunk in body {
                    if let previous = held {
                        guard await job.exchange.push(previous) else {
                            complete = false
                            held = nil
                            break
                        }
                        bytes += Int64(previous.count)
                    }
                    held = chunk
                }
            } catch let error as WebCacheError where error.code == .store && response.source == .network {
                // Every byte arrived; only saving failed. The client still gets the whole body.
                configuration.logger.warning("\(job.request.target) was sent but not stored: \(error.message)")
            } catch {
                complete = false
                held = nil
                configuration.logger.warning(
                    "The body of \(job.request.target) broke off after \(bytes) bytes: \(error)")
            }
            if let last = held {
                if await job.exchange.push(last) {
                    bytes += Int64(last.count)
                } else {
                    complete = false
                }
            }
        }
        job.exchange.finish(failed: !complete)
        logAnswer(method: job.request.method, target: job.request.target,
                  url: (try? job.request.url.get())?.absoluteString, status: response.status,
                  source: response.source, bodyBytes: bytes, isComplete: complete)
    }

    // MARK: - Connection callbacks

    /// The access handler, on an event-loop thread, which it never blocks. A request with a body is
    /// submitted as soon as its head is complete, and each piece of the upload is handed on as it
    /// arrives (the connection is suspended while the upstream lags behind); one without is
    /// submitted at its end. Then the connection is suspended until the head of the response is
    /// ready, and this handler, called again once it is resumed, queues it.
    private func access(
        _ connection: OpaquePointer, request: ConnectionRequest, method: UnsafePointer<CChar>,
        data: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        if !request.started {
            request.started = true
            request.method = HTTPMethod(rawValue: String(cString: method))
            request.headers = Self.headers(of: connection)
            request.headBytes = Self.headBytes(of: request)
            let buffer = ConnectionBuffer.size(maximumHeaderBytes: configuration.admission.maximumHeaderBytes)
            request.responseHeadRoom = buffer - ConnectionBuffer.requestBytes(
                headBytes: request.headBytes, target: request.target, headers: request.headers)
            if let deadline = Self.headDeadline(of: connection) { watchdog.headArrived(deadline) }
            request.client = Self.clientAddress(of: connection)
            if let refusal = admissionRefusal(of: request, from: request.client) {
                let result = Self.queueText(connection, status: refusal.status, refusal.message, headers: refusal.headers)
                logAnswer(method: request.method, target: request.target, url: mappedURL(of: request),
                          status: refusal.status, source: nil,
                          bodyBytes: Int64(refusal.message.utf8.count + 1), isComplete: result == MHD_Result.YES)
                return result
            }
            let (declared, framingIsValid) = Self.declaredLength(of: request.headers)
            // Counted in place: every request passes here, and a list of the values would be made for each.
            var hosts = 0
            for field in request.headers where field.name.caseInsensitiveEquals("Host") { hosts += 1 }
            let malformed = Self.malformedField(in: request.headers)
            let targetIsMalformed = request.target.utf8.contains { $0 <= 0x20 || $0 == 0x7F }
            if !framingIsValid || hosts > 1 || (hosts == 0 && !request.isHTTP10) || targetIsMalformed
                || malformed != nil
            {
                let message = if targetIsMalformed {
                    "The request target \(String(reflecting: request.target)) holds a space or a control character: "
                        + "a target has none (RFC 9112 §3.2)."
                } else if let malformed {
                    "The request for \(request.target) has a field \(String(reflecting: malformed.name)) whose "
                        + (malformed.name.isHTTPToken ? "value holds a CR" : "name is not a token")
                        + ": the gateway forwards only well-formed fields (RFC 9110 §5.1, §5.5)."
                } else if hosts > 1 {
                    "The request for \(request.target) has \(hosts) Host fields: a request has one (RFC 9112 §3.2)."
                } else if hosts == 0, !request.isHTTP10 {
                    "The request for \(request.target) has no Host field: an HTTP/1.1 request has one (RFC 9112 §3.2)."
                } else {
                    "The request for \(request.target) declares its length as \""
                        + request.headers.values(for: "Content-Length").joined(separator: ", ")
                        + "\": a message has one length, a decimal number (RFC 9112 §6.3)."
                }
                let result = Self.queueText(connection, status: 400, message, headers: ["Connection": "close"])
                logAnswer(method: request.method, target: request.target, url: mappedURL(of: request), status: 400,
                          source: nil, bodyBytes: Int64(message.utf8.count + 1), isComplete: result == MHD_Result.YES)
                return result
            }
            if let declared, declared > configuration.maximumRequestBodySize {
                request.tooLarge = true
            } else if (declared ?? 0) > 0 || request.headers.contains("Transfer-Encoding") {
                let stream = RequestBodyStream(length: declared.map(Int64.init))
                request.bodyStream = stream
                request.exchange = submit(proxyRequest(for: request))
                if request.exchange == nil { stream.cancel() }
            }
            return MHD_Result.YES
        }
        if size.pointee > 0 {
            if !request.tooLarge, let data, let stream = request.bodyStream {
                request.bodyBytes += size.pointee
                if request.bodyBytes > configuration.maximumRequestBodySize {
                    // Ending the exchange drops the loader's answer (the client gets the gateway's
                    // own 413 below); cancelling the stream aborts the upstream transfer.
                    request.tooLarge = true
                    request.exchange?.abort(with: Exchange.Head(status: 413, headers: [:], length: .none))
                    stream.cancel()
                } else if stream.write(Data(bytes: data, count: size.pointee), orWhenSpace: wake(connection)) == .full {
                    // Handed on again once the upstream has taken some: the bytes stay unread.
                    request.bodyBytes -= size.pointee
                    suspensions.suspend(ConnectionSuspensions.key(of: connection))
                    return MHD_Result.YES
                }
            }
            size.pointee = 0
            return MHD_Result.YES
        }
        if request.tooLarge {
            return answerByItself(request, on: connection, status: 413,
                                  "The request body for \(request.target) is larger than the gateway accepts "
                                      + "(\(configuration.maximumRequestBodySize) bytes).")
        }
        if !request.awaitsHead {
            if let stream = request.bodyStream {
                stream.finish()
            } else if let answered = answerFromStore(request, on: connection) {
                // Answered once the request is read to its end: a response queued earlier would make
                // the server close the connection after it.
                return answered
            } else {
                request.exchange = submit(proxyRequest(for: request))
            }
            request.awaitsHead = true
        }
        guard let exchange = request.exchange else {
            return answerByItself(request, on: connection, status: 503, "The gateway is shutting down.")
        }
        guard let head = exchange.head(orWhenDelivered: wake(connection)) else {
            suspensions.suspend(ConnectionSuspensions.key(of: connection))
            return MHD_Result.YES
        }
        return queue(head, exchange: exchange, on: connection)
    }

    /// What resumes `connection` once what it waits for is there.
    private func wake(_ connection: OpaquePointer) -> @Sendable () -> Void {
        let key = ConnectionSuspensions.key(of: connection)
        return { [suspensions] in suspensions.resume(key) }
    }

    /// The request to submit for what `request` holds.
    private func proxyRequest(for request: ConnectionRequest) -> ProxyRequest {
        ProxyRequest(method: request.method, target: request.target, url: request.url(upstream: configuration.upstream),
                     headers: request.headers, bodyStream: request.bodyStream,
                     refusesPrivateAddresses: !AddressRange.isLoopback(request.client),
                     responseHeadRoom: request.responseHeadRoom)
    }

    /// Answers `request` with `message` without loading anything, and logs it like any other answer.
    private func answerByItself(
        _ request: ConnectionRequest, on connection: OpaquePointer, status: Int, _ message: String
    ) -> MHD_Result {
        let result = Self.queueText(connection, status: status, message)
        logAnswer(method: request.method, target: request.target, url: mappedURL(of: request), status: status,
                  source: nil, bodyBytes: Int64(message.utf8.count + 1), isComplete: result == MHD_Result.YES)
        return result
    }

    /// The length a request's `Content-Length` fields declare, `nil` without one. Several fields or
    /// list members are one length only when they are the same number (RFC 9110 §8.6); anything
    /// else (differing numbers, a sign, other characters, a number too large) leaves the message's
    /// framing invalid (RFC 9112 §6.3), and `isValid` false.
    static func declaredLength(of headers: HTTPHeaders) -> (length: Int?, isValid: Bool) {
        let members = headers.listValues(for: "Content-Length")
        guard let first = members.first else {
            // A field with nothing in it is no number either.
            return (nil, !headers.contains("Content-Length"))
        }
        guard first.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }), let length = Int(first),
            members.dropFirst().allSatisfy({ $0 == first })
        else { return (nil, false) }
        return (length, true)
    }

    /// The first of a request's `headers` whose name is not a token (RFC 9110 §5.1: `Bad Name`,
    /// `Content-Length :`) or whose value holds a CR (§5.5), which the HTTP server lets through and
    /// the gateway would otherwise forward, or fail to, as something the client did not send.
    static func malformedField(in headers: HTTPHeaders) -> HTTPField? {
        headers.first { field in
            // A memchr over the value's bytes in place: a browser's Cookie field runs to kilobytes.
            let holdsCR = field.value.utf8.withContiguousStorageIfAvailable { bytes in
                bytes.baseAddress.map { memchr($0, 0x0D, bytes.count) != nil } ?? false
            } ?? field.value.utf8.contains(0x0D)
            return holdsCR || !field.name.isHTTPToken
        }
    }

    /// The URL `request` maps to, as the access log names it; `nil` when it maps to none.
    private func mappedURL(of request: ConnectionRequest) -> String? {
        (try? request.url(upstream: configuration.upstream).get())?.absoluteString
    }

    /// Hands one answered request to the access log, if there is one: the `url` it was mapped to,
    /// or its `target` when it maps to none (the URL is not spelled out without a log).
    private func logAnswer(
        method: HTTPMethod, target: String, url: @autoclosure () -> String?, status: Int, source: ResponseSource?,
        bodyBytes: Int64, isComplete: Bool
    ) {
        guard let accessLog = configuration.accessLog else { return }
        accessLog(AccessLogEntry(method: method, url: url() ?? target, status: status, source: source,
                                 bodyBytes: bodyBytes, isComplete: isComplete))
    }

    // MARK: - Stored hits

    /// Answers `request` from the store on this event-loop thread when the store answers it as it
    /// is stored (``ProxyHandler/storedAnswer(to:)``): a body of one chunk is copied into one buffer
    /// and checked before the head is queued (in the read that found the entry, when it is the
    /// URL's only variant), a larger one is copied chunk by chunk into the server's buffer as the
    /// socket takes it. `nil` when the loader must answer, which it then does
    /// as for any request; so also when the stored body of one chunk turns out damaged or gone: the
    /// loader finds that again, removes the damaged copy and fetches it anew.
    private func answerFromStore(_ request: ConnectionRequest, on connection: OpaquePointer) -> MHD_Result? {
        // Taken before the store is read, so that what is kept is never newer than its count says.
        let changeCount = hotAnswers != nil && HotAnswers.isPlain(request) ? try? cache.store.changeCount() : nil
        if let hotAnswers, let changeCount,
            let ready = hotAnswers.answer(for: request.target, changeCount: changeCount, now: Date(), mayHaveChanged: {
                cache.store.entriesMayHaveChanged(url: $0, since: $1, until: changeCount)
            })
        {
            memoryAnswers.add(1, ordering: .relaxed)
            return send(ready, for: request, on: connection)
        }
        // The handler (a struct of references, copied whole) only past the answers kept in memory.
        guard let handler, let (answer, head) = handler.storedAnswer(to: proxyRequest(for: request)) else { return nil }
        if let changeCount, let kept = keep(answer, head: head, changeCount: changeCount, for: request.target) {
            return send(kept, response: Self.response(kept, head: head).map(PreparedResponse.init), for: request,
                        on: connection)
        }
        let response: OpaquePointer?
        var stream: StoredBodyStream?
        var bodyBytes: Int64 = 0
        switch (head.sendsBody, answer.body) {
        case (false, _):
            response = Self.emptyResponse(head.length)
        case (true, .none) where head.length == .known(0) || head.length == .unknown:
            // Stored without a body: an empty one.
            response = cmhd_create_response_from_buffer(0, nil, MHD_ResponseMemoryMode.RESPMEM_PERSISTENT)
        case (true, .none):
            return nil  // A body of some length is declared but none is stored: the loader decides.
        case (true, .copied(let body)):
            // Copied and checked in the read that found the entry; MHD frees it with the response.
            response = cmhd_create_response_from_buffer(
                body.count, body.take(), MHD_ResponseMemoryMode.RESPMEM_MUST_FREE)
            bodyBytes = Int64(body.count)
        case (true, .stored(let bodyID, let size)) where size <= Int64(CacheStore.chunkSize):
            // MHD frees the buffer with the response.
            guard let buffer = malloc(max(1, Int(size))) else { return nil }
            do {
                try cache.store.copyBody(bodyID: bodyID, into: UnsafeMutableRawBufferPointer(start: buffer, count: Int(size)))
            } catch {
                free(buffer)
                return nil
            }
            response = cmhd_create_response_from_buffer(Int(size), buffer, MHD_ResponseMemoryMode.RESPMEM_MUST_FREE)
            bodyBytes = size
        case (true, .stored(let bodyID, let size)):
            let body = StoredBodyStream(answer: answer, bodyID: bodyID, cache: cache, logger: configuration.logger,
                                        target: request.target)
            stream = body
            bodyBytes = size
            response = Self.streamedResponse(
                size: UInt64(size), blockSize: CacheStore.chunkSize,
                from: ResponseBodyContext(body, connection: connection, suspensions: suspensions))
        }
        return queue(response, answering: request, with: answer, head: head, bodyBytes: bodyBytes, stream: stream,
                     on: connection)
    }

    /// Queues `response`, the stored `answer` to `request` with `head`, records the hit, and notes what
    /// to log once the response is over.
    private func queue(
        _ response: OpaquePointer?, answering request: ConnectionRequest, with answer: StoredAnswer,
        head: ProxyHandler.ClientHead, bodyBytes: Int64, stream: StoredBodyStream?, on connection: OpaquePointer
    ) -> MHD_Result {
        if let refused = refuseOversized(
            headBytes: ConnectionBuffer.responseBytes(head.headers), url: answer.url.absoluteString, for: request,
            on: connection)
        {
            if let response { cmhd_destroy_response(response) }
            return refused
        }
        noteHit(on: answer, url: answer.url.absoluteString, status: head.status, bodyBytes: bodyBytes, stream: stream,
                for: request)
        return Self.queue(response, status: head.status, headers: head.headers, length: head.length, on: connection)
    }

    /// Answers `request` 502 when a response head taking `headBytes` of the connection's buffer
    /// (``ConnectionBuffer/responseBytes(_:)``) would not fit beside its head (the server would close
    /// the connection without sending it); `nil` when it fits.
    private func refuseOversized(
        headBytes: Int, url: String, for request: ConnectionRequest, on connection: OpaquePointer
    ) -> MHD_Result? {
        guard headBytes > request.responseHeadRoom else { return nil }
        return answerByItself(request, on: connection, status: 502,
                              warnOfOversizedHead(url: url, headBytes: headBytes, room: request.responseHeadRoom))
    }

    /// Logs as a warning, and returns, why a response head of `headBytes` for `url` is not sent with
    /// `room` bytes left for it.
    private func warnOfOversizedHead(url: String, headBytes: Int, room: Int) -> String {
        let message = "The response head for \(url) is about \(headBytes) bytes, more than the \(max(0, room)) bytes "
            + "the gateway's connection buffer has left beside the request's head (a larger request-head limit, "
            + "--max-request-head, makes the buffer larger)."
        configuration.logger.warning(message)
        return message
    }

    /// Records a hit on the stored `answer`, answering `request`, and notes what to log once the
    /// response is over.
    private func noteHit(
        on answer: StoredAnswer, url: String, status: Int, bodyBytes: Int64, stream: StoredBodyStream?,
        for request: ConnectionRequest
    ) {
        cache.recordHit(of: answer)
        storeAnswers.add(1, ordering: .relaxed)
        request.storedHit = ConnectionRequest.StoredHit(url: url, status: status, source: answer.source,
                                                        bodyBytes: bodyBytes, stream: stream)
    }

    /// Keeps `answer` in memory (``HotAnswers``) when it may be: a fresh `200` that answers every plain
    /// request for `target` alike, with a body the memory admits, which is then taken or read here.
    private func keep(
        _ answer: StoredAnswer, head: ProxyHandler.ClientHead, changeCount: UInt64, for target: String
    ) -> HotAnswers.Kept? {
        guard let hotAnswers, answer.source == .hit, head.status == 200, head.sendsBody, answer.answersEveryRequest
        else { return nil }
        let body: HeldBody
        switch answer.body {
        case .copied(let copied) where hotAnswers.admits(size: copied.count):
            guard let memory = copied.take() else { return nil }
            body = HeldBody(taking: memory, count: copied.count)
        case .stored(let bodyID, let size) where hotAnswers.admits(size: Int(size)):
            if size > HeldBody.fileThreshold {
                var copier = cache.store.bodyCopier(bodyID: bodyID)
                if let inFile = HeldBody.inFile(count: Int(size), in: hotAnswers.bodyFiles, copying: { buffer in
                    try copier.copy(into: buffer)
                }) {
                    body = inFile
                    break
                }
            }
            // Where no file can be made, the body is kept in memory; damage is found again there.
            body = HeldBody(taking: malloc(max(1, Int(size))), count: Int(size))
            guard let start = body.start,
                (try? cache.store.copyBody(bodyID: bodyID, into: UnsafeMutableRawBufferPointer(start: start, count: body.count))) != nil
            else { return nil }  // Damage and all else are left to the usual path.
        default:
            return nil
        }
        let kept = HotAnswers.Kept(
            answer: answer, freshness: answer.freshness, head: head, body: body, changeCount: changeCount)
        hotAnswers.keep(kept, for: target)
        return kept
    }

    /// Sends a kept answer at its age, with the response made for that age when there is one, else
    /// with one made now and noted for the next hits of the same age.
    private func send(_ ready: HotAnswers.Ready, for request: ConnectionRequest, on connection: OpaquePointer) -> MHD_Result {
        if let prepared = ready.response { return send(ready.kept, response: prepared, for: request, on: connection) }
        var head = ready.kept.head
        head.headers["Age"] = String(ready.age)
        guard let made = Self.response(ready.kept, head: head) else { return MHD_Result.NO }
        let prepared = PreparedResponse(made)
        // A response from a file is made for each request: the server locks a response around each
        // `sendfile`, and connections on two threads sharing one would wait for each other.
        if !ready.kept.body.isInFile {
            hotAnswers?.prepared(prepared, age: ready.age, for: request.target, kept: ready.kept)
        }
        return send(ready.kept, response: prepared, for: request, on: connection)
    }

    /// Queues `response`, made for the kept answer, records the hit, and notes what to log once the
    /// response is over.
    private func send(
        _ kept: HotAnswers.Kept, response: PreparedResponse?, for request: ConnectionRequest,
        on connection: OpaquePointer
    ) -> MHD_Result {
        guard let response else { return MHD_Result.NO }
        if let refused = refuseOversized(headBytes: kept.headBytes, url: kept.url, for: request, on: connection) {
            return refused
        }
        noteHit(on: kept.answer, url: kept.url, status: kept.head.status, bodyBytes: Int64(kept.body.count),
                stream: nil, for: request)
        return cmhd_queue_response(connection, UInt32(kept.head.status), response.response)
    }

    /// The server's response for a kept answer with `head`: its body sent from its file with
    /// `sendfile`, or straight from the kept memory, which the response holds until the server is
    /// done with it.
    private static func response(_ kept: HotAnswers.Kept, head: ProxyHandler.ClientHead) -> OpaquePointer? {
        if let file = kept.body.fileForResponse() {
            // The response closes its descriptor when it is destroyed.
            if let response = cmhd_create_response_from_fd64(UInt64(kept.body.count), file) {
                addHead(to: response, headers: head.headers, length: head.length)
                return response
            }
            close(file)
        }
        let holder = Unmanaged.passRetained(kept.body).toOpaque()
        let response = cmhd_create_response_from_buffer_with_free_callback_cls(
            kept.body.count, kept.body.start, { holder in
                if let holder { Unmanaged<HeldBody>.fromOpaque(holder).release() }
            }, holder)
        guard let response else {
            Unmanaged<HeldBody>.fromOpaque(holder).release()
            return nil
        }
        addHead(to: response, headers: head.headers, length: head.length)
        return response
    }

    /// Logs a request answered from the store once its response is over: `sent` when all of it was.
    private func logStoredHit(_ hit: ConnectionRequest.StoredHit, of request: ConnectionRequest, sent: Bool) {
        logAnswer(method: request.method, target: request.target, url: hit.url, status: hit.status, source: hit.source,
                  bodyBytes: sent ? hit.bodyBytes : hit.stream?.bytesCopied ?? 0, isComplete: sent)
    }

    /// Registers an exchange for `request` and hands the request to the async side; `nil` once stopping.
    private func submit(_ request: ProxyRequest) -> Exchange? {
        let job = Job(request: request, exchange: Exchange())
        let accepted = registry.withLock { registry in
            guard !registry.stopping else { return false }
            registry.jobs[ObjectIdentifier(job.exchange)] = job
            return true
        }
        guard accepted else { return nil }
        jobSink.yield(job)
        return job.exchange
    }

    /// The request is over (sent, or the connection closed): the producer stops and the exchange is forgotten.
    private func completed(_ exchange: Exchange) {
        exchange.consumerFinished()
        _ = registry.withLock { $0.jobs.removeValue(forKey: ObjectIdentifier(exchange)) }
    }

    /// Queues `head` on the connection, with a body pulled from `exchange` as the socket takes it.
    private func queue(_ head: Exchange.Head, exchange: Exchange, on connection: OpaquePointer) -> MHD_Result {
        let response: OpaquePointer?
        switch head.length {
        case .none:
            response = Self.emptyResponse(.none)
        case .known, .unknown, .undeclared:
            response = Self.streamedResponse(
                size: head.length.declared, blockSize: Self.readerBlockSize,
                from: ResponseBodyContext(exchange, connection: connection, suspensions: suspensions))
        }
        return Self.queue(response, status: head.status, headers: head.headers, length: head.length, on: connection)
    }

    /// A response whose body of `size` bytes (unknown when `nil`) the server pulls from `body` in
    /// blocks of `blockSize` as the socket takes them; the connection is suspended while none are there.
    private static func streamedResponse(size: UInt64?, blockSize: Int, from body: ResponseBodyContext) -> OpaquePointer? {
        cmhd_create_response_from_callback(
            size ?? cmhd_size_unknown(), blockSize,
            { context, _, buffer, count in
                guard let context, let buffer else { return cmhd_reader_end_with_error() }
                let body = Unmanaged<ResponseBodyContext>.fromOpaque(context).takeUnretainedValue()
                switch body.source.read(into: buffer, count: count, orWhenReadable: body.wake) {
                case .bytes(let read): return read
                case .later:
                    // Called again once resumed.
                    body.suspensions.suspend(body.key)
                    return 0
                case .end: return cmhd_reader_end_of_stream()
                case .failed: return cmhd_reader_end_with_error()
                }
            },
            Unmanaged.passRetained(body).toOpaque(),
            { context in
                guard let context else { return }
                Unmanaged<ResponseBodyContext>.fromOpaque(context).takeRetainedValue().source.bodyEnded()
            })
    }

    /// A response that sends no body: none at all (204), or the head of one whose length the head
    /// declares (`HEAD`, 304), which the server never asks for.
    private static func emptyResponse(_ length: ProxyResponse.BodyLength) -> OpaquePointer? {
        switch length {
        case .none:
            cmhd_create_response_from_buffer(0, nil, MHD_ResponseMemoryMode.RESPMEM_PERSISTENT)
        case .known, .unknown, .undeclared:
            cmhd_create_response_from_callback(
                length.declared ?? cmhd_size_unknown(), 1, { _, _, _, _ in cmhd_reader_end_with_error() }, nil, nil)
        }
    }

    /// Adds `headers` to `response` and queues it with `status` on the connection; releases the
    /// response either way (the server keeps its own reference).
    private static func queue(
        _ response: OpaquePointer?, status: Int, headers: HTTPHeaders, length: ProxyResponse.BodyLength,
        on connection: OpaquePointer
    ) -> MHD_Result {
        guard let response else { return MHD_Result.NO }
        defer { cmhd_destroy_response(response) }
        addHead(to: response, headers: headers, length: length)
        return cmhd_queue_response(connection, UInt32(status), response)
    }

    /// Adds `headers` to `response`, which declares no length when `length` is undeclared.
    private static func addHead(to response: OpaquePointer, headers: HTTPHeaders, length: ProxyResponse.BodyLength) {
        if length == .undeclared { _ = cmhd_declare_no_length(response) }
        for field in headers {
            _ = cmhd_add_response_header(response, field.name, field.value)
        }
    }

    /// The fields of a plain-text answer from the gateway itself.
    private static let textHeaders: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8"]

    /// Queues a short plain-text answer from the gateway itself.
    private static func queueText(
        _ connection: OpaquePointer, status: Int, _ message: String, headers: HTTPHeaders = [:]
    ) -> MHD_Result {
        var bytes = Array((message + "\n").utf8)
        let response = bytes.withUnsafeMutableBytes { buffer in
            cmhd_create_response_from_buffer(buffer.count, buffer.baseAddress, MHD_ResponseMemoryMode.RESPMEM_MUST_COPY)
        }
        guard let response else { return MHD_Result.NO }
        defer { cmhd_destroy_response(response) }
        for field in textHeaders {
            _ = cmhd_add_response_header(response, field.name, field.value)
        }
        for field in headers {
            _ = cmhd_add_response_header(response, field.name, field.value)
        }
        return cmhd_queue_response(connection, UInt32(status), response)
    }

    /// The IP address bytes (4 or 16) of `address`; empty for another family.
    private static func bytes(of address: UnsafePointer<sockaddr>?) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = Int(cmhd_address_bytes(address, &buffer))
        return Array(buffer.prefix(count))
    }

    /// The head deadline the watchdog keeps for `connection` (its socket context), if it has one.
    private static func headDeadline(of connection: OpaquePointer) -> SlowClientWatchdog.Deadline? {
        cmhd_socket_context(connection).map { Unmanaged<SlowClientWatchdog.Deadline>.fromOpaque($0).takeUnretainedValue() }
    }

    /// The client address of `connection` as bytes; empty when unknown.
    private static func clientAddress(of connection: OpaquePointer) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 16)
        let count = Int(cmhd_client_address(connection, &buffer))
        return Array(buffer.prefix(count))
    }

    /// The request's header fields, in the order received.
    private static func headers(of connection: OpaquePointer) -> HTTPHeaders {
        let collector = HeaderCollector()
        withExtendedLifetime(collector) {
            _ = cmhd_get_connection_values(
                connection, MHD_ValueKind.HEADER_KIND,
                { context, _, name, value in
                    guard let context, let name else { return MHD_Result.YES }
                    let collector = Unmanaged<HeaderCollector>.fromOpaque(context).takeUnretainedValue()
                    let text = value.map { String(cString: $0) } ?? ""
                    collector.headers.append(name: String(cString: name), value: text)
                    return MHD_Result.YES
                },
                Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector.headers
    }
}
