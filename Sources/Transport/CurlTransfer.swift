import CCurl
import FoundationEssentials
import HTTPCore

/// One request on the loop thread: its easy handle, the C memory libcurl reads, and the response
/// head being parsed. It never leaves the loop thread, and libcurl calls back into it there.
final class CurlTransfer {
    let spec: CurlTransferSpec
    let configuration: CurlTransport.Configuration
    private let resolvedConnections: ResolvedConnections
    /// Where the easy handle comes from and goes back to.
    private let handles: CurlHandles
    /// Asks the loop to call ``resume(sending:)`` with `true`; from any thread.
    private let wakeSender: @Sendable () -> Void
    let easy: UnsafeMutableRawPointer
    var requestTime = Date()

    private var lists: [UnsafeMutablePointer<curl_slist>] = []
    private let errorBuffer: UnsafeMutablePointer<CChar>

    // Response head in progress.
    private var status: Int?
    private var httpVersion = "HTTP/1.1"
    private var fields: [HTTPField] = []
    private var headerBytes = 0
    private var headDelivered = false
    /// A parsed head not yet handed to the caller; see ``flushHead()``.
    private var pendingHead: TransportResponse?
    // Body.
    private var bodyBytes: Int64 = 0
    /// A failure this side decided on (limits), reported instead of libcurl's "write error".
    private var failure: TransportError?
    /// The address a connection was refused to (``HTTPRequest/refusesPrivateAddresses``), for the error.
    private var refusedAddress: String?
    /// The condition that no longer held when the request was about to leave.
    private var withdrawnFor: SendCondition?
    /// Which directions are paused: libcurl sets one when a callback asks, and `curl_easy_pause`
    /// sets both, so both are tracked to resume one without losing the other.
    private var sendPaused = false
    private var receivePaused = false
    /// Whether the request was already sent again on a new connection (see ``retriesOnFreshConnection(after:)``).
    private var retriedOnFreshConnection = false
    /// Whether the URL is `http`, whose handle is kept for another transfer when this one ends.
    private var isPlainHTTP = false
    /// Whether libcurl ended the transfer without an error.
    private var endedWell = false

    init(
        spec: CurlTransferSpec, configuration: CurlTransport.Configuration, resolvedConnections: ResolvedConnections,
        handles: CurlHandles, wakeSender: @escaping @Sendable () -> Void
    ) {
        self.spec = spec
        self.configuration = configuration
        self.resolvedConnections = resolvedConnections
        self.handles = handles
        self.wakeSender = wakeSender
        self.easy = handles.take()
        let size = Int(ccurl_error_size())
        errorBuffer = .allocate(capacity: size)
        errorBuffer.initialize(repeating: 0, count: size)
    }

    deinit {
        // Reset or freed first: until then the handle points at the lists and the error buffer.
        // Only the handle of a plain-HTTP transfer that ended well is kept: one that carried HTTP/2
        // streams over TLS, or whose host did not resolve, refuses a new buffer size after its
        // reset, as libcurl still holds its buffer.
        handles.giveBack(easy, reusable: isPlainHTTP && endedWell)
        for list in lists { ccurl_slist_free_all(list) }
        errorBuffer.deallocate()
    }

    private var url: URL { spec.request.url }

    /// Whether this transfer's connections go to the address its host resolves to
    /// (``ResolvedConnections``), worked out once: both the address check and the response ask.
    private lazy var connectsToResolvedAddress = resolvedConnections.connectsToResolvedAddress(of: url)
    /// Whether every connection is checked against the address it reaches (``HTTPRequest/refusesPrivateAddresses``).
    private lazy var checksAddresses = spec.request.refusesPrivateAddresses && connectsToResolvedAddress

    /// Whether libcurl asks for compressed content and decodes it.
    /// Whether libcurl asks for content codings and decodes them: not for a request with `Range`,
    /// whose answer, a 206, is a slice of the coded bytes that no decoder reads alone (RFC 9110
    /// §14.1.2); an origin that codes it anyway (an object stored compressed) is passed on as coded.
    private var decodesContent: Bool {
        configuration.decodeContent && spec.request.decodesContent && !spec.request.headers.contains("Range")
    }

    // MARK: - Options

    /// Sets every option; returns an error when the request cannot be sent as given.
    func setUp() -> TransportError? {
        let request = spec.request
        let absolute = url.absoluteString
        guard let scheme = Self.scheme(of: url, absolute: absolute) else {
            return TransportError(
                code: .invalidRequest,
                message: "The URL \(url.redactedForMessages) is not an absolute http or https URL.", url: url)
        }
        isPlainHTTP = scheme == "http"
        var ok = true
        func set(_ option: CURLoption, _ value: Int) {
            ok = ok && ccurl_easy_setopt_long(easy, option, value) == CURLE_OK
        }
        func set(_ option: CURLoption, _ value: String) {
            // libcurl copies the text; a native string lends its bytes, where passing the string
            // itself as a C string copies it into a new array first.
            ok = ok && value.withCString { ccurl_easy_setopt_string(easy, option, $0) } == CURLE_OK
        }
        func set(_ option: CURLoption, list entries: [String]) {
            guard !entries.isEmpty else { return }
            var list: UnsafeMutablePointer<curl_slist>?
            for entry in entries { list = ccurl_slist_append(list, entry) }
            guard let list else {
                ok = false
                return
            }
            lists.append(list)
            ok = ok && ccurl_easy_setopt_slist(easy, option, list) == CURLE_OK
        }

        set(CURLOPT_URL, absolute)
        set(CURLOPT_NOSIGNAL, 1)
        set(CURLOPT_FOLLOWLOCATION, 0)
        set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        // Larger reads mean fewer callbacks and chunks; one read is also the most a full body buffer can overshoot.
        set(CURLOPT_BUFFERSIZE, 64 * 1024)
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_ERRORBUFFER, errorBuffer)
        switch configuration.httpVersion {
        case .http2OverTLS:
            set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_2TLS)
            if scheme == "https" { set(CURLOPT_PIPEWAIT, 1) }
        case .http1:
            set(CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1)
        }
        if decodesContent { set(CURLOPT_ACCEPT_ENCODING, "") }
        set(CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(configuration.connectTimeout))
        set(CURLOPT_LOW_SPEED_LIMIT, 1)
        set(CURLOPT_LOW_SPEED_TIME, max(1, Int(configuration.idleTimeout.components.seconds)))
        set(CURLOPT_SSL_VERIFYPEER, configuration.insecure ? 0 : 1)
        set(CURLOPT_SSL_VERIFYHOST, configuration.insecure ? 0 : 2)
        if let file = configuration.caCertificateFile { set(CURLOPT_CAINFO, file) }
        if resolvedConnections.usesNoProxy {
            // Said outright: libcurl otherwise reads the proxy variables from the environment (and
            // spells out their names) for every transfer.
            set(CURLOPT_PROXY, "")
            set(CURLOPT_NOPROXY, "")
        } else if let proxy = configuration.proxy {
            set(CURLOPT_PROXY, proxy)
        }
        set(CURLOPT_RESOLVE, list: configuration.resolve)
        set(CURLOPT_CONNECT_TO, list: configuration.connectTo)
        if let maxBody = configuration.maxBodyBytes {
            ok = ok && ccurl_easy_setopt_off_t(easy, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(maxBody)) == CURLE_OK
        }

        // Method and content.
        let context = Unmanaged.passUnretained(self).toOpaque()
        switch request.method {
        case .get where request.body == nil && request.bodyStream == nil:
            set(CURLOPT_HTTPGET, 1)
        case .head:
            set(CURLOPT_NOBODY, 1)
        default:
            if request.method != .post { set(CURLOPT_CUSTOMREQUEST, request.method.rawValue) }
            if let stream = request.bodyStream {
                // Read from the stream as it arrives; without a length libcurl sends it chunked.
                set(CURLOPT_POST, 1)
                ok = ok && ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(stream.length ?? -1))
                    == CURLE_OK
                ok = ok && ccurl_easy_setopt_read_callback(easy) { pointer, size, count, context in
                    guard let pointer, let context else { return ccurl_readfunc_abort() }
                    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                    return transfer.supplyBody(UnsafeMutableRawBufferPointer(start: pointer, count: size * count))
                } == CURLE_OK
                _ = ccurl_easy_setopt_pointer(easy, CURLOPT_READDATA, context)
            } else if let body = request.body ?? (request.method == .post ? Data() : nil) {
                let size = curl_off_t(body.count)
                ok = ok && ccurl_easy_setopt_off_t(easy, CURLOPT_POSTFIELDSIZE_LARGE, size) == CURLE_OK
                // COPYPOSTFIELDS copies the bytes, so nothing has to outlive this call.
                let code = body.withUnsafeBytes { buffer -> CURLcode in
                    let empty: StaticString = ""
                    let pointer = buffer.baseAddress ?? UnsafeRawPointer(empty.utf8Start)
                    let bytes = UnsafeMutableRawPointer(mutating: pointer)
                    return ccurl_easy_setopt_pointer(easy, CURLOPT_COPYPOSTFIELDS, bytes)
                }
                ok = ok && code == CURLE_OK
            }
        }

        // Header fields: the request's own win over the defaults.
        var headers = configuration.defaultHeaders
        if !headers.isEmpty { for field in request.headers { headers.remove(field.name) } }
        for field in request.headers { headers.append(name: field.name, value: field.value) }
        var lines: [String] = []
        for field in headers {
            // Read as bytes: a name is ASCII without a colon, space or control; a value has no line break.
            let bad = field.name.isEmpty
                || field.name.utf8.contains { $0 == UInt8(ascii: ":") || $0 <= 0x20 || $0 >= 0x7F }
                || field.value.holdsLineBreakOrNUL
            if bad {
                return TransportError(
                    code: .invalidRequest,
                    message: "The header field '\(field.name)' of the request to \(url.redactedForMessages) "
                        + "is malformed.",
                    url: url)
            }
            lines.append(field.value.isEmpty ? "\(field.name);" : "\(field.name): \(field.value)")
        }
        if request.body != nil || request.bodyStream != nil || request.method == .post {
            lines.append("Expect:")
            if !headers.contains("Content-Type") { lines.append("Content-Type:") }
        }
        set(CURLOPT_HTTPHEADER, list: lines)
        if let userAgent = configuration.userAgent { set(CURLOPT_USERAGENT, userAgent) }

        // Callbacks, with this object as their context. The loop keeps it alive while the handle is in use.
        _ = ccurl_easy_setopt_write_callback(easy, CURLOPT_HEADERFUNCTION) { pointer, size, count, context in
            guard let pointer, let context else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            return transfer.didReceiveHeaderLine(UnsafeRawBufferPointer(start: pointer, count: size * count))
        }
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_HEADERDATA, context)
        _ = ccurl_easy_setopt_write_callback(easy, CURLOPT_WRITEFUNCTION) { pointer, size, count, context in
            guard let pointer, let context else { return 0 }
            let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
            return transfer.didReceiveBody(UnsafeRawBufferPointer(start: pointer, count: size * count))
        }
        _ = ccurl_easy_setopt_pointer(easy, CURLOPT_WRITEDATA, context)
        if checksAddresses {
            // Every connection this transfer opens is checked against the address libcurl actually
            // resolved, so a host that resolved to a public address earlier and to a private one now
            // (DNS rebinding) is refused before a byte is sent.
            ok = ok && ccurl_easy_setopt_opensocket_callback(easy) { context, _, address in
                guard let context, let address else { return ccurl_socket_bad() }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                return transfer.openSocket(address)
            } == CURLE_OK
            _ = ccurl_easy_setopt_pointer(easy, CURLOPT_OPENSOCKETDATA, context)
        }
        if checksAddresses || request.sendCondition != nil {
            // Called once libcurl has picked the connection, new or reused, just before the request
            // leaves: a connection kept alive from an earlier request opens no socket, so the address
            // is checked again here; and a request that waited for a connection is withdrawn when
            // what it was sent for no longer holds.
            ok = ok && ccurl_easy_setopt_prereq_callback(easy) { context, primaryIP, _, _, _ in
                guard let context, let primaryIP else { return ccurl_prereqfunc_abort() }
                let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
                return transfer.maySend(to: String(cString: primaryIP))
            } == CURLE_OK
            _ = ccurl_easy_setopt_pointer(easy, CURLOPT_PREREQDATA, context)
        }

        guard ok else {
            return TransportError(
                code: .invalidRequest,
                message: "libcurl refused an option for the request to \(url.redactedForMessages).", url: url)
        }
        return nil
    }

    /// Opens the socket for a connection libcurl is about to make, unless `address` is not public.
    private func openSocket(_ address: UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t {
        let isPrivate = withUnsafePointer(to: &address.pointee.addr) { NetworkAddress.isPrivate($0) }
        if isPrivate {
            refusedAddress = withUnsafePointer(to: &address.pointee.addr) { NetworkAddress.text($0) }
            return ccurl_socket_bad()
        }
        return socket(address.pointee.family, address.pointee.socktype | Int32(SOCK_CLOEXEC.rawValue),
                      address.pointee.protocol)
    }

    /// Whether the request may be sent on a connection to `address`, new or reused.
    private func maySend(to address: String) -> Int32 {
        if let condition = spec.request.sendCondition, !condition.holds {
            withdrawnFor = condition
            return ccurl_prereqfunc_abort()
        }
        guard checksAddresses, NetworkAddress.isPrivate(numeric: address) else { return ccurl_prereqfunc_ok() }
        refusedAddress = address
        return ccurl_prereqfunc_abort()
    }

    /// `http` or `https` when `url` (whose text is `absolute`) is an absolute URL of one of them
    /// with a host, `nil` otherwise. A plain URL is read from its text (``HTTPURLCheck``), which
    /// gives what Foundation's scheme and host getters give for it without parsing the URL again.
    private static func scheme(of url: URL, absolute: String) -> String? {
        if let scheme = HTTPURLCheck.plainScheme(absolute) { return scheme }
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil else {
            return nil
        }
        return scheme
    }

    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000)
    }

    // MARK: - Callbacks

    private func didReceiveHeaderLine(_ bytes: UnsafeRawBufferPointer) -> Int {
        headerBytes += bytes.count
        if headerBytes > configuration.maxHeaderBytes {
            failure = TransportError(
                code: .headerTooLarge,
                message: "The response head from \(url.redactedForMessages) is larger than the limit of "
                    + "\(configuration.maxHeaderBytes) bytes.",
                url: url)
            return 0
        }
        var end = bytes.count
        while end > 0 && (bytes[end - 1] == 10 || bytes[end - 1] == 13) { end -= 1 }
        let lineBytes = UnsafeRawBufferPointer(rebasing: bytes[..<end])
        if let field = Self.field(in: lineBytes) {
            fields.append(field)
            return bytes.count
        }
        if let statusLine = Self.statusLine(in: lineBytes) {
            resetHead()
            httpVersion = statusLine.version
            status = statusLine.status
            return bytes.count
        }
        let line = String(decoding: lineBytes, as: UTF8.self)
        if line.isEmpty {
            // End of a head: an interim (1xx) head is dropped, a final one is delivered.
            if let status, status >= 200 || status == 101 {
                deliverHead(status: status)
            } else {
                resetHead()
            }
        } else if line.first == " " || line.first == "\t", !fields.isEmpty {
            fields[fields.count - 1].value += " " + line.trimmingHTTPWhitespace()
        } else if let colon = line.firstIndex(of: ":") {
            fields.append(HTTPField(
                name: String(line[..<colon]), value: line[line.index(after: colon)...].trimmingHTTPWhitespace()))
        }
        return bytes.count
    }

    /// The field a header line holds, read from its bytes, when it is an ordinary `name: value`
    /// line (one that starts with neither `HTTP/` nor whitespace and has a colon); `nil` for any
    /// other line, which the general path reads. The same field as that path makes from the line's
    /// text: the colon and the whitespace trimmed are ASCII, which UTF-8 never uses inside another
    /// character, so decoding the name and the value apart gives what decoding the line does. Every
    /// response has several such lines, which no longer each make a string of the whole line.
    static func field(in line: UnsafeRawBufferPointer) -> HTTPField? {
        guard let first = line.first, first != 0x20, first != 0x09, !isStatusLine(line),
            let colon = line.firstIndex(of: UInt8(ascii: ":"))
        else { return nil }
        var start = colon + 1
        var end = line.count
        while start < end, line[start] == 0x20 || line[start] == 0x09 { start += 1 }
        while end > start, line[end - 1] == 0x20 || line[end - 1] == 0x09 { end -= 1 }
        return HTTPField(
            name: String(decoding: UnsafeRawBufferPointer(rebasing: line[..<colon]), as: UTF8.self),
            value: String(decoding: UnsafeRawBufferPointer(rebasing: line[start..<end]), as: UTF8.self))
    }

    /// Whether a header line starts with `HTTP/`, as a status line does: compared as five bytes (a
    /// generic `starts(with:)` against a string's UTF-8 view cost a hundred instructions a line).
    private static func isStatusLine(_ line: UnsafeRawBufferPointer) -> Bool {
        line.count >= 5 && line[0] == 0x48 && line[1] == 0x54 && line[2] == 0x54 && line[3] == 0x50 && line[4] == 0x2F
    }

    /// The version and status a status line holds, read from its bytes, when the line starts with
    /// `HTTP/`; `nil` for any other line. The words are those that splitting the line's text at its
    /// runs of spaces gives: the version is the first, the status the second read as an integer
    /// (`nil` when there is none, or it is not one). Every response has a status line, which no
    /// longer makes a string of the whole line and an array of its words.
    static func statusLine(in line: UnsafeRawBufferPointer) -> (version: String, status: Int?)? {
        guard isStatusLine(line) else { return nil }
        /// The word that starts at the first byte from `start` that is not a space.
        func word(from start: Int) -> Range<Int> {
            var first = start
            while first < line.count, line[first] == 0x20 { first += 1 }
            var end = first
            while end < line.count, line[end] != 0x20 { end += 1 }
            return first..<end
        }
        let version = word(from: 0)
        let code = word(from: version.upperBound)
        return (
            String(decoding: UnsafeRawBufferPointer(rebasing: line[version]), as: UTF8.self),
            code.isEmpty ? nil : Int(String(decoding: UnsafeRawBufferPointer(rebasing: line[code]), as: UTF8.self)))
    }

    private func resetHead() {
        status = nil
        // Room for a usual head at once: appended from empty, its lines moved the array four times.
        fields = []
        fields.reserveCapacity(16)
    }

    private func deliverHead(status: Int) {
        guard !headDelivered else { return }
        headDelivered = true
        var headers = HTTPHeaders(fields)
        // libcurl hands over decoded bytes: the head must describe those, not the encoded form.
        let decodedCoding = decodesContent && spec.request.method != .head ? headers.removeContentCoding() : nil
        var remote: UnsafeMutablePointer<CChar>?
        _ = ccurl_easy_getinfo_string(easy, CURLINFO_PRIMARY_IP, &remote)
        let response = TransportResponse(
            head: HTTPResponseHead(status: status, headers: headers),
            body: ResponseBody(channel: spec.channel),
            requestTime: requestTime,
            responseTime: Date(),
            httpVersion: httpVersion,
            url: url,
            remoteAddress: connectsToResolvedAddress
                ? remote.map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } : nil,
            decodedContentCoding: decodedCoding
        )
        pendingHead = response
    }

    /// Hands a parsed head to the waiting caller. The loop calls this after each round of
    /// `curl_multi_perform`, so a small response's head, body and end reach the caller together
    /// and wake its task once instead of once per event.
    func flushHead() {
        guard let response = pendingHead else { return }
        pendingHead = nil
        spec.head.settle(.success(response))
    }

    private func didReceiveBody(_ bytes: UnsafeRawBufferPointer) -> Int {
        if let limit = configuration.maxBodyBytes, bodyBytes + Int64(bytes.count) > limit {
            failure = bodyTooLarge(limit)
            return 0
        }
        switch spec.channel.offer(Data(bytes), refusable: true) {
        case .accepted, .acceptedButFull:
            bodyBytes += Int64(bytes.count)
            return bytes.count
        case .refused:
            receivePaused = true
            return ccurl_writefunc_pause()
        case .consumerGone:
            return 0
        }
    }

    /// Fills libcurl's upload buffer from the request body stream; pauses sending while it is empty.
    private func supplyBody(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let stream = spec.request.bodyStream else { return 0 }
        switch stream.read(into: buffer) {
        case .bytes(let count):
            return count
        case .end:
            return 0
        case .wouldBlock:
            sendPaused = true
            stream.whenReadable(wakeSender)
            return ccurl_readfunc_pause()
        case .failed:
            failure = TransportError(
                code: .invalidRequest,
                message: "The request body for \(url.redactedForMessages) broke off before its end; "
                    + "the request was aborted.",
                url: url)
            return ccurl_readfunc_abort()
        }
    }

    /// Lifts the pause of one direction, keeping the other as it is.
    func resume(sending: Bool) {
        if sending { sendPaused = false } else { receivePaused = false }
        var mask = ccurl_pause_cont()
        if sendPaused { mask |= ccurl_pause_send() }
        if receivePaused { mask |= ccurl_pause_recv() }
        ccurl_easy_pause(easy, mask)
    }

    private func bodyTooLarge(_ limit: Int64) -> TransportError {
        TransportError(
            code: .bodyTooLarge,
            message: "The response body from \(url.redactedForMessages) is larger than the limit of \(limit) bytes.",
            url: url)
    }

    // MARK: - Completion

    /// Whether to send a GET or HEAD again, once, on a new connection, because it failed before any
    /// response on a kept-alive connection: that connection may hold bytes a previous response sent
    /// beyond its `Content-Length`, which libcurl then reads as a broken answer to this request.
    /// When it returns `true` the transfer is ready to be added to the multi handle again.
    /// A streamed body is never sent again: it cannot be rewound.
    func retriesOnFreshConnection(after code: CURLcode) -> Bool {
        let method = spec.request.method
        guard !retriedOnFreshConnection, spec.request.bodyStream == nil, failure == nil, status == nil,
            !headDelivered, bodyBytes == 0,
            method == .get || method == .head,
            code == CURLE_UNSUPPORTED_PROTOCOL || code == CURLE_WEIRD_SERVER_REPLY || code == CURLE_GOT_NOTHING
                || code == CURLE_RECV_ERROR
        else { return false }
        var connects = 0
        guard ccurl_easy_getinfo_long(easy, CURLINFO_NUM_CONNECTS, &connects) == CURLE_OK, connects == 0 else {
            return false
        }
        retriedOnFreshConnection = true
        resetHead()
        headerBytes = 0
        errorBuffer[0] = 0
        return ccurl_easy_setopt_long(easy, CURLOPT_FRESH_CONNECT, 1) == CURLE_OK
    }

    /// libcurl finished the transfer with `code`.
    func finish(code: CURLcode) {
        endedWell = code == CURLE_OK
        if code == CURLE_OK {
            if headDelivered {
                complete(with: .success(()))
            } else {
                complete(with: .failure(TransportError(
                    code: .protocolError,
                    message: "The server at \(url.redactedForMessages) sent no HTTP response head.",
                    url: url)))
            }
            return
        }
        if let failure {
            complete(with: .failure(failure))
            return
        }
        if let withdrawnFor, code == CURLE_ABORTED_BY_CALLBACK {
            complete(with: .failure(TransportError.withdrawn(url, condition: withdrawnFor)))
            return
        }
        if let refusedAddress, code == CURLE_COULDNT_CONNECT || code == CURLE_ABORTED_BY_CALLBACK {
            let refusal = TransportError.addressRefused(url, address: refusedAddress, curlCode: Int(code.rawValue))
            complete(with: .failure(refusal))
            return
        }
        if code == CURLE_FILESIZE_EXCEEDED, let limit = configuration.maxBodyBytes {
            complete(with: .failure(bodyTooLarge(limit)))
            return
        }
        complete(with: .failure(error(for: code)))
    }

    /// Ends the body, settles the head (if still waiting), and stops the request body stream's
    /// producer if the stream was not read to its end.
    ///
    /// The body ends first: the caller the head wakes, on another thread at once, then finds a small
    /// body whole with its end, instead of waiting for the end to wake it a second time.
    func complete(with result: Result<Void, any Error>) {
        spec.request.bodyStream?.cancel()
        spec.channel.finish(result)
        flushHead()
        if case .failure(let error) = result, !spec.head.isSettled {
            spec.head.settle(.failure(error))
        }
    }

    private func error(for code: CURLcode) -> TransportError {
        let detail = String(cString: errorBuffer)
        let summary = String(cString: ccurl_easy_strerror(code))
        let target = url.redactedForMessages
        let (kind, message): (TransportError.Code, String) =
            switch code {
            case CURLE_COULDNT_RESOLVE_HOST: (.hostNotFound, "Could not resolve the host of \(target).")
            case CURLE_COULDNT_CONNECT: (.connectFailed, "Could not connect to \(target).")
            case CURLE_OPERATION_TIMEDOUT: (.timedOut, "The request to \(target) timed out.")
            case CURLE_COULDNT_RESOLVE_PROXY: (.proxy, "Could not resolve the proxy for \(target).")
            case CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE,
                CURLE_SSL_CERTPROBLEM, CURLE_SSL_CIPHER:
                (.tls, "The TLS connection to \(target) failed.")
            case CURLE_URL_MALFORMAT: (.invalidRequest, "The URL \(target) cannot be requested.")
            // The scheme was checked before the transfer, so an unsupported protocol here is the
            // server's: an answer that is not HTTP/1.x or HTTP/2 (libcurl refuses HTTP/0.9).
            case CURLE_WEIRD_SERVER_REPLY, CURLE_UNSUPPORTED_PROTOCOL, CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE,
                CURLE_RECV_ERROR, CURLE_HTTP2,
                CURLE_HTTP2_STREAM, CURLE_BAD_CONTENT_ENCODING:
                (.protocolError, "The response from \(target) was malformed or cut short.")
            default: (.networkError, "The request to \(target) failed.")
            }
        return TransportError(
            code: kind, message: message, url: url, curlCode: Int(code.rawValue),
            curlText: detail.isEmpty ? summary : "\(summary): \(detail)")
    }
}
