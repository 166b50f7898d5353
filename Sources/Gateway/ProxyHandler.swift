import FoundationEssentials
import HTTPCaching
import HTTPCore
import WebCache

/// Answers one client request through the ``WebCache`` loader, so that the same RFC 9111 rules
/// decide hits, revalidation and storage as for every other caller of the library.
struct ProxyHandler: Sendable {
    let cache: WebCache
    let configuration: GatewayServer.Configuration
    /// The gateway's own base URL, for rewriting an upstream's redirects.
    let gatewayURL: URL
    /// The pseudonym in this gateway's `Via` entries; a request that already carries it has looped.
    let viaPseudonym: String

    // MARK: - Answering

    /// The response for `request`; failures become error responses, never thrown errors.
    func respond(to request: ProxyRequest) async -> ProxyResponse {
        if request.method.rawValue == "CONNECT" {
            // The connection is closed afterwards: a client that sent CONNECT expects a tunnel, not more requests.
            var refusal = ProxyResponse.text(501, """
                This gateway does not tunnel CONNECT requests: it can only cache what it can read, and an HTTPS \
                tunnel is encrypted end to end. Send http:// URLs through it, or start it with --upstream to \
                serve one origin (https included) as a reverse proxy.
                """)
            refusal.headers["Connection"] = "close"
            return refusal
        }
        if hasLooped(request) {
            return .text(508, "The request for '\(request.target)' came back to this gateway: "
                             + "it points at the gateway itself.")
        }
        let url: URL
        switch request.url {
        case .success(let mapped): url = mapped
        case .failure(let unmappable): return .text(400, unmappable.message)
        }
        if configuration.offline && !request.method.isAnsweredFromStore {
            return .text(504, "The gateway is offline: \(request.method.rawValue) \(url.absoluteString) "
                             + "cannot be sent to the origin.")
        }
        let conditions = ConditionalRequest(request.headers)

        let sent = Date()
        let response: WebResponse
        do {
            response = try await cache.load(makeWebRequest(request, url: url), policy: policy)
        } catch let error as WebCacheError {
            return Self.errorResponse(error, url: url, offline: configuration.offline)
        } catch is CancellationError {
            return .text(503, "The gateway is shutting down.")
        } catch {
            return .text(502, "Loading \(url.absoluteString) failed: \(error).")
        }

        let age = Self.currentAge(of: response, sent: sent, received: Date())
        let head = clientHead(status: response.status, headers: response.headers, source: response.source, age: age,
                              method: request.method, conditions: conditions)
        if !head.sendsBody { await readToEnd(response, url: url) }
        return ProxyResponse(status: head.status, headers: head.headers, source: response.source, length: head.length,
                             body: head.sendsBody ? response.body : nil)
    }

    /// The answer to `request` straight from the store, decided on the calling thread: a `GET` or
    /// `HEAD` that the store answers as it is stored (``WebCache/storedAnswer(for:policy:copyingBody:)``), with
    /// the head the client gets. `nil` when the loader must answer.
    func storedAnswer(to request: ProxyRequest) -> (answer: StoredAnswer, head: ClientHead)? {
        guard request.method == .get || request.method == .head, request.bodyStream == nil, !hasLooped(request),
            let url = try? request.url.get(),
            let answer = cache.storedAnswer(for: makeWebRequest(request, url: url), policy: policy, copyingBody: true)
        else { return nil }
        let head = clientHead(status: answer.status, headers: answer.headers, source: answer.source,
                              age: max(0, answer.age), method: request.method,
                              conditions: ConditionalRequest(request.headers))
        return (answer, head)
    }

    /// The head sent to the client, and whether a body follows it.
    struct ClientHead: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var length: ProxyResponse.BodyLength
        var sendsBody: Bool
    }

    /// The head the client gets for a response with `status` and `headers` (from the store or the
    /// network) of `age` seconds, to a request with `method` and `conditions`: the end-to-end fields,
    /// `Age`, `X-WebCache`, this gateway's `Via`, a redirect's `Location` mapped onto the gateway, and
    /// 304 when the client's validators match.
    func clientHead(
        status: Int, headers responseHeaders: HTTPHeaders, source: ResponseSource, age: TimeInterval,
        method: HTTPMethod, conditions: ConditionalRequest?
    ) -> ClientHead {
        var headers = HeaderRules.forwardable(responseHeaders, removing: HeaderRules.replacedInResponses)
        headers["Age"] = String(Int(age))
        headers["X-WebCache"] = source.rawValue
        headers.append(name: "Via", value: "1.1 \(viaPseudonym)")
        if let location = headers["Location"] {
            headers["Location"] = RequestTarget.rewriteLocation(
                location, upstream: configuration.upstream, gateway: gatewayURL)
        }

        let declared = responseHeaders["Content-Length"].flatMap { UInt64($0.trimmingHTTPWhitespace()) }

        // RFC 9110 §13.2.2: If-None-Match and If-Modified-Since are evaluated before Range, so a
        // 206 or 416 made for the client's Range gives way to 304 as a 200 does.
        let isRead = method == .get || method == .head
        if isRead, let conditions, status == 200 || status == 206 || status == 416,
            conditions.isNotModified(responseHeaders: responseHeaders)
        {
            // The client already has the body.
            let kept = HTTPHeaders(headers.filter {
                ConditionalRequest.notModifiedFields.contains($0.name.lowercased())
                    || ["age", "x-webcache", "via"].contains($0.name.lowercased())
            })
            // A 304 declares the length a 200 to GET would have (RFC 9110 §8.6), or none when that
            // is not known: never the length of the range a 206 carried.
            let whole = status == 200 ? declared : Self.completeLength(inContentRangeOf: responseHeaders)
            return ClientHead(status: 304, headers: kept, length: whole.map { .known($0) } ?? .undeclared,
                              sendsBody: false)
        }
        if status == 204 || (100..<200).contains(status) {
            return ClientHead(status: status, headers: headers, length: .none, sendsBody: false)
        }
        // The answer to HEAD declares the length a 200 to GET would have (RFC 9110 §9.3.2).
        if method == .head || status == 304 {
            return ClientHead(status: status, headers: headers, length: declared.map { .known($0) } ?? .undeclared,
                              sendsBody: false)
        }
        return ClientHead(status: status, headers: headers, length: declared.map { .known($0) } ?? .unknown,
                          sendsBody: true)
    }

    /// The complete length a 206 of one part or a 416 states in its `Content-Range`; `nil` for a
    /// multipart 206, which states it in each part alone.
    static func completeLength(inContentRangeOf headers: HTTPHeaders) -> UInt64? {
        guard let value = headers["Content-Range"], let length = ContentRange(parsing: value)?.completeLength,
            length >= 0
        else { return nil }
        return UInt64(length)
    }

    /// Whether `request` already passed through this gateway: it points at the gateway itself.
    func hasLooped(_ request: ProxyRequest) -> Bool {
        request.headers.listValues(for: "Via").contains(where: { $0.hasSuffix(" " + viaPseudonym) })
    }

    /// Reads to its end the body of a network response that the client does not get: the loader
    /// stores a response once its body has been read, even an empty one (a 204's).
    func readToEnd(_ response: WebResponse, url: URL) async {
        guard response.source == .network else { return }
        do {
            for try await _ in response.body {}
        } catch {
            configuration.logger.warning("\(url.absoluteString) was answered but not stored: \(error)")
        }
    }

    /// The `Age` to send (RFC 9111 §4.2.3, §5.1). For a stored response it is the loader's current
    /// age; for one that has just arrived, its corrected initial age: the origin's `Age` plus the
    /// time the exchange took, or the time since its `Date` if that is more. This request's own
    /// send and receipt times stand in for the transport's, which can only make the age larger.
    static func currentAge(of response: WebResponse, sent: Date, received: Date) -> TimeInterval {
        guard response.source == .network else { return max(0, response.age) }
        return StoredResponse(status: response.status, headers: response.headers, requestTime: sent,
                              responseTime: received, varyKey: "").correctedInitialAge
    }

    /// The cache policy for every load: the network never, or RFC 9111 with an optional stale fallback.
    var policy: CachePolicy {
        if configuration.offline { return .returnCacheDataDontLoad }
        if let maxStale = configuration.maxStale { return .offlineFallback(maxStale: maxStale) }
        return .useProtocolCachePolicy
    }

    /// The library request for a client request: its end-to-end fields, its body, no redirects
    /// followed (the client sees the 3xx and follows it through the gateway), no content decoded.
    func makeWebRequest(_ request: ProxyRequest, url: URL) -> WebRequest {
        let isRead = request.method == .get || request.method == .head
        let replaced = isRead ? HeaderRules.replacedInReads : HeaderRules.replacedInRequests
        var headers = HeaderRules.forwardable(request.headers, removing: replaced)
        headers.append(name: "Via", value: "1.1 \(viaPseudonym)")
        var webRequest = WebRequest(url.absoluteString, method: request.method, headers: headers,
                                    body: request.bodyStream == nil && !request.method.isSafe ? Data() : nil,
                                    bodyStream: request.bodyStream,
                                    followsRedirects: false)
        // Content passes on as the origin coded it: decoding it would transform a no-transform
        // response (RFC 9111 §5.2.2.6) and leave a strong ETag on another representation (RFC 9110
        // §8.8.3). Nor is the client's Accept-Encoding forwarded: asking for no coding gets the
        // identity representation, stored without an Accept-Encoding in its key as the library
        // stores what it decodes, so one entry (a preloaded one too) serves every client.
        webRequest.decodesContent = false
        // The upstream of origin-form requests is the operator's choice; where a forward request goes is the client's.
        webRequest.refusesPrivateAddresses = request.refusesPrivateAddresses && !request.target.hasPrefix("/")
        return webRequest
    }

    // MARK: - Errors

    /// The response for a failed load: 504 for what an offline gateway does not hold, 502 when the
    /// origin cannot be reached, 400 for a URL the library refuses.
    static func errorResponse(_ error: WebCacheError, url: URL, offline: Bool) -> ProxyResponse {
        switch error.code {
        case .notCached:
            let reason = offline ? "the gateway is offline" : "the network may not be used"
            return .text(504, "\(url.absoluteString) is not in the store, and \(reason).")
        case .invalidURL:
            return .text(400, error.message)
        case .store:
            return .text(500, "The store failed while loading \(url.absoluteString): \(error.message)")
        default:
            return .text(502, "Loading \(url.absoluteString) failed: \(error.message)")
        }
    }
}
