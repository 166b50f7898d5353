import Foundation
import HTTPCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Serves the requests of one keep-alive connection, on that connection's thread.
struct OriginConnection {
    let socket: OriginSocket
    let server: OriginServer

    private var configuration: OriginServer.Configuration { server.configuration }

    /// Reads, answers, and repeats until the client closes, asks to close, or sends garbage.
    func serve() {
        var buffer = [UInt8]()
        buffer.reserveCapacity(16 * 1024)
        var scratch = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            // MARK: Head
            var headEnd: Int?
            var searchFrom = 0
            while true {
                // Tolerate empty lines before a request line (RFC 9112 §2.2).
                while buffer.count >= 2 && buffer[0] == 13 && buffer[1] == 10 { buffer.removeFirst(2) }
                if let end = Self.findHeadEnd(buffer, from: searchFrom) {
                    headEnd = end
                    break
                }
                searchFrom = max(0, buffer.count - 3)
                if buffer.count > configuration.maxRequestHeadBytes {
                    sendError(431, "The request head is larger than \(configuration.maxRequestHeadBytes) bytes.")
                    return
                }
                guard readMore(into: &buffer, scratch: &scratch) else { return }
            }
            guard let headEnd else { return }
            if headEnd > configuration.maxRequestHeadBytes {
                sendError(431, "The request head is larger than \(configuration.maxRequestHeadBytes) bytes.")
                return
            }
            let head: ParsedHead
            switch Self.parseHead(buffer[..<headEnd]) {
            case .success(let parsed): head = parsed
            case .failure(let problem):
                sendError(problem.status, problem.message)
                return
            }
            buffer.removeFirst(headEnd + 4)

            // MARK: Body
            let body: Data
            if head.isChunked {
                switch readChunkedBody(from: &buffer, scratch: &scratch) {
                case .success(let decoded): body = decoded
                case .failure(let problem):
                    sendError(problem.status, problem.message)
                    return
                case nil: return
                }
            } else {
                if head.bodyLength > configuration.maxRequestBodyBytes {
                    sendError(bodyTooLarge.status, bodyTooLarge.message)
                    return
                }
                while buffer.count < head.bodyLength {
                    guard readMore(into: &buffer, scratch: &scratch) else { return }
                }
                body = Data(buffer[..<head.bodyLength])
                buffer.removeFirst(head.bodyLength)
            }

            let request = OriginRequest(
                method: HTTPMethod(rawValue: head.method), target: head.target, version: head.version,
                headers: head.headers, body: body, receivedAt: Date()
            )
            server.record(request)
            let response = server.respond(to: request)
            let delay = response.delay + configuration.latency
            if delay > .zero { Thread.sleep(forTimeInterval: delay.timeInterval) }
            guard send(response, for: request, keepAlive: head.keepAlive) else { return }
        }
    }

    // MARK: - Reading

    private func readMore(into buffer: inout [UInt8], scratch: inout [UInt8]) -> Bool {
        while true {
            let count = recv(socket.fd, &scratch, scratch.count, 0)
            if count > 0 {
                buffer.append(contentsOf: scratch[..<count])
                return true
            }
            if count < 0 && errno == EINTR { continue }
            return false
        }
    }

    /// The answer to content larger than ``OriginServer/Configuration/maxRequestBodyBytes``.
    private var bodyTooLarge: Problem {
        Problem(status: 413, message: "The request content is larger than \(configuration.maxRequestBodyBytes) bytes.")
    }

    /// Reads and decodes a chunked body (RFC 9112 §7.1) from `buffer`, reading more as needed;
    /// chunk extensions and trailer fields are read and dropped. `nil` when the client closed the
    /// connection first.
    private func readChunkedBody(from buffer: inout [UInt8], scratch: inout [UInt8]) -> Result<Data, Problem>? {
        let malformed = Problem(status: 400, message: "The chunked request content is malformed.")
        var body = Data()
        while true {
            guard let sizeLine = readLine(from: &buffer, scratch: &scratch) else { return nil }
            let digits = sizeLine.prefix { $0 != UInt8(ascii: ";") }.filter { $0 != 32 && $0 != 9 }
            guard !digits.isEmpty, digits.count <= 15,
                let size = Int(String(decoding: digits, as: UTF8.self), radix: 16)
            else { return .failure(malformed) }
            if size == 0 { break }
            guard body.count + size <= configuration.maxRequestBodyBytes else { return .failure(bodyTooLarge) }
            while buffer.count < size + 2 {
                guard readMore(into: &buffer, scratch: &scratch) else { return nil }
            }
            guard buffer[size] == 13 && buffer[size + 1] == 10 else { return .failure(malformed) }
            body.append(contentsOf: buffer[..<size])
            buffer.removeFirst(size + 2)
        }
        // The trailer section ends with an empty line.
        while true {
            guard let line = readLine(from: &buffer, scratch: &scratch) else { return nil }
            if line.isEmpty { return .success(body) }
            guard line.count <= configuration.maxRequestHeadBytes else { return .failure(malformed) }
        }
    }

    /// The next line of `buffer` without its CR LF, removed from it, reading more as needed; `nil`
    /// when the client closed the connection first or a line outgrows the head limit.
    private func readLine(from buffer: inout [UInt8], scratch: inout [UInt8]) -> [UInt8]? {
        var searchFrom = 0
        while true {
            if buffer.count >= 2, let end = (searchFrom..<(buffer.count - 1)).first(where: {
                buffer[$0] == 13 && buffer[$0 + 1] == 10
            }) {
                let line = Array(buffer[..<end])
                buffer.removeFirst(end + 2)
                return line
            }
            searchFrom = max(0, buffer.count - 1)
            guard buffer.count <= configuration.maxRequestHeadBytes, readMore(into: &buffer, scratch: &scratch)
            else { return nil }
        }
    }

    private static func findHeadEnd(_ buffer: [UInt8], from start: Int) -> Int? {
        guard buffer.count >= 4 else { return nil }
        var index = start
        while index + 3 < buffer.count {
            if buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
                return index
            }
            index += 1
        }
        return nil
    }

    // MARK: - Parsing

    struct ParsedHead {
        var method: String
        var target: String
        var version: String
        var headers: HTTPHeaders
        var bodyLength: Int
        /// Whether the content is chunked (`Transfer-Encoding: chunked`) rather than of `bodyLength`.
        var isChunked: Bool
        var keepAlive: Bool
    }

    struct Problem: Error {
        var status: Int
        var message: String
    }

    static func parseHead(_ bytes: ArraySlice<UInt8>) -> Result<ParsedHead, Problem> {
        for byte in bytes where byte < 32 && byte != 13 && byte != 10 && byte != 9 || byte == 127 {
            return .failure(Problem(status: 400, message: "The request head contains a control character."))
        }
        let text = String(decoding: bytes, as: UTF8.self)
        let lines = text.components(separatedBy: "\r\n")
        let requestLine = lines[0].split(separator: " ", omittingEmptySubsequences: false)
        guard requestLine.count == 3 else {
            return .failure(Problem(status: 400, message: "The request line '\(lines[0].prefix(80))' is malformed."))
        }
        let method = String(requestLine[0])
        let target = String(requestLine[1])
        let version = String(requestLine[2])
        guard method.isHTTPToken,
            target.hasPrefix("/") || target == "*" || target.hasPrefix("http://"),
            version == "HTTP/1.1" || version == "HTTP/1.0"
        else {
            return .failure(Problem(status: 400, message: "The request line '\(lines[0].prefix(80))' is malformed."))
        }
        var headers = HTTPHeaders()
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else {
                return .failure(Problem(status: 400, message: "The header line '\(line.prefix(80))' has no colon."))
            }
            let name = String(line[..<colon])
            guard name.isHTTPToken else {
                return .failure(Problem(status: 400, message: "The header name '\(name.prefix(80))' is malformed."))
            }
            headers.append(name: name, value: line[line.index(after: colon)...].trimmingHTTPWhitespace())
        }
        let codings = headers.listValues(for: "Transfer-Encoding").map { $0.lowercased() }
        let isChunked = !codings.isEmpty
        if isChunked {
            guard codings == ["chunked"] else {
                return .failure(Problem(
                    status: 501, message: "Request content with Transfer-Encoding '\(codings.joined(separator: ", "))' "
                        + "is not supported; only 'chunked' is."))
            }
            // Both framings at once is how requests are smuggled past another server (RFC 9112 §6.3).
            guard !headers.contains("Content-Length") else {
                return .failure(Problem(
                    status: 400, message: "The request has both Transfer-Encoding and Content-Length."))
            }
        }
        var bodyLength = 0
        let lengths = Set(headers.listValues(for: "Content-Length"))
        if !lengths.isEmpty {
            guard lengths.count == 1, let only = lengths.first, let length = Int(only), length >= 0,
                only.allSatisfy(\.isASCII)
            else {
                return .failure(Problem(status: 400, message: "The Content-Length header is invalid."))
            }
            bodyLength = length
        }
        let connection = headers.listValues(for: "Connection").map { $0.lowercased() }
        let keepAlive = version == "HTTP/1.1" ? !connection.contains("close") : connection.contains("keep-alive")
        return .success(ParsedHead(
            method: method, target: target, version: version, headers: headers,
            bodyLength: bodyLength, isChunked: isChunked, keepAlive: keepAlive
        ))
    }

    // MARK: - Writing

    private func sendError(_ status: Int, _ message: String) {
        var response = OriginResponse.text(message + "\n", status: status)
        response.headers.append(name: "Connection", value: "close")
        let request = OriginRequest(method: .get, target: "/")
        _ = send(response, for: request, keepAlive: false)
    }

    /// Writes `response`; returns whether the connection can serve another request.
    private func send(_ response: OriginResponse, for request: OriginRequest, keepAlive: Bool) -> Bool {
        if case .raw(let hook) = response.body {
            try? hook(socket)
            return false
        }
        var headers = response.headers
        let handlerCloses = headers.listValues(for: "Connection").contains { $0.caseInsensitiveEquals("close") }
        let keepAlive = keepAlive && !handlerCloses
        if !keepAlive && !headers.contains("Connection") { headers.append(name: "Connection", value: "close") }
        if !headers.contains("Date") { headers.append(name: "Date", value: HTTPDate.format(Date())) }
        let status = response.status
        let sendsContent = request.method != .head && status != 204 && status != 304 && status >= 200
        var content = Data()
        var streamer: (@Sendable (OriginBodyWriter) throws -> Void)?
        var chunked = false
        switch response.body {
        case .bytes(let data):
            if status != 204 && status != 304 && status >= 200 {
                headers["Content-Length"] = String(data.count)
            }
            if sendsContent { content = data }
        case .stream(let contentLength, let produce):
            if let contentLength {
                headers["Content-Length"] = String(contentLength)
            } else if sendsContent {
                headers["Transfer-Encoding"] = "chunked"
                chunked = true
            }
            if sendsContent { streamer = produce }
        case .raw:
            return false
        }
        var head = "HTTP/1.1 \(status) \(OriginResponse.reasonPhrase(for: status))\r\n"
        for field in headers { head += "\(field.name): \(field.value)\r\n" }
        head += "\r\n"
        var message = Data(head.utf8)
        message.append(content)
        do {
            try socket.write(message)
            if let streamer {
                try streamer(OriginBodyWriter(socket: socket, chunked: chunked))
                if chunked { try socket.write("0\r\n\r\n") }
            }
        } catch {
            return false
        }
        return keepAlive
    }
}

extension Duration {
    /// The duration in seconds, as Foundation's `TimeInterval`.
    var timeInterval: TimeInterval {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
